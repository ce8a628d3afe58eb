package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file answers: how do tokens become text? As tokenizers' decoders do:
// each step of the chain turns the list of token strings into another list
// (decode_chain), and the text is the concatenation of the last list. These
// functions are the reference form; decstream.go runs the same steps
// incrementally.

// decodeStep is one decoder of a chain.
type decodeStep interface {
	// chain is tokenizers' decode_chain.
	chain(toks []string) []string
	// stage returns a new incremental form of the step. fused tells that
	// the step sees one growing text (an earlier step was Fuse or
	// ByteLevel); a step that cannot run incrementally there fails.
	stage(fused bool) (stage, error)
	// fuses reports whether the step's output is a single token.
	fuses() bool
}

// decoder is a decoder chain other than a lone ByteLevel (which Tokenizer
// runs on precomputed bytes).
type decoder struct {
	steps []decodeStep
}

// decode is tokenizers' Decoder::decode.
func (d *decoder) decode(toks []string) string {
	for _, s := range d.steps {
		toks = s.chain(toks)
	}
	return strings.Join(toks, "")
}

// newStages returns the incremental form of the chain; the chain was
// checked at load, so it cannot fail here.
func (d *decoder) newStages() []stage {
	out := make([]stage, len(d.steps))
	fused := false
	for i, s := range d.steps {
		out[i], _ = s.stage(fused)
		fused = fused || s.fuses()
	}
	return out
}

// parseDecoder reads the decoder: a lone ByteLevel gives byteLevel, any
// other supported chain a decoder, null neither (tokens are then joined by
// a space, as tokenizers does).
func parseDecoder(raw json.RawMessage) (byteLevel bool, d *decoder, err error) {
	if isNull(raw) {
		return false, nil, nil
	}
	steps, err := parseDecodeSteps(raw, nil)
	if err != nil {
		return false, nil, err
	}
	if len(steps) == 1 {
		if _, ok := steps[0].(*byteLevelStep); ok && !isSequence(raw) {
			return true, nil, nil
		}
	}
	d = &decoder{steps: steps}
	fused := false
	for _, s := range steps {
		if _, err := s.stage(fused); err != nil {
			return false, nil, err
		}
		fused = fused || s.fuses()
	}
	return false, d, nil
}

func isSequence(raw json.RawMessage) bool {
	var h struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &h) == nil && h.Type == "Sequence"
}

// parseDecodeSteps appends the steps of one decoder to dst, flattening
// sequences (a Sequence runs its decoders one after the other, so nesting
// changes nothing).
func parseDecodeSteps(raw json.RawMessage, dst []decodeStep) ([]decodeStep, error) {
	var h struct {
		Type     string            `json:"type"`
		Decoders []json.RawMessage `json:"decoders"`
		Pattern  json.RawMessage   `json:"pattern"`
		Content  *string           `json:"content"`
		Start    *uint32           `json:"start"`
		Stop     *uint32           `json:"stop"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("decoder: %w: %v", ErrBadInput, err)
	}
	switch h.Type {
	case "Sequence":
		if h.Decoders == nil {
			return nil, fmt.Errorf("decoder Sequence: %w: no decoders", ErrBadInput)
		}
		for _, r := range h.Decoders {
			var err error
			if dst, err = parseDecodeSteps(r, dst); err != nil {
				return nil, err
			}
		}
		return dst, nil
	case "ByteLevel":
		if err := checkByteLevel(raw); err != nil {
			return nil, fmt.Errorf("decoder %w", err)
		}
		return append(dst, &byteLevelStep{table: newByteLevelTable()}), nil
	case "ByteFallback":
		return append(dst, byteFallbackStep{}), nil
	case "Fuse":
		return append(dst, fuseStep{}), nil
	case "Replace":
		if h.Content == nil {
			return nil, fmt.Errorf("decoder Replace: %w: no content", ErrBadInput)
		}
		lit, re, err := parsePattern(h.Pattern)
		if err != nil {
			return nil, fmt.Errorf("decoder Replace: %w", err)
		}
		if re == nil && lit == "" {
			return nil, fmt.Errorf("decoder Replace: %w: empty pattern", ErrUnsupported)
		}
		return append(dst, replaceStep{replace{literal: lit, re: re, content: *h.Content}}), nil
	case "Strip":
		if h.Content == nil || utf8.RuneCountInString(*h.Content) != 1 || h.Start == nil || h.Stop == nil {
			return nil, fmt.Errorf("decoder Strip: %w: needs one content character, start and stop", ErrBadInput)
		}
		r, _ := utf8.DecodeRuneInString(*h.Content)
		return append(dst, stripStep{content: r, start: int(*h.Start), stop: int(*h.Stop)}), nil
	case "Metaspace":
		m, err := parseMetaspace(raw)
		if err != nil {
			return nil, fmt.Errorf("decoder %w", err)
		}
		return append(dst, m), nil
	}
	return nil, fmt.Errorf("decoder %q: %w", h.Type, ErrUnsupported)
}

// byteLevelStep maps each token's characters back to bytes (a token with a
// character outside the table stands for its own UTF-8), joins them and
// makes the bytes text as String::from_utf8_lossy does.
type byteLevelStep struct{ table *byteLevelTable }

func (s *byteLevelStep) chain(toks []string) []string {
	var b []byte
	for _, t := range toks {
		b = append(b, s.table.decodeToken(t)...)
	}
	out, _ := appendLossy(nil, b, true)
	return []string{string(out)}
}

func (*byteLevelStep) fuses() bool { return true }

// byteToken reads a byte-fallback token as tokenizers' ByteFallback
// decoder does: six bytes "<0x", two hexadecimal digits (Rust's
// u8::from_str_radix, so a leading '+' counts as a sign), ">".
func byteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(t[3:5], "+"), 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

// byteFallbackStep turns each run of byte tokens into its text when the
// bytes are UTF-8, and into one U+FFFD per byte when they are not.
type byteFallbackStep struct{}

func (byteFallbackStep) chain(toks []string) []string {
	out := make([]string, 0, len(toks))
	var run []byte
	for _, t := range toks {
		if b, ok := byteToken(t); ok {
			run = append(run, b)
			continue
		}
		out = appendByteRun(out, run)
		run = run[:0]
		out = append(out, t)
	}
	return appendByteRun(out, run)
}

func (byteFallbackStep) fuses() bool { return false }

// appendByteRun appends the tokens one run of bytes becomes.
func appendByteRun(out []string, run []byte) []string {
	if len(run) == 0 {
		return out
	}
	if utf8.Valid(run) {
		return append(out, string(run))
	}
	for range run {
		out = append(out, replacement)
	}
	return out
}

// fuseStep joins every token into one.
type fuseStep struct{}

func (fuseStep) chain(toks []string) []string { return []string{strings.Join(toks, "")} }
func (fuseStep) fuses() bool                  { return true }

// replaceStep replaces the pattern in each token.
type replaceStep struct{ r replace }

func (s replaceStep) chain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = s.r.normalize(t)
	}
	return out
}

func (replaceStep) fuses() bool { return false }

// stripStep removes up to start leading and stop trailing content
// characters from each token.
type stripStep struct {
	content     rune
	start, stop int
}

func (s stripStep) chain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = s.strip(t)
	}
	return out
}

// strip is tokenizers' Strip on one token. Where the two cuts cross (Rust
// panics there) the token becomes empty.
func (s stripStep) strip(t string) string {
	chars := []rune(t)
	startCut := 0
	for i := 0; i < s.start && i < len(chars) && chars[i] == s.content; i++ {
		startCut = i + 1
	}
	stopCut := len(chars)
	for i := 0; i < s.stop && i < len(chars) && chars[len(chars)-1-i] == s.content; i++ {
		stopCut = len(chars) - 1 - i
	}
	if startCut >= stopCut {
		return ""
	}
	return string(chars[startCut:stopCut])
}

func (stripStep) fuses() bool { return false }

// chain is the Metaspace decoder: the replacement becomes a space, except
// in the first token, where it is dropped (every one of them, not only a
// leading one) unless the scheme is "never".
func (m *metaspace) chain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = m.decodeToken(t, i == 0)
	}
	return out
}

func (m *metaspace) decodeToken(t string, first bool) string {
	if !strings.ContainsRune(t, m.repl) {
		return t
	}
	with := " "
	if first && m.scheme != prependNever {
		with = ""
	}
	return strings.ReplaceAll(t, m.str, with)
}

func (*metaspace) fuses() bool { return false }
