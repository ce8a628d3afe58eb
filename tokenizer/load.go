package tokenizer

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// This file answers: how is a tokenizer.json read?

// Options tune a Tokenizer. The zero value means the defaults.
type Options struct {
	// CacheEntries bounds the word cache (about that many words); 0 means
	// 65536, a negative value disables the cache.
	CacheEntries int
}

// maxFileBytes bounds a tokenizer.json (after decompression).
const maxFileBytes = 256 << 20

// maxID bounds token ids, so that id-indexed tables stay small.
const maxID = 1 << 24

type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
	Model         modelJSON        `json:"model"`
}

type addedTokenJSON struct {
	ID         uint32 `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type modelJSON struct {
	Type                    string            `json:"type"`
	Dropout                 *float64          `json:"dropout"`
	UnkToken                *string           `json:"unk_token"`
	ContinuingSubwordPrefix *string           `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string           `json:"end_of_word_suffix"`
	FuseUnk                 bool              `json:"fuse_unk"`
	ByteFallback            bool              `json:"byte_fallback"`
	IgnoreMerges            bool              `json:"ignore_merges"`
	Vocab                   map[string]uint32 `json:"vocab"`
	Merges                  json.RawMessage   `json:"merges"`
}

// Load reads a tokenizer.json (or gzip-compressed tokenizer.json.gz) file,
// or the tokenizer.json (or tokenizer.json.gz) of a directory, with default
// options.
func Load(path string) (*Tokenizer, error) { return LoadWithOptions(path, Options{}) }

// LoadWithOptions is Load with options.
func LoadWithOptions(path string, opts Options) (*Tokenizer, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		dir := path
		path = filepath.Join(dir, "tokenizer.json")
		if _, err := os.Stat(path); err != nil {
			if _, gzErr := os.Stat(path + ".gz"); gzErr == nil {
				path += ".gz"
			}
		}
	}
	data, err := readMaybeGzip(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: load %s: %w", path, err)
	}
	return New(data, opts)
}

func readMaybeGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
		}
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, maxFileBytes)
	}
	return data, nil
}

// FromJSON builds a Tokenizer from the contents of a tokenizer.json with
// default options.
func FromJSON(data []byte) (*Tokenizer, error) { return New(data, Options{}) }

// parseMerges reads merges as ["a b", ...] or [["a", "b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	raw = bytes.TrimSpace(raw)
	var strs []string
	if err := json.Unmarshal(raw, &strs); err == nil {
		out := make([][2]string, len(strs))
		for i, s := range strs {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("merge %d %q: %w: no space", i, s, ErrBadInput)
			}
			out[i] = [2]string{a, b}
		}
		return out, nil
	}
	var pairs [][]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("merges: %w: %v", ErrBadInput, err)
	}
	out := make([][2]string, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("merge %d: %w: %d parts", i, ErrBadInput, len(p))
		}
		out[i] = [2]string{p[0], p[1]}
	}
	return out, nil
}
