package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"testing"
)

// A request cut by a shutdown (Drain, then its context ends) gets a 503
// shutting_down, not the silence a departed client gets.
func TestDrainCutIs503(t *testing.T) {
	b := &fakeBackend{reply: "x", block: make(chan struct{}), started: make(chan struct{}, 1)}
	s, err := New(Options{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	base, cut := context.WithCancel(context.Background())
	ts := httptest.NewUnstartedServer(s)
	ts.Config.BaseContext = func(net.Listener) context.Context { return base }
	ts.Start()
	t.Cleanup(ts.Close)
	answer := postAsync(t, ts.URL)
	<-b.started
	s.Drain()
	cut()
	if status, code := answer(); status != 503 || code != "shutting_down" {
		t.Fatalf("cut request: %d %q", status, code)
	}
}

// postAsync sends a chat request to url on a goroutine of its own; the
// function it returns waits for the answer's status and error code.
func postAsync(t *testing.T, url string) func() (int, string) {
	done := make(chan struct{})
	var status int
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	go func() {
		defer close(done)
		r := post(t, url, simple+`}`)
		defer r.Body.Close()
		status = r.StatusCode
		json.NewDecoder(r.Body).Decode(&body)
	}()
	return func() (int, string) {
		<-done
		return status, body.Error.Code
	}
}
