package tokenizer

import (
	"fmt"
	"strings"
)

// This file answers: how does a decoder chain run while ids arrive one at a
// time, giving exactly the text it gives on all the ids at once? Each step
// becomes a stage that passes on only what no later token can change and
// holds the rest. Before a fusing step (Fuse, ByteLevel) a stage sees whole
// tokens and emits whole tokens; after it, the stages see pieces of the one
// fused token as they grow.

// stage is the incremental form of a decode step.
type stage interface {
	// push takes the next token (or piece of the fused token) and appends
	// what became final to out.
	push(out []string, in string) []string
	// end appends what is still held at the end of the ids and starts over.
	end(out []string) []string
	// holding reports whether anything is held.
	holding() bool
}

// tokenMap is a stage that maps each token alone.
type tokenMap func(string) string

func (f tokenMap) push(out []string, in string) []string { return append(out, f(in)) }
func (tokenMap) end(out []string) []string               { return out }
func (tokenMap) holding() bool                           { return false }

func (s replaceStep) stage(fused bool) (stage, error) {
	if !fused {
		return tokenMap(s.r.normalize), nil
	}
	if s.r.re != nil {
		return nil, fmt.Errorf("decoder: %w: a Replace with a regex after Fuse or ByteLevel", ErrUnsupported)
	}
	return &replaceChunks{pat: s.r.literal, content: s.r.content}, nil
}

func (s stripStep) stage(fused bool) (stage, error) {
	if !fused {
		return tokenMap(s.strip), nil
	}
	return &stripChunks{s: s, lead: true}, nil
}

func (fuseStep) stage(bool) (stage, error) { return tokenMap(func(s string) string { return s }), nil }

func (byteFallbackStep) stage(fused bool) (stage, error) {
	if fused {
		return nil, fmt.Errorf("decoder: %w: ByteFallback after Fuse or ByteLevel", ErrUnsupported)
	}
	return &byteRuns{}, nil
}

func (s *byteLevelStep) stage(fused bool) (stage, error) {
	if fused {
		return nil, fmt.Errorf("decoder: %w: ByteLevel after Fuse or ByteLevel", ErrUnsupported)
	}
	return &byteLevelChunks{table: s.table}, nil
}

func (m *metaspace) stage(fused bool) (stage, error) {
	return &metaspaceTokens{m: m, first: true, fused: fused}, nil
}

// byteRuns is ByteFallback: a run of byte tokens is held until a token
// that is not a byte ends it, because one bad byte anywhere in the run
// turns every byte of it into U+FFFD.
type byteRuns struct{ run []byte }

func (s *byteRuns) push(out []string, in string) []string {
	if b, ok := byteToken(in); ok {
		s.run = append(s.run, b)
		return out
	}
	out = appendByteRun(out, s.run)
	s.run = s.run[:0]
	return append(out, in)
}

func (s *byteRuns) end(out []string) []string {
	out = appendByteRun(out, s.run)
	s.run = s.run[:0]
	return out
}

func (s *byteRuns) holding() bool { return len(s.run) > 0 }

// byteLevelChunks is ByteLevel: the bytes of every token, as text, holding
// back a UTF-8 sequence that is not finished yet.
type byteLevelChunks struct {
	table   *byteLevelTable
	pending []byte
}

func (s *byteLevelChunks) push(out []string, in string) []string {
	s.pending = append(s.pending, s.table.decodeToken(in)...)
	text, pend := appendLossy(nil, s.pending, false)
	n := copy(s.pending, s.pending[len(s.pending)-pend:])
	s.pending = s.pending[:n]
	if len(text) == 0 {
		return out
	}
	return append(out, string(text))
}

func (s *byteLevelChunks) end(out []string) []string {
	text, _ := appendLossy(nil, s.pending, true)
	s.pending = s.pending[:0]
	return append(out, string(text))
}

func (s *byteLevelChunks) holding() bool { return len(s.pending) > 0 }

// metaspaceTokens is the Metaspace decoder. Before a fusing step the first
// token is the first one pushed; after it every piece belongs to the first
// (and only) token.
type metaspaceTokens struct {
	m     *metaspace
	first bool
	fused bool
}

func (s *metaspaceTokens) push(out []string, in string) []string {
	out = append(out, s.m.decodeToken(in, s.first))
	s.first = s.fused
	return out
}

func (s *metaspaceTokens) end(out []string) []string {
	s.first = true
	return out
}

func (*metaspaceTokens) holding() bool { return false }

// stripChunks is Strip on the fused text: the leading content characters
// are dropped as they come, the trailing ones are held (at most stop of
// them) until another character shows they were not trailing.
type stripChunks struct {
	s        stripStep
	lead     bool // nothing but stripped characters seen yet
	stripped int
	held     int
}

func (c *stripChunks) push(out []string, in string) []string {
	var b strings.Builder
	for _, r := range in {
		if c.lead {
			if r == c.s.content && c.stripped < c.s.start {
				c.stripped++
				continue
			}
			c.lead = false
		}
		if r == c.s.content && c.s.stop > 0 {
			if c.held < c.s.stop {
				c.held++
				continue
			}
			b.WriteRune(r) // the oldest held one is not trailing
			continue
		}
		for ; c.held > 0; c.held-- {
			b.WriteRune(c.s.content)
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return out
	}
	return append(out, b.String())
}

func (c *stripChunks) end(out []string) []string {
	*c = stripChunks{s: c.s, lead: true}
	return out
}

func (c *stripChunks) holding() bool { return c.held > 0 }

// replaceChunks is Replace with a literal pattern on the fused text: the
// tail that may still begin a match is held.
type replaceChunks struct {
	pat, content string
	held         string
}

func (c *replaceChunks) push(out []string, in string) []string {
	buf := c.held + in
	var b strings.Builder
	for {
		i := strings.Index(buf, c.pat)
		if i < 0 {
			break
		}
		b.WriteString(buf[:i])
		b.WriteString(c.content)
		buf = buf[i+len(c.pat):]
	}
	k := min(len(c.pat)-1, len(buf))
	for ; k > 0 && !strings.HasSuffix(buf, c.pat[:k]); k-- {
	}
	b.WriteString(buf[:len(buf)-k])
	c.held = buf[len(buf)-k:]
	if b.Len() == 0 {
		return out
	}
	return append(out, b.String())
}

func (c *replaceChunks) end(out []string) []string {
	if c.held != "" {
		out = append(out, c.held)
	}
	c.held = ""
	return out
}

func (c *replaceChunks) holding() bool { return c.held != "" }

// runStages pushes one token through the stages (or, with final, ends
// them) and appends the text that became final to dst. a and b are scratch
// lists.
func runStages(dst []byte, stages []stage, tok string, final bool, a, b *[]string) []byte {
	cur := (*a)[:0]
	if !final {
		cur = append(cur, tok)
	}
	next := (*b)[:0]
	for _, st := range stages {
		next = next[:0]
		for _, x := range cur {
			next = st.push(next, x)
		}
		if final {
			next = st.end(next)
		}
		cur, next = next, cur
	}
	for _, x := range cur {
		dst = append(dst, x...)
	}
	*a, *b = cur, next
	return dst
}
