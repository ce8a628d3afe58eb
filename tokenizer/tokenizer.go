package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// This file answers: what is a Tokenizer, how is it built, and how does text
// become ids?

// Tokenizer encodes and decodes with one tokenizer.json. It is safe for
// concurrent use.
type Tokenizer struct {
	model     *bpeModel
	addedRaw  *matcher // added tokens with normalized=false, matched on raw text
	addedNorm *matcher // added tokens with normalized=true, matched after normalization
	norm      normalizer
	pre       preTokenizer
	fast      *wordScanner // the whole pre-tokenizer, when it is a scanner split then bytes
	post      postProcessor

	added      map[string]uint32 // added token content → id
	byID       []string          // token text by id ("" and !has[id] for holes)
	has        []bool
	special    []bool // skipped by skip_special_tokens
	vocabSize  int
	byteLevel  bool     // decoder is a lone ByteLevel, run on decBytes
	dec        *decoder // any other decoder (neither: tokens joined by a space)
	decOff     []int    // byteLevel: decoded bytes of id i are decBytes[decOff[i]:decOff[i+1]]
	decBytes   []byte   //
	specialIDs []uint32
}

// New builds a Tokenizer from the contents of a tokenizer.json.
func New(data []byte, opts Options) (*Tokenizer, error) {
	f, merges, err := parseFast(data)
	if err != nil {
		// The slow path reads everything with encoding/json and reports
		// errors precisely.
		f = &fileJSON{}
		if err := json.Unmarshal(data, f); err != nil {
			return nil, fmt.Errorf("tokenizer: %w: %v", ErrBadInput, err)
		}
		if merges, err = parseMerges(f.Model.Merges); err != nil {
			return nil, fmt.Errorf("tokenizer: model: %w", err)
		}
	}
	t, err := build(f, merges, opts)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return t, nil
}

func build(f *fileJSON, merges [][2]string, opts Options) (*Tokenizer, error) {
	if f.Model.Type != "" && f.Model.Type != "BPE" {
		return nil, fmt.Errorf("model %q: %w", f.Model.Type, ErrUnsupported)
	}
	if f.Model.Vocab == nil {
		return nil, fmt.Errorf("model: %w: no vocab", ErrBadInput)
	}
	if f.Model.Dropout != nil && *f.Model.Dropout != 0 {
		return nil, fmt.Errorf("model: %w: dropout %v makes encoding random", ErrUnsupported, *f.Model.Dropout)
	}
	t := &Tokenizer{added: map[string]uint32{}}
	var err error
	if t.norm, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	var byteLevel bool
	if t.pre, byteLevel, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	t.fast = fastScanner(t.pre)
	if t.post, err = parsePostProcessor(f.PostProcessor); err != nil {
		return nil, err
	}
	if t.byteLevel, t.dec, err = parseDecoder(f.Decoder); err != nil {
		return nil, err
	}
	cache := opts.CacheEntries
	if t.model, err = newBPE(f.Model.Vocab, merges, f.Model, byteLevel, cache); err != nil {
		return nil, err
	}

	if err := t.addTokens(f); err != nil {
		return nil, err
	}
	if t.byteLevel {
		t.decOff, t.decBytes = byteLevelBytes(t.byID, t.has, t.model.table)
	}
	return t, nil
}

// addedSet is the added tokens of a file with their ids.
type addedSet struct {
	byID    map[uint32]*addedToken
	order   []uint32 // ids, each once, in the file's order
	special map[string]bool
	n       int // one more than the largest id, the model's included
}

// assignAdded gives the added tokens their ids, as tokenizers does when it
// reads the file: an added token whose text is already known keeps that
// id, and a new one gets the next id after the model's vocabulary (the
// "id" written in the file is not used). A later entry with the same text
// replaces the earlier one's flags. added receives content → id.
func assignAdded(f *fileJSON, added map[string]uint32) (*addedSet, error) {
	s := &addedSet{byID: map[uint32]*addedToken{}, special: map[string]bool{}}
	for tok, id := range f.Model.Vocab {
		if id >= maxID {
			return nil, fmt.Errorf("model: %w: token %q has id %d", ErrTooLarge, tok, id)
		}
		s.n = max(s.n, int(id)+1)
	}
	nextID := uint32(len(f.Model.Vocab))
	for _, a := range f.AddedTokens {
		if a.Content == "" {
			continue
		}
		at := &addedToken{content: a.Content, singleWord: a.SingleWord, lstrip: a.LStrip,
			rstrip: a.RStrip, normalized: a.Normalized, special: a.Special}
		if id, ok := added[a.Content]; ok {
			at.id = id
		} else if id, ok := f.Model.Vocab[a.Content]; ok {
			at.id = id
		} else {
			at.id = nextID
			nextID++
		}
		if at.id >= maxID {
			return nil, fmt.Errorf("added token %q: %w: id %d", a.Content, ErrTooLarge, at.id)
		}
		s.n = max(s.n, int(at.id)+1)
		added[a.Content] = at.id
		if _, seen := s.byID[at.id]; !seen {
			s.order = append(s.order, at.id)
		}
		s.byID[at.id] = at
		if at.special {
			s.special[at.content] = true
		}
	}
	return s, nil
}

// addTokens fills the id tables (the model's ids, then the added tokens')
// and the added-token matchers.
func (t *Tokenizer) addTokens(f *fileJSON) error {
	s, err := assignAdded(f, t.added)
	if err != nil {
		return err
	}
	var raw, norm []*addedToken
	for _, id := range s.order {
		if at := s.byID[id]; at.normalized {
			norm = append(norm, at)
		} else {
			raw = append(raw, at)
		}
	}
	t.byID = make([]string, s.n)
	t.has = make([]bool, s.n)
	t.special = make([]bool, s.n)
	for tok, id := range f.Model.Vocab {
		t.byID[id], t.has[id] = tok, true
	}
	// An added token decodes as its text, or as its normalized text when it
	// is matched after normalization; skip_special_tokens compares that text
	// with the special tokens' texts (tokenizers' simple_id_to_token and
	// is_special_token).
	for _, id := range s.order {
		at := s.byID[id]
		text := at.content
		if at.normalized && t.norm != nil {
			text = t.norm.normalize(text)
		}
		t.byID[id], t.has[id] = text, true
	}
	for id := range t.byID {
		if t.has[id] {
			t.vocabSize++
			if s.special[t.byID[id]] {
				t.special[id] = true
				t.specialIDs = append(t.specialIDs, uint32(id))
			}
		}
	}
	t.addedRaw = newMatcher(contents(raw, nil), raw)
	t.addedNorm = newMatcher(contents(norm, t.norm), norm)
	return nil
}

// byteLevelBytes returns the decoded bytes of every id of a lone ByteLevel
// decoder: those of id i are bytes[off[i]:off[i+1]].
func byteLevelBytes(byID []string, has []bool, table *byteLevelTable) (off []int, bytes []byte) {
	off = make([]int, len(byID)+1)
	for id := range byID {
		off[id] = len(bytes)
		if has[id] {
			bytes = append(bytes, table.decodeToken(byID[id])...)
		}
	}
	off[len(byID)] = len(bytes)
	return off, bytes
}

// contents returns the texts to match for the added tokens, normalized by n
// when n is not nil (tokenizers matches normalized tokens by their
// normalized text).
func contents(toks []*addedToken, n normalizer) []string {
	out := make([]string, len(toks))
	for i, a := range toks {
		out[i] = a.content
		if n != nil {
			out[i] = n.normalize(a.content)
		}
	}
	return out
}

// fastScanner returns the scanner when the pre-tokenizer is exactly a
// Split with a hand-written pattern (Isolated, not inverted), optionally
// followed by a ByteLevel step that adds nothing.
func fastScanner(p preTokenizer) *wordScanner {
	var first preTokenizer
	switch q := p.(type) {
	case *splitPre:
		first = q
	case preSequence:
		if len(q) == 0 || len(q) > 2 {
			return nil
		}
		if len(q) == 2 {
			bl, ok := q[1].(*byteLevelPre)
			if !ok || bl.addPrefixSpace || bl.re != nil {
				return nil
			}
		}
		first = q[0]
	}
	sp, ok := first.(*splitPre)
	if !ok || sp.scanner == nil || sp.behavior != behIsolated || sp.invert {
		return nil
	}
	return sp.scanner
}

// EncodeOptions modify Encode. The zero value is tokenizers' default.
type EncodeOptions struct {
	// NoSpecialTokens skips the post-processor (tokenizers'
	// add_special_tokens=false). Added tokens in the text are still found.
	NoSpecialTokens bool
}

// Encode returns the ids of text, with the ids the post-processor adds (none
// for Qwen tokenizers), as tokenizers' encode(text).ids does. It never
// returns nil.
func (t *Tokenizer) Encode(text string) []uint32 {
	return t.EncodeWith(text, EncodeOptions{})
}

// EncodeWith is Encode with options.
func (t *Tokenizer) EncodeWith(text string, o EncodeOptions) []uint32 {
	ids := t.AppendEncode(make([]uint32, 0, len(text)/3+1), text)
	if !o.NoSpecialTokens && t.post != nil {
		ids = t.post.process(ids)
	}
	return ids
}

// AppendEncode appends the ids of text to dst, without post-processing.
func (t *Tokenizer) AppendEncode(dst []uint32, text string) []uint32 {
	text = lossyString(text)
	var buf [16]segment
	for i, sg := range t.addedRaw.split(buf[:0], text) {
		if sg.tok != nil {
			dst = append(dst, sg.tok.id)
			continue
		}
		s := sg.text
		if s == "" {
			continue
		}
		if t.norm != nil {
			s = t.norm.normalize(s)
		}
		// Only the first piece can begin where the text begins.
		if t.addedNorm.empty() {
			dst = t.words(dst, s, i == 0)
			continue
		}
		var buf2 [16]segment
		for j, sg2 := range t.addedNorm.split(buf2[:0], s) {
			if sg2.tok != nil {
				dst = append(dst, sg2.tok.id)
			} else {
				dst = t.words(dst, sg2.text, i == 0 && j == 0)
			}
		}
	}
	return dst
}

// words pre-tokenizes one normalized piece and runs the model on each word;
// atStart reports whether the piece begins where the input text begins.
func (t *Tokenizer) words(dst []uint32, s string, atStart bool) []uint32 {
	if s == "" {
		return dst
	}
	switch {
	case t.fast != nil:
		for i := 0; i < len(s); {
			j := t.fast.next(s, i)
			dst = t.model.encodeWord(dst, s[i:j])
			i = j
		}
	case t.pre != nil:
		for _, w := range t.pre.split(make([]piece, 0, 8), piece{s, atStart}) {
			dst = t.model.encodeWord(dst, w.text)
		}
	default:
		dst = t.model.encodeWord(dst, s)
	}
	return dst
}

// Decode returns the text of ids as tokenizers' decode(ids,
// skip_special_tokens) does: unknown ids are skipped, and so are special
// added tokens when skipSpecial is set.
func (t *Tokenizer) Decode(ids []uint32, skipSpecial bool) string {
	if !t.byteLevel {
		parts := make([]string, 0, len(ids))
		for _, id := range ids {
			if t.keep(id, skipSpecial) {
				parts = append(parts, t.byID[id])
			}
		}
		if t.dec != nil {
			return t.dec.decode(parts)
		}
		return strings.Join(parts, " ")
	}
	buf := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		if t.keep(id, skipSpecial) {
			buf = append(buf, t.decBytes[t.decOff[id]:t.decOff[id+1]]...)
		}
	}
	out, _ := appendLossy(make([]byte, 0, len(buf)+8), buf, true)
	return string(out)
}

func (t *Tokenizer) keep(id uint32, skipSpecial bool) bool {
	return int64(id) < int64(len(t.has)) && t.has[id] && !(skipSpecial && t.special[id])
}

// TokenID returns the id of a token's text (an added token's content, or a
// vocabulary entry in its byte-level form, e.g. "Ġthe").
func (t *Tokenizer) TokenID(tok string) (uint32, bool) {
	if id, ok := t.added[tok]; ok {
		return id, true
	}
	id, ok := t.model.vocab[tok]
	return id, ok
}

// IDToken returns the text of a token id as stored in the vocabulary.
func (t *Tokenizer) IDToken(id uint32) (string, bool) {
	if int64(id) >= int64(len(t.has)) || !t.has[id] {
		return "", false
	}
	return t.byID[id], true
}

// IsSpecial reports whether id is an added token marked special (the tokens
// skip_special_tokens removes).
func (t *Tokenizer) IsSpecial(id uint32) bool {
	return int64(id) < int64(len(t.special)) && t.special[id]
}

// SpecialIDs returns the ids of the special added tokens, in increasing order.
func (t *Tokenizer) SpecialIDs() []uint32 { return append([]uint32(nil), t.specialIDs...) }

// VocabSize returns the number of distinct ids, added tokens included
// (tokenizers' get_vocab_size(with_added_tokens=true)).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// MaxID returns one more than the largest id.
func (t *Tokenizer) MaxID() int { return len(t.has) }
