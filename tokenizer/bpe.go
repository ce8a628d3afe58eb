package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

// This file answers: how does a word become ids? By tokenizers' BPE model:
// start from one symbol per character (per byte for a byte-level
// vocabulary), then apply the lowest-ranked merge (leftmost among equals)
// until none applies.

// mergeVal is what merging a pair of ids gives: the merge's rank and the new id.
type mergeVal struct {
	rank, id uint32
}

// bpeModel is an immutable BPE model plus its word cache.
type bpeModel struct {
	vocab  map[string]uint32
	merges *mergeTable

	byteLevel bool
	byteIDs   [256]uint32 // id of each byte's character (byte-level vocabularies)
	byteOK    [256]bool
	fastBytes bool // byte-level without prefix, suffix or ignore_merges: start from byteIDs

	prefix, suffix string
	unk            uint32
	hasUnk         bool
	fuseUnk        bool
	byteFallback   bool
	fallbackIDs    [256]uint32
	fallbackOK     [256]bool // the <0xXX> token exists
	ignoreMerges   bool

	table *byteLevelTable
	cache *wordCache
}

// encodeWord appends the ids of one word (raw bytes; mapped to characters
// first when the vocabulary is byte-level) to dst.
func (m *bpeModel) encodeWord(dst []uint32, w string) []uint32 {
	if w == "" {
		return dst
	}
	if m.fastBytes && len(w) == 1 && m.byteOK[w[0]] {
		return append(dst, m.byteIDs[w[0]])
	}
	if m.cache != nil && len(w) <= maxCachedWord {
		if ids, ok := m.cache.get(w); ok {
			return append(dst, ids...)
		}
	}
	start := len(dst)
	dst = m.encodeUncached(dst, w)
	if m.cache != nil && len(w) <= maxCachedWord {
		ids := make([]uint32, len(dst)-start)
		copy(ids, dst[start:])
		m.cache.put(w, ids)
	}
	return dst
}

func (m *bpeModel) encodeUncached(dst []uint32, w string) []uint32 {
	if m.fastBytes {
		var buf [longWord]uint32
		syms := buf[:0]
		if len(w) > len(buf) {
			syms = make([]uint32, 0, len(w))
		}
		ok := true
		for i := 0; i < len(w); i++ {
			if !m.byteOK[w[i]] {
				ok = false
				break
			}
			syms = append(syms, m.byteIDs[w[i]])
		}
		if ok {
			syms = m.merges.mergeAll(syms)
			return append(dst, syms...)
		}
	}
	if m.byteLevel {
		w = m.table.mapBytes(w)
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[w]; ok {
			return append(dst, id)
		}
	}
	syms := m.initialSymbols(w)
	syms = m.merges.mergeAll(syms)
	return append(dst, syms...)
}

// initialSymbols is tokenizers' BPE::merge_word before merging: one symbol
// per character, with the continuing-subword prefix on all but the first and
// the end-of-word suffix on the last; characters outside the vocabulary
// become byte tokens (byte_fallback) or the unknown token.
func (m *bpeModel) initialSymbols(w string) []uint32 {
	syms := make([]uint32, 0, len(w))
	var pendingUnk, havePending = uint32(0), false
	for i, r := range w {
		n := utf8.RuneLen(r)
		s := w[i : i+n]
		if i > 0 && m.prefix != "" {
			s = m.prefix + s
		}
		if i+n == len(w) && m.suffix != "" {
			s = s + m.suffix
		}
		if id, ok := m.vocab[s]; ok {
			if havePending {
				syms = append(syms, pendingUnk)
				havePending = false
			}
			syms = append(syms, id)
			continue
		}
		if m.byteFallback && m.hasFallback(s) {
			// A pending unknown token stays pending: tokenizers adds it
			// after these byte tokens.
			for j := 0; j < len(s); j++ {
				syms = append(syms, m.fallbackIDs[s[j]])
			}
			continue
		}
		if m.hasUnk {
			if havePending && !m.fuseUnk {
				syms = append(syms, pendingUnk)
			}
			pendingUnk, havePending = m.unk, true
		}
	}
	if havePending {
		syms = append(syms, pendingUnk)
	}
	return syms
}

// hasFallback reports whether every byte of s has its <0xXX> token.
func (m *bpeModel) hasFallback(s string) bool {
	for j := 0; j < len(s); j++ {
		if !m.fallbackOK[s[j]] {
			return false
		}
	}
	return true
}

// mapBytes returns the byte-level characters of w's bytes.
func (t *byteLevelTable) mapBytes(w string) string {
	b := make([]byte, 0, 2*len(w))
	for i := 0; i < len(w); i++ {
		b = utf8.AppendRune(b, t.char[w[i]])
	}
	return string(b)
}

// newBPE builds the model; merges are pairs of token strings in rank order.
func newBPE(vocab map[string]uint32, merges [][2]string, cfg modelJSON, byteLevel bool, cacheEntries int) (*bpeModel, error) {
	m := &bpeModel{
		vocab:        vocab,
		byteLevel:    byteLevel,
		byteFallback: cfg.ByteFallback,
		fuseUnk:      cfg.FuseUnk,
		ignoreMerges: cfg.IgnoreMerges,
		table:        newByteLevelTable(),
	}
	if cfg.ContinuingSubwordPrefix != nil {
		m.prefix = *cfg.ContinuingSubwordPrefix
	}
	if cfg.EndOfWordSuffix != nil {
		m.suffix = *cfg.EndOfWordSuffix
	}
	if cfg.UnkToken != nil {
		id, ok := vocab[*cfg.UnkToken]
		if !ok {
			return nil, fmt.Errorf("model: %w: unk_token %q is not in the vocabulary", ErrBadInput, *cfg.UnkToken)
		}
		m.unk, m.hasUnk = id, true
	}
	for b := 0; b < 256; b++ {
		m.fallbackIDs[b], m.fallbackOK[b] = vocab[fmt.Sprintf("<0x%02X>", b)]
		m.byteIDs[b], m.byteOK[b] = vocab[string(m.table.char[b])]
	}
	m.fastBytes = byteLevel && m.prefix == "" && m.suffix == "" && !m.ignoreMerges

	mt := newMergeTable(len(merges))
	var joined []byte
	for rank, p := range merges {
		a, ok := vocab[p[0]]
		if !ok {
			return nil, fmt.Errorf("model: %w: merge %d token %q is not in the vocabulary", ErrBadInput, rank, p[0])
		}
		b, ok := vocab[p[1]]
		if !ok {
			return nil, fmt.Errorf("model: %w: merge %d token %q is not in the vocabulary", ErrBadInput, rank, p[1])
		}
		if len(p[1]) < len(m.prefix) {
			return nil, fmt.Errorf("model: %w: merge %d token %q is shorter than the subword prefix", ErrBadInput, rank, p[1])
		}
		joined = append(append(joined[:0], p[0]...), p[1][len(m.prefix):]...)
		id, ok := vocab[string(joined)] // no allocation for the lookup
		if !ok {
			return nil, fmt.Errorf("model: %w: merge %d result %q is not in the vocabulary", ErrBadInput, rank, joined)
		}
		mt.put(a, b, mergeVal{rank: uint32(rank), id: id})
	}
	m.merges = mt
	if cacheEntries >= 0 {
		m.cache = newWordCache(cacheEntries)
	}
	return m, nil
}
