package tokenizer

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file answers: how is a 10 MB tokenizer.json read in a fraction of
// the time encoding/json takes? The vocabulary and the merges — nearly all of
// the file — are read by a small scanner; every other part goes through
// encoding/json. Any surprise makes the caller fall back to encoding/json
// for the whole file, so the result never depends on which path ran.

var errFast = errors.New("fast path declined")

type jscan struct {
	b []byte
	i int
}

func (s *jscan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// consume skips white space and then c.
func (s *jscan) consume(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *jscan) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// str reads a string. Strings with escapes are unquoted by encoding/json.
func (s *jscan) str() (string, error) {
	if !s.consume('"') {
		return "", errFast
	}
	start := s.i
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !escaped {
				if !utf8.Valid(raw) {
					return "", errFast
				}
				return string(raw), nil
			}
			var out string
			if err := json.Unmarshal(s.b[start-1:s.i], &out); err != nil {
				return "", errFast
			}
			return out, nil
		case c == '\\':
			escaped = true
			s.i += 2
		case c < 0x20:
			return "", errFast
		default:
			s.i++
		}
	}
	return "", errFast
}

// uint reads a non-negative integer.
func (s *jscan) uint() (uint32, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	v, err := strconv.ParseUint(string(s.b[start:s.i]), 10, 32)
	// JSON has no leading zeros ("00", "012"): leave those to encoding/json,
	// which refuses them.
	leadingZero := s.i-start > 1 && s.b[start] == '0'
	if err != nil || leadingZero || (s.i < len(s.b) && strings.IndexByte(".eE", s.b[s.i]) >= 0) {
		return 0, errFast
	}
	return uint32(v), nil
}

// raw returns the bytes of the next value, checked by encoding/json.
func (s *jscan) raw() (json.RawMessage, error) {
	s.ws()
	start := s.i
	depth := 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch c {
		case '"':
			if _, err := s.str(); err != nil {
				return nil, err
			}
			if depth == 0 {
				return s.checked(start)
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of the enclosing container
				return s.checked(start)
			}
			depth--
			if depth == 0 {
				s.i++
				return s.checked(start)
			}
		case ',', ':':
			if depth == 0 {
				return s.checked(start)
			}
		}
		s.i++
	}
	if depth == 0 && s.i > start {
		return s.checked(start)
	}
	return nil, errFast
}

func (s *jscan) checked(start int) (json.RawMessage, error) {
	r := json.RawMessage(strings.TrimSpace(string(s.b[start:s.i])))
	if !json.Valid(r) {
		return nil, errFast
	}
	return r, nil
}

// object calls f for each key of an object; f must read the value.
func (s *jscan) object(f func(key string) error) error {
	if !s.consume('{') {
		return errFast
	}
	if s.consume('}') {
		return nil
	}
	for {
		k, err := s.str()
		if err != nil {
			return err
		}
		if !s.consume(':') {
			return errFast
		}
		if err := f(k); err != nil {
			return err
		}
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			return nil
		}
		return errFast
	}
}

// array calls f for each element of an array; f must read the element.
func (s *jscan) array(f func() error) error {
	if !s.consume('[') {
		return errFast
	}
	if s.consume(']') {
		return nil
	}
	for {
		if err := f(); err != nil {
			return err
		}
		if s.consume(',') {
			continue
		}
		if s.consume(']') {
			return nil
		}
		return errFast
	}
}

// parseFast reads a tokenizer.json; any error means "use encoding/json".
func parseFast(data []byte) (*fileJSON, [][2]string, error) {
	s := &jscan{b: data}
	f := &fileJSON{}
	var merges [][2]string
	seen := map[string]bool{}
	err := s.object(func(key string) error {
		if seen[key] {
			return errFast // duplicate keys: leave them to encoding/json
		}
		seen[key] = true
		var dst *json.RawMessage
		switch key {
		case "model":
			var err error
			merges, err = parseModelFast(s, &f.Model)
			return err
		case "added_tokens":
			r, err := s.raw()
			if err != nil {
				return err
			}
			return json.Unmarshal(r, &f.AddedTokens)
		case "normalizer":
			dst = &f.Normalizer
		case "pre_tokenizer":
			dst = &f.PreTokenizer
		case "post_processor":
			dst = &f.PostProcessor
		case "decoder":
			dst = &f.Decoder
		default:
			if !isLowerKey(key) {
				return errFast // encoding/json matches keys case-insensitively
			}
		}
		r, err := s.raw()
		if dst != nil {
			*dst = r
		}
		return err
	})
	if err != nil {
		return nil, nil, errFast
	}
	s.ws()
	if s.i != len(s.b) {
		return nil, nil, errFast
	}
	return f, merges, nil
}

func parseModelFast(s *jscan, m *modelJSON) ([][2]string, error) {
	var merges [][2]string
	err := s.object(func(key string) error {
		switch key {
		case "vocab":
			if s.peek() != '{' {
				return errFast
			}
			m.Vocab = make(map[string]uint32, 1<<17)
			return s.object(func(tok string) error {
				id, err := s.uint()
				m.Vocab[tok] = id
				return err
			})
		case "merges":
			var err error
			merges, err = mergesFast(s)
			return err
		}
		if !isLowerKey(key) {
			return errFast
		}
		r, err := s.raw()
		if err != nil {
			return err
		}
		// Decode the small fields with encoding/json, one at a time.
		doc := append(append(append([]byte(`{"`), key...), `":`...), r...)
		doc = append(doc, '}')
		return json.Unmarshal(doc, m)
	})
	if err != nil {
		return nil, errFast
	}
	if merges == nil {
		merges = [][2]string{}
	}
	return merges, nil
}

// mergesFast reads a model's merges array; every merge must have the first
// one's form, "a b" or ["a", "b"].
func mergesFast(s *jscan) ([][2]string, error) {
	if s.peek() != '[' {
		return nil, errFast
	}
	merges := make([][2]string, 0, 1<<17)
	var kind byte
	err := s.array(func() error {
		if len(merges) == cap(merges) {
			// Double: append grows a large slice by a quarter at a time,
			// which for half a million merges allocates and copies four
			// times the final slice.
			merges = append(make([][2]string, 0, 2*cap(merges)), merges...)
		}
		c := s.peek()
		if kind == 0 {
			kind = c
		} else if c != kind {
			return errFast
		}
		p, err := mergeFast(s, c)
		if err == nil {
			merges = append(merges, p)
		}
		return err
	})
	return merges, err
}

// mergeFast reads one merge whose first byte is c.
func mergeFast(s *jscan, c byte) ([2]string, error) {
	var p [2]string
	switch c {
	case '"':
		line, err := s.str()
		if err != nil {
			return p, err
		}
		a, b, ok := strings.Cut(line, " ")
		if !ok {
			return p, errFast
		}
		return [2]string{a, b}, nil
	case '[':
		n := 0
		err := s.array(func() error {
			if n == 2 {
				return errFast
			}
			var err error
			p[n], err = s.str()
			n++
			return err
		})
		if err != nil || n != 2 {
			return p, errFast
		}
		return p, nil
	}
	return p, errFast
}

// isLowerKey reports whether key is plain lower-case ASCII with underscores
// (so that encoding/json's case-insensitive matching cannot surprise).
func isLowerKey(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
