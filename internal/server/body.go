package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/mmgate/mmgate/internal/apierr"
	"github.com/mmgate/mmgate/internal/limits"
)

// This file answers: how is a request body received? Under the size limit
// (413), the pace rule (limits.Pace: read deadlines on the connection; a
// body that stops or crawls is answered 408 and its connection closed) and
// the upload bounds: a body in progress holds one of MaxUploads places and
// MaxUploadBytes bytes for the buffer it is read into. That buffer is
// small first (the first 64 KiB), and the buffer for the whole declared
// length is taken only once those have come, so a client that declares a
// large body and then trickles holds little. Once the body is in, the
// request waits for its processing slot, still holding its upload place,
// so that bodies waiting in the queue are bounded too.

// firstPart is the buffer a body is read into before its full size is
// allocated (the smallest pooled size).
const firstPart = minPooledBody

// readBody reads the request body, then takes the request's processing
// slot; the error returned is for the caller to write. A body of declared length read within a logged request goes into
// a pooled buffer, given back when the request is over (the lifetime rule,
// package doc).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apierr.Error) {
	if err := s.adm.uploads.Acquire(r.Context(), 1); err != nil {
		return nil, s.refusal(w, r, err, true)
	}
	up := upload{a: s.adm}
	defer up.end()
	rec := recordOf(r)
	body, err := s.receive(w, r, rec, &up)
	if err != nil {
		var mbe *http.MaxBytesError
		var ref *limits.Refusal
		switch {
		case errors.As(err, &mbe):
			return nil, apierr.New(http.StatusRequestEntityTooLarge, apierr.TypeInvalidRequest, "too_large",
				"request body is over the limit of "+itoa(int(s.opts.MaxBodyBytes))+" bytes", "")
		case errors.As(err, &ref):
			return nil, s.refusal(w, r, err, true)
		}
		return nil, apierr.New(http.StatusBadRequest, apierr.TypeInvalidRequest, "invalid_request_error", "reading the body: "+err.Error(), "")
	}
	if err := s.takeSlot(r.Context(), rec); err != nil {
		return nil, s.refusal(w, r, err, false)
	}
	return body, nil
}

// upload is what one body being received holds of the upload bounds.
type upload struct {
	a     *admission
	bytes int64
}

// hold takes n more bytes, or refuses (the budget is not waited for).
func (u *upload) hold(n int64) error {
	if err := u.a.uploadBytes.Acquire(context.Background(), n); err != nil {
		return err
	}
	u.bytes += n
	return nil
}

// drop gives n bytes back.
func (u *upload) drop(n int64) {
	u.a.uploadBytes.Release(n)
	u.bytes -= n
}

// end gives back everything the upload holds.
func (u *upload) end() {
	u.a.uploadBytes.Release(u.bytes)
	u.bytes = 0
	u.a.uploads.Release(1)
}

// receive reads the body into a buffer that grows as the body arrives.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, rec *record, up *upload) ([]byte, error) {
	max := s.opts.MaxBodyBytes
	declared := r.ContentLength
	if declared > max {
		declared = -1 // refused once more than max has come
	}
	pr := &pacedReader{r: http.MaxBytesReader(w, r.Body, max), pace: s.adm.pace, start: time.Now()}
	if rec != nil {
		pr.rc, pr.start = rec.rc, rec.start
	}
	pr.last = pr.start
	b := bodyGrowth{s: s, up: up, pool: rec != nil && rec.body == nil}
	err := b.grow(b.firstSize(declared))
	for err == nil {
		if err = b.fill(pr); err == nil {
			err = b.grow(b.nextSize(declared, max))
		}
	}
	if !errors.Is(err, io.EOF) {
		// The read deadline stays: net/http drains what is left of an
		// unread body after the handler, and must not wait for it.
		b.free()
		return nil, err
	}
	pr.done()
	if b.pooled != nil {
		rec.body = b.pooled
	}
	return b.buf, nil
}

// bodyGrowth is the buffer of a body being read: plain or pooled memory,
// held against the upload bytes.
type bodyGrowth struct {
	s      *Server
	up     *upload
	pool   bool
	buf    []byte
	pooled *bodyBuf // the pool buffer buf is, if any
}

// firstSize is the first buffer's capacity: the whole of a small body
// (and room for the final read that sees EOF), else the first part.
func (b *bodyGrowth) firstSize(declared int64) int {
	switch {
	case declared < 0:
		return bytes.MinRead
	case declared+bytes.MinRead <= firstPart:
		return int(declared) + bytes.MinRead
	}
	return firstPart
}

// nextSize is the capacity after a full buffer: the declared length (with
// room for the final read), or twice the buffer up to the limit.
func (b *bodyGrowth) nextSize(declared, max int64) int {
	if declared >= 0 {
		return int(declared) + bytes.MinRead
	}
	return int(min(2*int64(cap(b.buf)), max+bytes.MinRead))
}

// grow moves the body into a buffer of capacity n (pooled when the body is
// of a pooled size), holding it against the upload bytes.
func (b *bodyGrowth) grow(n int) error {
	if n <= cap(b.buf) {
		return errors.New("body longer than declared")
	}
	var pb *bodyBuf
	if b.pool && n >= pooledFrom {
		pb = b.s.bodies.get(n)
	}
	size := n
	if pb != nil {
		size = cap(pb.b)
	}
	if err := b.up.hold(int64(size)); err != nil {
		b.s.bodies.put(pb)
		return err
	}
	var nb []byte
	if pb != nil {
		nb = append(pb.b[:0], b.buf...)
	} else {
		nb = append(make([]byte, 0, n), b.buf...)
	}
	old := cap(b.buf)
	b.s.bodies.put(b.pooled)
	b.buf, b.pooled = nb, pb
	b.up.drop(int64(old))
	return nil
}

// fill reads into the buffer until it is full (nil) or the body ends
// (io.EOF) or fails.
func (b *bodyGrowth) fill(r io.Reader) error {
	for len(b.buf) < cap(b.buf) {
		n, err := r.Read(b.buf[len(b.buf):cap(b.buf)])
		b.buf = b.buf[:len(b.buf)+n]
		if err != nil {
			return err
		}
	}
	return nil
}

// free gives a pool buffer back after a failed read.
func (b *bodyGrowth) free() {
	b.s.bodies.put(b.pooled)
	b.buf, b.pooled = nil, nil
}

// pacedReader reads a body under the pace rule: before each read, the
// connection's read deadline is set to when the body is cut unless more
// comes; a read that hits it fails with the pace's *limits.Refusal.
type pacedReader struct {
	r           io.Reader
	rc          *http.ResponseController // nil: no deadlines (not supported)
	pace        limits.Pace
	start, last time.Time
	n           int64
	set         time.Time // the deadline set
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.rc != nil {
		if d := p.pace.Deadline(p.start, p.last, p.n); !d.Equal(p.set) {
			if p.rc.SetReadDeadline(d) != nil {
				p.rc = nil
			}
			p.set = d
		}
	}
	n, err := p.r.Read(b)
	if n > 0 {
		p.n += int64(n)
		p.last = time.Now()
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = p.pace.Cut(p.start, p.last, time.Now(), p.n)
	}
	return n, err
}

// done lifts the read deadline once the body is in: net/http then reads
// the connection in the background to notice a client that leaves, and a
// deadline there would look like one.
func (p *pacedReader) done() {
	if p.rc != nil && !p.set.IsZero() {
		p.rc.SetReadDeadline(time.Time{})
	}
}
