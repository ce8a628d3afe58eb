package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// embeddedGateway is `serve --embedded-worker` running in this process.
type embeddedGateway struct {
	URL    string
	ShmDir string
	stop   func()
}

// Stop shuts the gateway down and waits for it (also done at the end of
// the test).
func (g *embeddedGateway) Stop() { g.stop() }

// startEmbeddedGateway runs `serve --embedded-worker --embedded-fingerprint
// crc32c` in this process on a free loopback port with a private
// shared-memory directory, plus extra flags, and returns once it is ready.
func startEmbeddedGateway(t *testing.T, extra ...string) *embeddedGateway {
	t.Helper()
	shm := procs.ShmDir(t, "mmgate-cmd-test-")
	addr := procs.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	sw := &procs.Log{}
	logs := sw.String
	served := make(chan int, 1)
	args := append([]string{"--embedded-worker", "--embedded-fingerprint", "crc32c", "--listen", addr, "--shm-dir", shm,
		"--health-interval", "100ms", "--log-level", "warn"}, extra...)
	go func() {
		served <- runServe(ctx, &stdio{in: strings.NewReader(""), out: &bytes.Buffer{}, err: sw}, args)
	}()
	var once sync.Once
	g := &embeddedGateway{URL: "http://" + addr, ShmDir: shm, stop: func() {
		once.Do(func() {
			cancel()
			select {
			case <-served:
			case <-time.After(15 * time.Second):
				t.Error("serve did not stop")
			}
		})
	}}
	t.Cleanup(func() {
		g.stop()
		if t.Failed() {
			t.Logf("serve stderr:\n%s", logs())
		}
	})
	exited := -1
	err := procs.Poll(context.Background(), nil, 20*time.Second, "gateway ready", func() bool {
		select {
		case exited = <-served:
			served <- exited // for stop
			return true
		default:
			return procs.Ready(g.URL + "/health/ready")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if exited >= 0 {
		t.Fatalf("serve exited with %d:\n%s", exited, logs())
	}
	return g
}
