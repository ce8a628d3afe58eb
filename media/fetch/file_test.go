//go:build unix

package fetch

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// fileURL makes a file: URL for an absolute path.
func fileURL(p string) string {
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func TestFileURLs(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	content := []byte("\xff\xd8\xff\xe0 jpeg-ish bytes")
	mustWrite := func(p string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(filepath.Join(root, "a.jpg"), content)
	mustWrite(filepath.Join(root, "sub", "b.jpg"), content)
	mustWrite(filepath.Join(root, "big.bin"), make([]byte, 2000))
	mustWrite(filepath.Join(root, "name with space.jpg"), content)
	mustWrite(filepath.Join(outside, "secret"), []byte("secret"))
	symlink := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	symlink(filepath.Join(outside, "secret"), "escape")
	symlink("../"+filepath.Base(outside)+"/secret", "escape-rel")
	symlink(outside, "dirlink")
	symlink("a.jpg", "inner")
	symlink(filepath.Join(root, "sub"), "subdirlink")
	symlink("/etc/passwd", "passwd")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A root given through a symlink.
	linkRootParent := t.TempDir()
	linkRoot := filepath.Join(linkRootParent, "root")
	if err := os.Symlink(root, linkRoot); err != nil {
		t.Fatal(err)
	}

	f, _, _ := newTestFetcher(t, Policy{FileRoots: []string{root}, MaxBytes: 1000})
	fl, _, _ := newTestFetcher(t, Policy{FileRoots: []string{linkRoot}, MaxBytes: 1000})
	tests := []struct {
		f    *Fetcher
		url  string
		want error
	}{
		{f, fileURL(filepath.Join(root, "a.jpg")), nil},
		{f, "file://localhost" + filepath.Join(root, "a.jpg"), nil},
		{f, "file://LOCALHOST" + filepath.Join(root, "a.jpg"), nil},
		{f, fileURL(filepath.Join(root, "sub", "b.jpg")), nil},
		{f, "file://" + root + "/sub/../a.jpg", nil},
		{f, "file://" + root + "/./sub//b.jpg", nil},
		{f, fileURL(filepath.Join(root, "name with space.jpg")), nil},
		{f, fileURL(filepath.Join(root, "inner")), nil},
		{f, fileURL(filepath.Join(root, "subdirlink", "b.jpg")), nil},
		{f, "file://" + root + "/%61.jpg", nil},
		{fl, fileURL(filepath.Join(linkRoot, "a.jpg")), nil},
		{fl, fileURL(filepath.Join(root, "a.jpg")), nil}, // the root's real path
		{f, fileURL(filepath.Join(root, "missing.jpg")), ErrFetch},
		{f, fileURL(filepath.Join(root, "big.bin")), ErrTooLarge},
		{f, "file://" + root + "/../" + filepath.Base(outside) + "/secret", ErrForbidden},
		{f, "file://" + root + "/%2e%2e/" + filepath.Base(outside) + "/secret", ErrForbidden},
		{f, "file://" + root + "/sub/%2e%2e%2f%2e%2e%2f" + filepath.Base(outside) + "/secret", ErrForbidden},
		{f, fileURL(filepath.Join(root, "escape")), ErrForbidden},
		{f, fileURL(filepath.Join(root, "escape-rel")), ErrForbidden},
		{f, fileURL(filepath.Join(root, "dirlink", "secret")), ErrForbidden},
		{f, fileURL(filepath.Join(root, "passwd")), ErrForbidden},
		{f, fileURL(filepath.Join(root, "fifo")), ErrForbidden},
		{f, fileURL(root), ErrForbidden},
		{f, fileURL(root + "x/a.jpg"), ErrForbidden}, // a sibling sharing the prefix
		{f, fileURL(filepath.Join(outside, "secret")), ErrForbidden},
		{f, "file:///etc/passwd", ErrForbidden},
		{f, "file://example.com" + filepath.Join(root, "a.jpg"), ErrForbidden},
		{f, "file://user@localhost" + filepath.Join(root, "a.jpg"), ErrForbidden},
		{f, "file:a.jpg", ErrBadURL},
		{f, "file://" + root + "/a.jpg%00.png", ErrBadURL},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			start := time.Now()
			m, err := tt.f.Fetch(context.Background(), tt.url)
			wantKind(t, err, tt.want)
			if err == nil && (!bytes.Equal(m.Bytes, content) || m.Source != "file") {
				t.Fatalf("got %q from %s", m.Bytes, m.Source)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatal("took too long")
			}
		})
	}

	// No roots: everything refused before the file system is touched.
	none, _, _ := newTestFetcher(t, Policy{})
	_, err := none.Fetch(context.Background(), fileURL(filepath.Join(root, "a.jpg")))
	wantKind(t, err, ErrForbidden)
	// file: removed from the schemes, even with roots.
	noFile, _, _ := newTestFetcher(t, Policy{Schemes: []string{"data"}, FileRoots: []string{root}})
	_, err = noFile.Fetch(context.Background(), fileURL(filepath.Join(root, "a.jpg")))
	wantKind(t, err, ErrForbidden)
}

// TestOpenInRoot covers the last line of defence: whatever was swapped in
// after the path was resolved, the open itself cannot leave the root.
func TestOpenInRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(root, "a"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(outside, "s"), []byte("s"), 0o644)
	os.Mkdir(filepath.Join(root, "d"), 0o755)
	os.WriteFile(filepath.Join(root, "d", "b"), []byte("b"), 0o644)
	os.Symlink("a", filepath.Join(root, "link"))
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink(filepath.Join(outside, "s"), filepath.Join(root, "abs"))
	for _, tt := range []struct {
		rel string
		ok  bool
	}{
		{"a", true},
		{"d/b", true},
		{"link", true}, // a symlink staying inside the root
		{"d/../link", true},
		{"abs", false},
		{"out/s", false}, // leaves the root
		{"../" + filepath.Base(outside) + "/s", false},
	} {
		file, err := openInRoot(root, tt.rel)
		if (err == nil) != tt.ok {
			t.Errorf("openInRoot(%q): %v", tt.rel, err)
		}
		if file != nil {
			file.Close()
		}
	}
}

func TestFileRootSlash(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.bin")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, _ := newTestFetcher(t, Policy{FileRoots: []string{"/"}})
	m, err := f.Fetch(context.Background(), fileURL(p))
	wantKind(t, err, nil)
	if string(m.Bytes) != "x" {
		t.Fatalf("got %q", m.Bytes)
	}
}
