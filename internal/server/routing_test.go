package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mmgate/mmgate/internal/routing"
	"github.com/mmgate/mmgate/openai"
)

// routedBackend records each request's session key and serves it from a
// named worker; its health has discovery details.
type routedBackend struct {
	fakeBackend
	mu   sync.Mutex
	keys []string
}

type routedGen struct{ *fakeGen }

func (routedGen) Worker() string { return "grpc://10.0.0.7:50051" }

func (b *routedBackend) Chat(ctx context.Context, req *openai.ChatRequest, id string) (openai.Generation, error) {
	b.mu.Lock()
	b.keys = append(b.keys, routing.SessionKey(ctx))
	b.mu.Unlock()
	g, err := b.fakeBackend.Chat(ctx, req, id)
	if err != nil {
		return nil, err
	}
	return routedGen{g.(*fakeGen)}, nil
}

func (b *routedBackend) Health() map[string]any {
	return map[string]any{"workers": []any{}, "discovery": map[string]any{"source": "kubernetes", "synced": true}}
}

// The access log names the worker; the session header reaches the backend
// as the routing session key; /health/ready shows discovery.
func TestRoutingFields(t *testing.T) {
	var logs bytes.Buffer
	var logMu sync.Mutex
	b := &routedBackend{fakeBackend: fakeBackend{reply: "a b"}}
	ts := newTest(t, b, func(o *Options) {
		o.SessionHeader = "X-Session-Id"
		o.Logger = slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil))
	})
	body := `{"model":"demo","messages":[{"role":"user","content":"hi"}]}`
	post(t, ts.URL, body, "X-Session-Id", "conv-7").Body.Close()
	post(t, ts.URL, body).Body.Close()
	b.mu.Lock()
	keys := b.keys
	b.mu.Unlock()
	if len(keys) != 2 || keys[0] != "conv-7" || keys[1] != "" {
		t.Fatalf("session keys %q", keys)
	}
	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	if n := strings.Count(out, "worker=grpc://10.0.0.7:50051"); n != 2 {
		t.Fatalf("%d access lines name the worker:\n%s", n, out)
	}
	resp, err := http.Get(ts.URL + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ready map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&ready); err != nil {
		t.Fatal(err)
	}
	if d, ok := ready["discovery"].(map[string]any); resp.StatusCode != http.StatusServiceUnavailable || !ok || d["source"] != "kubernetes" {
		t.Fatalf("ready %d %v", resp.StatusCode, ready)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
