package engine

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"

	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

func TestFetchBundle(t *testing.T) {
	wk := startWorker(t, "unix", t.TempDir(), nil)
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: wk.url}}})
	out := filepath.Join(t.TempDir(), "bundle")
	got, err := e.FetchBundle(context.Background(), model, out)
	if err != nil {
		t.Fatal(err)
	}
	if got != out {
		t.Errorf("returned %q", got)
	}
	src := demoModelDir(t)
	for _, name := range []string{"tokenizer.json", "tokenizer_config.json", "config.json", "chat_template.jinja", "preprocessor_config.json", "video_preprocessor_config.json"} {
		want, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(have, want) {
			t.Errorf("%s: %d bytes, want %d (%v)", name, len(have), len(want), err)
		}
	}
	if _, err := e.FetchBundle(context.Background(), "nope", out); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("unknown model: %v", err)
	}
}

// fakeWorker serves a fixed model info and a given tokenizer bundle; it
// implements neither GetServerInfo nor GetLoads.
type fakeWorker struct {
	schedulerpb.UnimplementedTokenSpeedSchedulerServer
	data []byte
	sum  string

	// Generate: fail with genErr, or (genErr nil) block until the call is
	// cancelled, counting calls in started.
	genErr  error
	empty   bool // Generate ends at once without a response
	started chan string
	mu      sync.Mutex
	aborts  []string
}

func (f *fakeWorker) GetModelInfo(context.Context, *schedulerpb.GetModelInfoRequest) (*schedulerpb.GetModelInfoResponse, error) {
	return &schedulerpb.GetModelInfoResponse{ServedModelName: "fake", SupportsVision: true, MultimodalEncoderDtype: "int64"}, nil
}

func (f *fakeWorker) HealthCheck(context.Context, *schedulerpb.HealthCheckRequest) (*schedulerpb.HealthCheckResponse, error) {
	return &schedulerpb.HealthCheckResponse{Healthy: true}, nil
}

func (f *fakeWorker) GetTokenizer(_ *commonpb.GetTokenizerRequest, s schedulerpb.TokenSpeedScheduler_GetTokenizerServer) error {
	for off := 0; off < len(f.data); off += 100 {
		c := &commonpb.GetTokenizerChunk{Data: f.data[off:min(off+100, len(f.data))]}
		if off+100 >= len(f.data) {
			c.Sha256 = f.sum
		}
		if err := s.Send(c); err != nil {
			return err
		}
	}
	return nil
}

func startFake(t *testing.T, f *fakeWorker) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	schedulerpb.RegisterTokenSpeedSchedulerServer(g, f)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	return "grpc://" + lis.Addr().String()
}

type zfile struct {
	name    string
	body    string
	symlink bool
}

func makeZip(t testing.TB, files ...zfile) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		if f.symlink {
			h.SetMode(os.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func hexsum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func TestFetchBundleChecks(t *testing.T) {
	good := makeZip(t, zfile{name: "tokenizer.json", body: "{}"}, zfile{name: "sub/config.json", body: "{\"a\":1}"})
	cases := []struct {
		name string
		data []byte
		sum  string
		want error
	}{
		{"ok", good, hexsum(good), nil},
		{"upper-case digest", good, strings.ToUpper(hexsum(good)), nil},
		{"wrong digest", good, hexsum([]byte("x")), ErrBadBundle},
		{"no digest", good, "", ErrBadBundle},
		{"not a zip", []byte("hello"), hexsum([]byte("hello")), ErrBadBundle},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := startFake(t, &fakeWorker{data: c.data, sum: c.sum})
			e := newEngine(t, Options{Workers: []WorkerConfig{{URL: url}}})
			w, err := e.Pick("fake", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if info := w.Info(); info.Software != "" || info.NamespaceID != "" || info.NamespaceMatch || w.EncoderDType().String() != "float32" {
				t.Errorf("info without GetServerInfo: %+v, dtype %v", info, w.EncoderDType())
			}
			out := t.TempDir()
			_, err = e.FetchBundle(context.Background(), "fake", out)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if c.want == nil {
				if b, err := os.ReadFile(filepath.Join(out, "sub", "config.json")); err != nil || string(b) != "{\"a\":1}" {
					t.Errorf("sub/config.json: %q %v", b, err)
				}
			}
		})
	}
	// The size cap holds while receiving.
	url := startFake(t, &fakeWorker{data: good, sum: hexsum(good)})
	e := newEngine(t, Options{Workers: []WorkerConfig{{URL: url}}, MaxBundleBytes: 150})
	if _, err := e.FetchBundle(context.Background(), "fake", t.TempDir()); !errors.Is(err, ErrBadBundle) {
		t.Errorf("over the cap: %v", err)
	}
}

func TestUnpackBundleRefusals(t *testing.T) {
	many := make([]zfile, maxBundleFiles+1)
	for i := range many {
		many[i] = zfile{name: "f" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + itoa(i%10)}
	}
	cases := []struct {
		name  string
		files []zfile
	}{
		{"parent", []zfile{{name: "../evil", body: "x"}}},
		{"nested parent", []zfile{{name: "a/../../evil", body: "x"}}},
		{"absolute", []zfile{{name: "/etc/evil", body: "x"}}},
		{"backslash", []zfile{{name: "..\\evil", body: "x"}}},
		{"dot", []zfile{{name: "./a", body: "x"}}},
		{"symlink", []zfile{{name: "link", body: "/etc/passwd", symlink: true}}},
		{"duplicate", []zfile{{name: "a", body: "x"}, {name: "a", body: "y"}}},
		{"empty", nil},
		{"too many", many},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			err := unpackBundle(makeZip(t, c.files...), out, maxBundleUnpacked)
			if !errors.Is(err, ErrBadBundle) {
				t.Fatalf("err = %v", err)
			}
			if es, _ := os.ReadDir(parent); len(es) != 0 {
				t.Errorf("wrote %v", es)
			}
		})
	}
}

func FuzzUnpackBundle(f *testing.F) {
	f.Add(makeZip(f, zfile{name: "tokenizer.json", body: "{}"}))
	f.Add(makeZip(f, zfile{name: "a/b.json", body: "1"}, zfile{name: "a/", body: ""}))
	f.Add(makeZip(f, zfile{name: "../x", body: "1"}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		out := filepath.Join(parent, "out")
		if err := unpackBundle(data, out, 1<<20); err != nil {
			if !errors.Is(err, ErrBadBundle) {
				t.Fatalf("error not ErrBadBundle: %v", err)
			}
		}
		// Nothing is ever written outside out.
		es, _ := os.ReadDir(parent)
		for _, e := range es {
			if e.Name() != "out" {
				t.Fatalf("wrote %s outside the bundle dir", e.Name())
			}
		}
		_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSymlink != 0 {
				t.Fatalf("symlink %s", p)
			}
			return nil
		})
	})
}
