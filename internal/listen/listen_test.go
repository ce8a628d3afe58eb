package listen

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	l, err := Open("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()

	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	// A stale socket (its listener gone, the file left) is replaced.
	stale, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	l, err = Open("unix://" + sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o660 {
		t.Errorf("socket mode: %v %v", st.Mode(), err)
	}
	if c, err := net.Dial("unix", sock); err != nil {
		t.Errorf("dial: %v", err)
	} else {
		c.Close()
	}

	file := filepath.Join(dir, "plain")
	os.WriteFile(file, []byte("x"), 0o600)
	for addr, want := range map[string]string{
		"localhost":         "want HOST:PORT or unix:///path",
		"unix://":           "needs an absolute path",
		"unix://rel/s.sock": "needs an absolute path",
		"unix://" + file:    "is not a socket",
	} {
		if l, err := Open(addr); err == nil || !strings.Contains(err.Error(), want) {
			if l != nil {
				l.Close()
			}
			t.Errorf("Open(%q): %v, want %q", addr, err, want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Error("a file that is not a socket was touched")
	}
}
