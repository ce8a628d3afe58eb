// Package refworkertest serves a reference worker inside a test's process,
// over real gRPC on a unix socket, for tests of other packages that need a
// worker (the gateway's, the engine's). Each worker lives until its test
// ends.
package refworkertest

import (
	"net"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"

	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tokenizer"
)

// Start serves a reference worker (New's) on a unix socket and returns its
// URL (unix://…).
func Start(t testing.TB, dir, shmDir string, mod func(*refworker.Options)) string {
	t.Helper()
	w, _ := New(t, dir, shmDir, mod)
	sock := filepath.Join(t.TempDir(), "worker.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.MaxRecvMsgSize(256 << 20))
	w.Register(g)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	return "unix://" + sock
}

// New returns a reference worker for the model folder dir, reading shared
// memory from shmDir, and the tokenizer it loaded. mod, when not nil,
// adjusts the options first.
func New(t testing.TB, dir, shmDir string, mod func(*refworker.Options)) (*refworker.Server, *tokenizer.Tokenizer) {
	t.Helper()
	tok, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := shm.NewReader(shm.ReaderOptions{Dir: shmDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	o := refworker.Options{ModelDir: dir, Tokenizer: tok, Reader: reader}
	if mod != nil {
		mod(&o)
	}
	w, err := refworker.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return w, tok
}
