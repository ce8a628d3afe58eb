package fetch

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of failure, tested with errors.Is. Every error returned by a
// Fetcher is an *Error whose Kind is one of these.
//
//   - ErrBadURL: the URL cannot be parsed, or its data: payload is malformed
//     (invalid base64, bad percent escape, missing comma). HTTP 400.
//   - ErrForbidden: the fetch policy refuses the URL: scheme not allowed, a
//     host or resolved address in a refused range, file:// outside the allowed
//     roots. HTTP 403.
//   - ErrTooLarge: the media is larger than Policy.MaxBytes. HTTP 413.
//   - ErrFetch: the media could not be obtained: remote 4xx/5xx status, too
//     many redirects, connection failure, truncated body, missing file.
//     HTTP 422.
//   - ErrTimeout: Policy.Timeout (or the caller's deadline) passed before the
//     media was read completely. HTTP 504.
var (
	ErrBadURL    = errors.New("bad media URL")
	ErrForbidden = errors.New("media URL forbidden by fetch policy")
	ErrTooLarge  = errors.New("media too large")
	ErrFetch     = errors.New("media fetch failed")
	ErrTimeout   = errors.New("media fetch timed out")
)

// Error describes one failed fetch. errors.Is(err, Kind) holds, and so does
// errors.Is/As for the underlying cause Err when there is one.
type Error struct {
	Op     string // "fetch data", "fetch http", "fetch file", "dial"
	URL    string // the URL shortened for messages: no query, no userinfo, data: payload elided
	Kind   error  // ErrBadURL, ErrForbidden, ErrTooLarge, ErrFetch or ErrTimeout
	Status int    // the remote HTTP status for an ErrFetch caused by a 4xx/5xx answer, else 0
	Detail string // what exactly went wrong, for people
	Err    error  // the underlying cause, or nil
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.URL != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(e.URL)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Kind.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes both the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func newErr(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// withOp fills in the operation and URL of err if it is an *Error without
// them, and wraps anything else as ErrFetch.
func withOp(err error, op, shownURL string) error {
	var fe *Error
	if errors.As(err, &fe) {
		out := *fe
		if out.Op == "" || out.Op == "dial" {
			out.Op = op
		}
		if out.URL == "" {
			out.URL = shownURL
		}
		return &out
	}
	return &Error{Op: op, URL: shownURL, Kind: ErrFetch, Err: err}
}

// shortURL renders a URL for error messages without secrets or bulk: the
// data: payload is replaced by its length, the query and userinfo are dropped,
// and the result is at most 200 bytes.
func shortURL(raw string) string {
	const maxLen = 200
	if len(raw) >= 5 && strings.EqualFold(raw[:5], "data:") {
		if i := strings.IndexByte(raw, ','); i >= 0 {
			head := raw[:i]
			if len(head) > 100 {
				head = head[:100] + "…"
			}
			return strings.ToValidUTF8(fmt.Sprintf("%s,<%d bytes>", head, len(raw)-i-1), "\uFFFD")
		}
		if len(raw) > 100 {
			raw = raw[:100] + "…"
		}
		return strings.ToValidUTF8(raw, "\uFFFD")
	}
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	if s := strings.Index(raw, "://"); s >= 0 {
		rest := raw[s+3:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			raw = raw[:s+3] + rest[at+1:]
		}
	}
	if len(raw) > maxLen {
		raw = raw[:maxLen] + "…"
	}
	return strings.ToValidUTF8(raw, "\uFFFD")
}
