package tokenizer

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
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
	size := fileSize(f)
	if strings.HasSuffix(path, ".gz") {
		size = gzipSize(f, size)
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
		}
		r = zr
	}
	// Read into one buffer of the expected size: a large tokenizer.json
	// (tens of MB) read by doubling allocates twice its size and copies it
	// several times, and on a machine where fresh pages are dear that
	// shows in the load time. The size is only a hint; any length reads.
	var buf bytes.Buffer
	buf.Grow(int(min(max(size, 0), maxFileBytes)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(r, maxFileBytes+1)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if buf.Len() > maxFileBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, maxFileBytes)
	}
	return buf.Bytes(), nil
}

// fileSize is f's size, or 0 when it is unknown.
func fileSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// gzipSize is the uncompressed size a gzip file of size bytes declares in
// its last member's trailer (modulo 2^32), at most what deflate can expand
// size bytes to (1032:1), or 0; f's offset is left at 0.
func gzipSize(f *os.File, size int64) int64 {
	var tail [4]byte
	if size < 18 { // a header and a trailer at the least
		return 0
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return 0
	}
	return min(int64(binary.LittleEndian.Uint32(tail[:])), 1032*size)
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
