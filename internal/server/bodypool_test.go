package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/mmgate/mmgate/openai"
)

func TestBodyClass(t *testing.T) {
	for _, c := range []struct{ n, class int }{
		{0, -1}, {1, 0}, {64 << 10, 0}, {64<<10 + 1, 1}, {128 << 10, 1}, {128<<10 + 1, 2},
		{192 << 10, 2}, {256 << 10, 2}, {256<<10 + 1, 3}, {8 << 20, 7}, {8<<20 + 1, -1},
	} {
		if got := bodyClass(c.n); got != c.class {
			t.Errorf("bodyClass(%d) = %d, want %d", c.n, got, c.class)
		}
	}
}

func TestPoolReuse(t *testing.T) {
	var p bodyPool
	// A buffer given back is handed out again (sync.Pool may drop some
	// under the race detector: a few tries).
	reused := false
	for range 10 {
		a := p.get(100 << 10)
		p.put(a)
		if b := p.get(100 << 10); b == a {
			reused = true
			p.put(b)
			break
		}
	}
	if !reused {
		t.Error("no buffer was reused")
	}
}

// mediaBackend records the media URL of each chat request and, for those
// it is told to, waits before answering.
type mediaBackend struct {
	fakeBackend
	mu   sync.Mutex
	seen map[string]string // request's tag → its URL as read when answered
	hold map[string]chan struct{}
	ptrs map[string]uintptr // request's tag → where its URL's bytes lie
}

func (b *mediaBackend) Chat(ctx context.Context, req *openai.ChatRequest, id string) (openai.Generation, error) {
	var url string
	for _, m := range req.Messages {
		for _, p := range m.Content.Parts {
			if p.Type == "image_url" {
				url = p.URL
			}
		}
	}
	// A copy: the URL shares the body's buffer, which serves another
	// request once this one is over (a map key kept from it would change).
	tag := strings.Clone(url[len(url)-8:])
	b.mu.Lock()
	h := b.hold[tag]
	b.ptrs[tag] = uintptr(unsafe.Pointer(unsafe.StringData(url)))
	b.mu.Unlock()
	if h != nil {
		<-h
	}
	b.mu.Lock()
	b.seen[tag] = strings.Clone(url)
	b.mu.Unlock()
	return b.fakeBackend.Chat(ctx, req, id)
}

// TestPooledBodies checks that request bodies live in reused buffers and
// that a buffer is not handed to another request while its own is running:
// the media URLs the backend reads share the body's memory.
func TestPooledBodies(t *testing.T) {
	b := &mediaBackend{fakeBackend: fakeBackend{reply: "ok", ready: true},
		seen: map[string]string{}, hold: map[string]chan struct{}{}, ptrs: map[string]uintptr{}}
	ts := newTest(t, b, nil)
	url := func(i int) string {
		return "data:image/png;base64," + strings.Repeat(string(rune('A'+i%26)), 100000) + fmt.Sprintf("%08d", i)
	}
	body := func(i int) string {
		return `{"model":"demo","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + url(i) + `"}}]}]}`
	}
	send := func(i int) {
		resp := post(t, ts.URL, body(i))
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("request %d: status %d, %v", i, resp.StatusCode, err)
		}
	}
	// Request 0 is held inside the backend while requests 1..4 come and
	// go: none may get request 0's buffer.
	hold := make(chan struct{})
	b.hold[fmt.Sprintf("%08d", 0)] = hold
	done := make(chan struct{})
	go func() { defer close(done); send(0) }()
	for {
		b.mu.Lock()
		_, in := b.ptrs[fmt.Sprintf("%08d", 0)]
		b.mu.Unlock()
		if in {
			break
		}
	}
	for i := 1; i <= 4; i++ {
		send(i)
	}
	close(hold)
	<-done
	for i := 0; i <= 4; i++ {
		if got := b.seen[fmt.Sprintf("%08d", i)]; got != url(i) {
			t.Errorf("request %d: the backend read another URL (%.40q…)", i, got)
		}
	}
	// Requests in sequence reuse buffers (sync.Pool keeps them per
	// processor and drops some under the race detector: some, not all).
	for i := 5; i < 20; i++ {
		send(i)
	}
	used := map[uintptr]bool{}
	reused := 0
	for i := 0; i < 20; i++ {
		p := b.ptrs[fmt.Sprintf("%08d", i)]
		if used[p] {
			reused++
		}
		used[p] = true
	}
	if reused == 0 {
		t.Error("20 requests in sequence never reused a body buffer")
	}
}
