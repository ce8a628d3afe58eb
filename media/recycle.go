package media

import "sync"

// recycleBytes bounds the pixel memory a Decoder keeps for reuse: a few
// images' worth. Kept buffers are live heap, and the garbage collector lets
// the heap grow in proportion to it (GOGC), so a larger store costs more
// resident memory than it saves.
const recycleBytes = 16 << 20

// pixelStore keeps pixel buffers that decoded images gave back
// (Decoder.Recycle), so that a stream of images of similar sizes decodes
// into memory that is already mapped instead of a fresh allocation that the
// runtime must zero and the garbage collector must later reclaim. Only
// decoders that overwrite every byte of their destination take buffers from
// it.
type pixelStore struct {
	mu    sync.Mutex
	free  [][]uint8
	bytes int
}

// get returns a buffer of length n: a kept one whose capacity is at least n
// and at most twice n, or a new one.
func (s *pixelStore) get(n int) []uint8 {
	s.mu.Lock()
	for i, b := range s.free {
		if c := cap(b); c >= n && c <= 2*n {
			last := len(s.free) - 1
			s.free[i] = s.free[last]
			s.free[last] = nil
			s.free = s.free[:last]
			s.bytes -= cap(b)
			s.mu.Unlock()
			return b[:n]
		}
	}
	s.mu.Unlock()
	return make([]uint8, n)
}

// put keeps b for a later get, dropping the oldest kept buffers to stay
// within recycleBytes.
func (s *pixelStore) put(b []uint8) {
	if cap(b) == 0 || cap(b) > recycleBytes {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.free) > 0 && s.bytes+cap(b) > recycleBytes {
		s.bytes -= cap(s.free[0])
		s.free[0] = nil
		s.free = s.free[1:]
	}
	s.free = append(s.free, b)
	s.bytes += cap(b)
}
