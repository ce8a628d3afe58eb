package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/mmgate/mmgate/internal/apierr"
)

// readBody reads the request body under the size limit. A body of declared
// length read within a logged request goes into a pooled buffer, given back
// when the request is over (the lifetime rule, package doc).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apierr.Error) {
	var (
		body []byte
		err  error
	)
	rd := http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	rec := recordOf(r)
	if rec != nil && rec.body == nil && r.ContentLength <= s.opts.MaxBodyBytes {
		var buf *bodyBuf
		if buf, err = s.bodies.readPooled(rd, r.ContentLength); buf != nil {
			rec.body, body = buf, buf.b
		}
	}
	if body == nil && err == nil {
		body, err = readAllSized(rd, r.ContentLength, s.opts.MaxBodyBytes)
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierr.New(http.StatusRequestEntityTooLarge, apierr.TypeInvalidRequest, "too_large",
				"request body is over the limit of "+itoa(int(s.opts.MaxBodyBytes))+" bytes", "")
		}
		return nil, apierr.New(http.StatusBadRequest, apierr.TypeInvalidRequest, "invalid_request_error", "reading the body: "+err.Error(), "")
	}
	return body, nil
}

// readAllSized reads r to its end, into one buffer of the declared length
// when there is one within max: one allocation instead of io.ReadAll's
// doubling, for the large bodies that carry images.
func readAllSized(r io.Reader, declared, max int64) ([]byte, error) {
	if declared <= 0 || declared > max {
		return io.ReadAll(r)
	}
	// Room for the final read that sees EOF.
	b, err := readInto(make([]byte, 0, int(declared)+bytes.MinRead), r)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// readInto appends r, to its end, to dst (growing it only when its capacity
// runs short of the final read).
func readInto(dst []byte, r io.Reader) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}
