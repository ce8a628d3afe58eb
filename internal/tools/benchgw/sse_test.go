package benchgw

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestReadStream(t *testing.T) {
	chunk := func(c string) string {
		return `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + c + `},"finish_reason":null}]}` + "\n\n"
	}
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name    string
		in      string
		text    string
		done    bool
		first   bool
		errCode string
		err     error
	}{
		{"plain", `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}` + "\n\n" + chunk(`"a"`) + chunk(`"b c"`) + "data: [DONE]\n\n", "ab c", true, true, "", nil},
		{"crlf and no space", "data:{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\r\n\r\ndata: [DONE]\r\n\r\n", "x", true, true, "", nil},
		{"comments and other fields", ": ping\nevent: message\nid: 3\n" + chunk(`"y"`) + "retry: 10\n\ndata: [DONE]\n\n", "y", true, true, "", nil},
		{"multi-line data", "data: {\"choices\":\ndata: [{\"delta\":{\"content\":\"m\"}}]}\n\ndata: [DONE]\n\n", "m", true, true, "", nil},
		{"no content", `data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\ndata: [DONE]\n\n", "", true, false, "", nil},
		{"ends without DONE", chunk(`"p"`), "p", false, true, "", nil},
		{"last event without blank line", "data: [DONE]", "", true, false, "", nil},
		{"error event", chunk(`"q"`) + `data: {"error":{"message":"boom","type":"worker_error","code":"worker_error","param":null}}` + "\n\ndata: [DONE]\n\n", "q", true, true, "worker_error", nil},
		{"error code null uses type", `data: {"error":{"message":"boom","type":"server_error","code":null}}` + "\n\n", "", false, false, "server_error", nil},
		{"numeric code", `data: {"error":{"message":"boom","type":"t","code":502}}` + "\n\n", "", false, false, "502", nil},
		{"long line", chunk(`"`+long+`"`) + "data: [DONE]\n\n", long, true, true, "", nil},
		{"stops at DONE", chunk(`"a"`) + "data: [DONE]\n\n" + chunk(`"b"`), "a", true, true, "", nil},
		{"bad json", "data: {nope\n\n", "", false, false, "", errBadStream},
		{"empty", "", "", false, false, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at := time.Unix(100, 0)
			res, err := readStream(strings.NewReader(tc.in), func() time.Time { return at })
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if res.text != tc.text || res.done != tc.done || (res.firstContent == at) != tc.first {
				t.Errorf("text %.40q done %v first %v; want %.40q %v %v", res.text, res.done, res.firstContent, tc.text, tc.done, tc.first)
			}
			code := ""
			if res.apiErr != nil {
				code = res.apiErr.code()
			}
			if code != tc.errCode {
				t.Errorf("error code %q, want %q", code, tc.errCode)
			}
		})
	}
}

// errReader fails after its data.
type errReader struct{ r io.Reader }

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

func TestReadStreamReadError(t *testing.T) {
	res, err := readStream(errReader{strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")}, time.Now)
	if !errors.Is(err, io.ErrUnexpectedEOF) || res.text != "a" {
		t.Errorf("text %q err %v", res.text, err)
	}
}

func FuzzReadStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"x\",\"code\":\"c\"}}\n\n"))
	f.Add([]byte(": c\r\ndata:\r\ndata: x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := readStream(strings.NewReader(string(b)), time.Now)
		if err != nil && !errors.Is(err, errBadStream) {
			t.Fatalf("unexpected error kind: %v", err)
		}
		if len(res.text) > len(b)*6 {
			t.Fatalf("text of %d bytes from %d input bytes", len(res.text), len(b))
		}
	})
}
