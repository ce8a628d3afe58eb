package tokenizer

// This file answers: how is text emitted while ids arrive one at a time?

// Stream decodes ids incrementally. Each Add returns the text that is final
// so far; it never returns part of a UTF-8 sequence (bytes that may still
// become a character are held back). For any ids, the concatenation of the
// Add results and of Flush equals Decode(ids, skipSpecial). A Stream is not
// safe for concurrent use.
type Stream struct {
	t       *Tokenizer
	skip    bool
	pending []byte // a lone ByteLevel decoder: bytes of an unfinished character
	started bool   // no decoder: a token was emitted
	out     []byte
	stages  []stage  // any other decoder
	a, b    []string // scratch lists of the stages
}

// NewStream returns an incremental decoder.
func (t *Tokenizer) NewStream(skipSpecial bool) *Stream {
	s := &Stream{t: t, skip: skipSpecial}
	if t.dec != nil {
		s.stages = t.dec.newStages()
	}
	return s
}

// Add decodes one more id and returns the text that became final.
func (s *Stream) Add(id uint32) string {
	t := s.t
	if !t.keep(id, s.skip) {
		return ""
	}
	if s.stages != nil {
		s.out = runStages(s.out[:0], s.stages, t.byID[id], false, &s.a, &s.b)
		return string(s.out)
	}
	if !t.byteLevel {
		sep := ""
		if s.started {
			sep = " "
		}
		s.started = true
		return sep + t.byID[id]
	}
	s.pending = append(s.pending, t.decBytes[t.decOff[id]:t.decOff[id+1]]...)
	var pend int
	s.out, pend = appendLossy(s.out[:0], s.pending, false)
	n := copy(s.pending, s.pending[len(s.pending)-pend:])
	s.pending = s.pending[:n]
	return string(s.out)
}

// Flush returns the text of the bytes still held back (one U+FFFD for an
// unfinished UTF-8 sequence) and empties the stream's buffer. Adding more
// ids after Flush continues as a new text would.
func (s *Stream) Flush() string {
	if s.stages != nil {
		s.out = runStages(s.out[:0], s.stages, "", true, &s.a, &s.b)
		return string(s.out)
	}
	if len(s.pending) == 0 {
		return ""
	}
	out, _ := appendLossy(nil, s.pending, true)
	s.pending = s.pending[:0]
	return string(out)
}

// Pending reports whether text is held back.
func (s *Stream) Pending() bool {
	for _, st := range s.stages {
		if st.holding() {
			return true
		}
	}
	return len(s.pending) > 0
}
