package tokenizertest

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/tokenizer"
)

// TestModelDir checks that every materialised file is byte-identical to
// the fixture folder it was copied from (testdata/models/SHA256SUMS lists
// the originals), and that the folders load as model directories.
func TestModelDir(t *testing.T) {
	f, err := os.Open(filepath.Join(ModelsDir(), "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: bad line %q", sc.Text())
		}
		want[path] = sum
	}
	dirs := map[string]string{}
	for _, name := range ModelNames() {
		dirs[name] = ModelDir(t, name)
	}
	for path, sum := range want {
		name, file, _ := strings.Cut(path, "/")
		b, err := os.ReadFile(filepath.Join(dirs[name], file))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, want %s", path, got, sum)
		}
	}
	for _, name := range ModelNames() {
		if _, err := os.Stat(filepath.Join(dirs[name], "tokenizer.json")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := tokenizer.LoadConfig(dirs[name]); err != nil {
			t.Errorf("%s: LoadConfig: %v", name, err)
		}
	}
	if testing.Short() {
		return
	}
	tk, err := tokenizer.Load(dirs["llava-1.5"])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tk.VocabSize(), Model(t, "llava-1.5").VocabSize(); got != want || got != 32002 {
		t.Errorf("llava-1.5: vocabulary %d and %d, want 32002", got, want)
	}
}

func TestModel(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every fixture tokenizer")
	}
	for _, tc := range []struct {
		name  string
		vocab int
		token string
		id    uint32
	}{
		{"gemma3", 262145, "<image_soft_token>", 262144},
		{"llava-1.5", 32002, "<image>", 32000},
		{"llava-next", 32002, "<image>", 32000},
		{"internvl3", 151674, "<IMG_CONTEXT>", 151667},
		{"glm-4.1v", 151686, "<|image|>", 151682},
	} {
		tk := Model(t, tc.name)
		if got := tk.VocabSize(); got != tc.vocab {
			t.Errorf("%s: vocabulary %d, want %d", tc.name, got, tc.vocab)
		}
		if id, ok := tk.TokenID(tc.token); !ok || id != tc.id {
			t.Errorf("%s: TokenID(%q) = %d %v, want %d", tc.name, tc.token, id, ok, tc.id)
		}
	}
}
