package prefixtree

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// PageSize is the number of keys compared and cached as one unit.
const PageSize = 16

// ErrBadPrompt: a media span lies outside the ids or overlaps another.
var ErrBadPrompt = errors.New("bad prompt")

// Span marks the placeholder tokens of one media item.
type Span struct {
	Offset, Length int
	// Hash is the item's content hash (prompt.ContentHash).
	Hash [32]byte
}

// Prompt is a tokenized prompt with its media spans.
type Prompt struct {
	IDs   []uint32
	Media []Span
}

// mediaBit marks media keys; token ids stay below 1<<32.
const mediaBit = 1 << 63

// MediaKey is the key of every placeholder position of the item with hash
// h: 63 bits of the hash with the media bit set.
func MediaKey(h [32]byte) uint64 {
	return mediaBit | binary.LittleEndian.Uint64(h[:8])
}

// Keys returns the key sequence of p: each token id, with the positions of
// every media span replaced by that item's MediaKey.
func Keys(p Prompt) ([]uint64, error) {
	keys := make([]uint64, len(p.IDs))
	for i, id := range p.IDs {
		keys[i] = uint64(id)
	}
	spans := slices.SortedFunc(slices.Values(p.Media), func(a, b Span) int { return cmp.Compare(a.Offset, b.Offset) })
	end := 0
	for _, s := range spans {
		if s.Offset < end || s.Length < 0 || s.Length > len(keys)-s.Offset {
			return nil, fmt.Errorf("prefixtree: media span [%d,+%d) outside %d ids or overlapping: %w",
				s.Offset, s.Length, len(keys), ErrBadPrompt)
		}
		k := MediaKey(s.Hash)
		for i := s.Offset; i < s.Offset+s.Length; i++ {
			keys[i] = k
		}
		end = s.Offset + s.Length
	}
	return keys, nil
}
