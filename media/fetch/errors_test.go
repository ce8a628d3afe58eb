package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
)

func TestErrorKindsAndMessages(t *testing.T) {
	f, _, _ := newTestFetcher(t, Policy{MaxBytes: 4})
	tests := []struct {
		url  string
		kind error
		msg  string
	}{
		{"http://127.0.0.1/x?token=secret", ErrForbidden,
			"fetch http http://127.0.0.1/x: media URL forbidden by fetch policy: address 127.0.0.1 is loopback"},
		{"http://2130706433/", ErrForbidden,
			`fetch http http://2130706433/: media URL forbidden by fetch policy: non-canonical IPv4 host "2130706433" (means 127.0.0.1): loopback`},
		{"http://[fd00:ec2::254]/", ErrForbidden,
			"fetch http http://[fd00:ec2::254]/: media URL forbidden by fetch policy: address fd00:ec2::254 is cloud metadata"},
		{"ftp://example.com/a", ErrForbidden,
			"fetch ftp://example.com/a: media URL forbidden by fetch policy: scheme ftp: not allowed"},
		{"data:;base64,QUJD*", ErrBadURL,
			`fetch data data:;base64,<5 bytes>: bad media URL: invalid base64 character '*' at byte 4 of data: payload`},
		{"data:;base64,QUJDREU=", ErrTooLarge,
			"fetch data data:;base64,<8 bytes>: media too large: decoded data: payload is over 4 bytes"},
		{"file:///etc/passwd", ErrForbidden,
			"fetch file file:///etc/passwd: media URL forbidden by fetch policy: no file roots are configured"},
	}
	for _, tt := range tests {
		_, err := f.Fetch(context.Background(), tt.url)
		wantKind(t, err, tt.kind)
		if err.Error() != tt.msg {
			t.Errorf("message\n got %s\nwant %s", err, tt.msg)
		}
		for _, other := range []error{ErrBadURL, ErrForbidden, ErrTooLarge, ErrFetch, ErrTimeout} {
			if other != tt.kind && errors.Is(err, other) {
				t.Errorf("%v also matches %v", err, other)
			}
		}
		wrapped := fmt.Errorf("pipeline: %w", err)
		if !errors.Is(wrapped, tt.kind) || strings.Contains(err.Error(), "secret") {
			t.Errorf("wrapping lost the kind or leaked the query: %v", wrapped)
		}
	}
}

func TestIsTimeout(t *testing.T) {
	dnsTimeout := &net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("x"), false},
		{dnsTimeout, true},
		{&url.Error{Op: "Get", URL: "u", Err: &Error{Kind: ErrFetch, Err: dnsTimeout}}, true},
		{&url.Error{Op: "Get", URL: "u", Err: &Error{Kind: ErrFetch, Err: errors.New("refused")}}, false},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), true},
	}
	for _, tt := range tests {
		if got := isTimeout(tt.err); got != tt.want {
			t.Errorf("isTimeout(%v) = %v", tt.err, got)
		}
	}
}
