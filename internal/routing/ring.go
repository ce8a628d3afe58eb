package routing

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/zeebo/blake3"
)

// VirtualNodes is the number of ring positions per worker.
const VirtualNodes = 150

// Ring is a consistent-hash ring over worker URLs. It is immutable: build
// a new one when the workers change.
type Ring struct {
	points []point
	urls   int
}

type point struct {
	pos uint64
	url string
}

// NewRing places each URL at VirtualNodes positions.
func NewRing(urls []string) *Ring {
	r := &Ring{points: make([]point, 0, len(urls)*VirtualNodes)}
	seen := map[string]bool{}
	for _, u := range urls {
		if seen[u] {
			continue
		}
		seen[u] = true
		r.urls++
		for v := range VirtualNodes {
			r.points = append(r.points, point{position(u + "#" + strconv.Itoa(v)), u})
		}
	}
	slices.SortStableFunc(r.points, func(a, b point) int { return cmp.Compare(a.pos, b.pos) })
	return r
}

// position is the first 8 bytes, little-endian, of BLAKE3(s).
func position(s string) uint64 {
	sum := blake3.Sum256([]byte(s))
	return binary.LittleEndian.Uint64(sum[:8])
}

// Find returns the first URL clockwise from key's position for which
// usable is true (usable nil: any), and false when none is.
func (r *Ring) Find(key string, usable func(url string) bool) (string, bool) {
	if len(r.points) == 0 {
		return "", false
	}
	pos := position(key)
	start, _ := slices.BinarySearchFunc(r.points, pos, func(p point, pos uint64) int {
		if p.pos < pos {
			return -1
		}
		return 1
	})
	tried := map[string]bool{}
	for i := range r.points {
		u := r.points[(start+i)%len(r.points)].url
		if tried[u] {
			continue
		}
		if usable == nil || usable(u) {
			return u, true
		}
		tried[u] = true
		if len(tried) == r.urls {
			break
		}
	}
	return "", false
}

// RoutingKey is consistent_hash's key: the session header's value when
// set, else the text of the first user message; empty when neither (the
// caller then falls back to another policy).
func RoutingKey(sessionHeader, firstUserMessage string) string {
	if sessionHeader != "" {
		return sessionHeader
	}
	return firstUserMessage
}
