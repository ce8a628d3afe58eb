package openai

import (
	"reflect"
	"strings"
	"testing"
)

// Lifting media strings out of the decoder's way must never change what
// ParseChat returns: every case is parsed with lifting from 1 byte on and
// compared with the plain decode.
var blobCases = []string{
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, {"type": "text", "text": "hi"}]}]}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "data:image/png;base64,AAAA"}]}]}`,
	`{"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:a\"b"}}]}]}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:\u00e9x"}}]}]}`,
	`{"messages": [{"role": "user", "content": "url"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"url": "a long default value"}}}]}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": ["x"]}}]}]}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "\u0000blob:0"}}]}]}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url" : "data:x", "detail": "high"}}]}], "user": "data"}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:x`,
	`{"messages": [{"role": "user", "content": [{"type": "video_url", "video_url": {"url": "data:video/mp4;base64,AAAA"}}]}], "stop": "url"}`,
	`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "    "}}]}]}`,
}

func checkLifting(t *testing.T, body []byte) {
	t.Helper()
	want, werr := parseChat(body)
	for _, min := range []int{1, 4, 16} {
		got, gerr := parseLifting(body, min)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("min %d, %q: error %v, plain decode %v", min, body, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("min %d, %q:\n got %+v\nwant %+v", min, body, got, want)
		}
	}
}

func TestLiftBlobs(t *testing.T) {
	for _, c := range blobCases {
		checkLifting(t, []byte(c))
	}
	// A real-sized data URL is lifted, and restored.
	big := "data:image/jpeg;base64," + strings.Repeat("QUJD", 10000)
	body := []byte(`{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "` + big + `"}}]}]}`)
	small, blobs := liftBlobs(body, blobMin)
	if len(blobs) != 1 || blobs[0] != big || len(small) > 200 {
		t.Fatalf("lifted %d blobs, %d bytes left", len(blobs), len(small))
	}
	r, err := ParseChat(body)
	if err != nil || r.Messages[0].Content.Parts[0].URL != big {
		t.Fatalf("ParseChat: %v", err)
	}
	checkLifting(t, body)
}

func FuzzLiftBlobs(f *testing.F) {
	for _, c := range blobCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkLifting(t, body) })
}
