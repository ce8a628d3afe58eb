package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mmgate/mmgate/internal/limits"
)

// peakReader reads r and records the upload bytes held at each read.
type peakReader struct {
	r    io.Reader
	a    *admission
	peak int64
}

func (p *peakReader) Read(b []byte) (int, error) {
	p.peak = max(p.peak, p.a.uploadBytes.Stats().InUse)
	return p.r.Read(b)
}

// receiveBody reads body through Server.receive as a request declaring
// declared bytes would be read.
func receiveBody(t *testing.T, s *Server, body io.Reader, declared int64) (got []byte, rec *record, peak int64, err error) {
	t.Helper()
	pr := &peakReader{r: body, a: s.adm}
	r := httptest.NewRequest("POST", "/v1/chat/completions", pr)
	r.ContentLength = declared
	rec = &record{}
	up := upload{a: s.adm}
	got, err = s.receive(httptest.NewRecorder(), r, rec, &up)
	if held := s.adm.uploadBytes.Stats().InUse; held != up.bytes {
		t.Errorf("budget holds %d, the upload %d", held, up.bytes)
	}
	if err == nil && up.bytes != int64(cap(got)) {
		t.Errorf("the upload holds %d for a buffer of %d", up.bytes, cap(got))
	}
	s.adm.uploadBytes.Release(up.bytes)
	return got, rec, pr.peak, err
}

func newServer(t *testing.T, mod func(*Options)) *Server {
	t.Helper()
	o := Options{Backend: &fakeBackend{reply: "x"}, MaxBodyBytes: 16 << 20}
	if mod != nil {
		mod(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A body is read whole whatever its declared length and however its
// reads come; small bodies get a buffer of their size, larger ones a
// pooled class or their declared size, after a first part of 64 KiB.
func TestReceive(t *testing.T) {
	s := newServer(t, nil)
	for _, c := range []struct {
		size, declared int64
		capacity       int   // of the final buffer
		pooled         bool  // in a pool buffer
		peak           int64 // upload bytes held at most while reading (0: not checked)
	}{
		{0, 0, 512, false, 512},
		{10, 10, 522, false, 522},
		{10000, 10000, 10512, false, 10512},
		{20000, 20000, 64 << 10, true, 64 << 10},
		{100000, 100000, 128 << 10, true, 64<<10 + 128<<10},
		{9 << 20, 9 << 20, 9<<20 + 512, false, 64<<10 + 9<<20 + 512},
		{100000, -1, 128 << 10, true, 0}, // unknown length: doubling from 512, pooled from 16 KiB
	} {
		body := bytes.Repeat([]byte("0123456789abcdef"), int(c.size/16+1))[:c.size]
		got, rec, peak, err := receiveBody(t, s, iotest.HalfReader(bytes.NewReader(body)), c.declared)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%d bytes declared %d: %d bytes, %v", c.size, c.declared, len(got), err)
			continue
		}
		if cap(got) != c.capacity || (rec.body != nil) != c.pooled {
			t.Errorf("%d bytes declared %d: capacity %d pooled %v, want %d %v", c.size, c.declared, cap(got), rec.body != nil, c.capacity, c.pooled)
		}
		if c.peak > 0 && peak > c.peak {
			t.Errorf("%d bytes declared %d: %d bytes held, want at most %d", c.size, c.declared, peak, c.peak)
		}
		s.bodies.put(rec.body)
	}
	// A body cut short reports the reader's error and holds nothing.
	cut := io.MultiReader(strings.NewReader(strings.Repeat("x", 100000)), iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, _, _, err := receiveBody(t, s, cut, 200000); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated body: %v", err)
	}
	// Over the limit: http.MaxBytesError.
	var mbe *http.MaxBytesError
	if _, _, _, err := receiveBody(t, s, bytes.NewReader(make([]byte, 17<<20)), -1); !errors.As(err, &mbe) {
		t.Errorf("over the limit: %v", err)
	}
}

// A body that announces a large size and trickles holds only its first
// part; the upload byte budget refuses what does not fit.
func TestReceiveBudget(t *testing.T) {
	s := newServer(t, func(o *Options) { o.MaxUploadBytes = 1 << 20 })
	// 64 KiB arrive, then the body stalls: what is held is the first part.
	stalled := io.MultiReader(bytes.NewReader(make([]byte, 60000)), iotest.ErrReader(io.ErrUnexpectedEOF))
	_, _, peak, _ := receiveBody(t, s, stalled, 8<<20)
	if peak > firstPart {
		t.Errorf("a stalled 8 MiB upload held %d bytes", peak)
	}
	_, _, _, err := receiveBody(t, s, bytes.NewReader(make([]byte, 2<<20)), 2<<20)
	var ref *limits.Refusal
	if !errors.As(err, &ref) || ref.Reason != limits.ReasonUploads {
		t.Errorf("2 MiB against a 1 MiB budget: %v", err)
	}
	if held := s.adm.uploadBytes.Stats().InUse; held != 0 {
		t.Errorf("%d bytes held after the refusal", held)
	}
}
