package server

import (
	"math/bits"
	"sync"
)

// This file answers: where do large request bodies live? Image chats carry
// their pictures as data: URLs, hundreds of kilobytes to megabytes of JSON
// per request, and the parsed request shares that memory
// (openai.ParseChat lifts the media strings out of the body without
// copying them). Read into fresh memory each time, these bodies were most
// of what the gateway allocated under image load, and so what set the pace
// of the garbage collector, whose mark phase takes a processor and a core
// from every other request while it runs. The bodies of declared length go
// into buffers kept for reuse instead, under the lifetime rule of the
// package documentation.

// Buffers are kept in power-of-two sizes from minPooledBody up, for bodies
// of pooledFrom bytes or more (smaller ones are cheap to allocate) and up to
// the largest class: a rarer, larger body (a video) is read into memory of
// its own size rather than into a class that may be twice as large.
const (
	pooledFrom    = 16 << 10
	minPooledBody = 64 << 10
	bodyClasses   = 8 // 64 KiB … 8 MiB
)

// bodyBuf is one pooled buffer.
type bodyBuf struct{ b []byte }

// bodyPool keeps body buffers by size class.
type bodyPool struct {
	classes [bodyClasses]sync.Pool
	// poison overwrites every buffer given back, so that anything still
	// reading it sees garbage at once (set by tests of the lifetime rule).
	poison bool
}

// poisonByte fills released buffers when poisoning: not base64, not JSON.
const poisonByte = 0xDB

// class returns the size class holding n bytes, or -1 when n is outside
// the pooled sizes.
func bodyClass(n int) int {
	if n <= 0 || n > minPooledBody<<(bodyClasses-1) {
		return -1
	}
	if n <= minPooledBody {
		return 0
	}
	return bits.Len(uint((n - 1) / minPooledBody)) // ceil(log2(n / minPooledBody))
}

// get returns an empty buffer of capacity at least n, or nil when n is not
// pooled.
func (p *bodyPool) get(n int) *bodyBuf {
	k := bodyClass(n)
	if k < 0 {
		return nil
	}
	if v, ok := p.classes[k].Get().(*bodyBuf); ok {
		v.b = v.b[:0]
		return v
	}
	return &bodyBuf{b: make([]byte, 0, minPooledBody<<k)}
}

// put gives b back; its bytes must no longer be in use.
func (p *bodyPool) put(b *bodyBuf) {
	if b == nil {
		return
	}
	if p.poison {
		full := b.b[:cap(b.b)]
		for i := range full {
			full[i] = poisonByte
		}
	}
	if k := bodyClass(cap(b.b)); k >= 0 && cap(b.b) == minPooledBody<<k {
		p.classes[k].Put(b)
	}
}
