package media

import "sync"

// scratchBytes bounds the scratch memory a Decoder keeps between decodes.
const scratchBytes = 32 << 20

// pixelStore holds the scratch memory of DecodeScratch: buffers outside the
// Go heap (anonymous mappings where the platform has them), so that a stream
// of images decodes into memory that is already mapped, without a fresh
// allocation for the runtime to zero and the garbage collector to reclaim —
// and, being off the heap, kept buffers do not raise the collector's heap
// goal. Only decoders that overwrite every byte of their destination take
// buffers from it.
type pixelStore struct {
	mu    sync.Mutex
	free  [][]uint8
	bytes int
}

// get returns a buffer of length n: a kept one whose capacity is at least n
// and at most twice n, or a new mapping.
func (s *pixelStore) get(n int) ([]uint8, error) {
	s.mu.Lock()
	for i, b := range s.free {
		if c := cap(b); c >= n && c <= 2*n {
			last := len(s.free) - 1
			s.free[i] = s.free[last]
			s.free[last] = nil
			s.free = s.free[:last]
			s.bytes -= cap(b)
			s.mu.Unlock()
			return b[:n], nil
		}
	}
	s.mu.Unlock()
	return mapScratch(n)
}

// put keeps b for a later get, releasing the oldest kept buffers (or b) to
// stay within scratchBytes. b must come from get.
func (s *pixelStore) put(b []uint8) {
	if cap(b) == 0 {
		return
	}
	s.mu.Lock()
	var drop [][]uint8
	if cap(b) > scratchBytes {
		drop = append(drop, b)
	} else {
		for len(s.free) > 0 && s.bytes+cap(b) > scratchBytes {
			drop = append(drop, s.free[0])
			s.bytes -= cap(s.free[0])
			s.free[0] = nil
			s.free = s.free[1:]
		}
		s.free = append(s.free, b)
		s.bytes += cap(b)
	}
	s.mu.Unlock()
	for _, d := range drop {
		unmapScratch(d)
	}
}
