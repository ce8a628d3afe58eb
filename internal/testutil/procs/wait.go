package procs

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// pollEvery is how often Poll checks.
const pollEvery = 20 * time.Millisecond

// waitLimit is how long the test helpers wait for a process to be ready.
const waitLimit = 30 * time.Second

// Poll calls ok every 20 ms until it reports true. It fails when p (if not
// nil) ends first, quoting the end of its stderr, when ctx ends, or when
// within has passed.
func Poll(ctx context.Context, p *Proc, within time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(within)
	for !ok() {
		if p != nil && !p.Alive() {
			return fmt.Errorf("%s exited while waiting for %s:\n%s", p.Name, what, p.Stderr.Tail(20000))
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s", what)
		}
		time.Sleep(pollEvery)
	}
	return nil
}

// WaitFor is Poll for tests: up to 30 s, failing the test on error.
func WaitFor(t T, p *Proc, ok func() bool, what string) {
	t.Helper()
	if err := Poll(context.Background(), p, waitLimit, what, ok); err != nil {
		t.Fatal(err)
	}
}

// Ready reports whether a GET of url answers 200 (a gateway's
// /health/ready once it has a healthy worker).
func Ready(url string) bool {
	r, err := http.Get(url)
	if err != nil {
		return false
	}
	r.Body.Close()
	return r.StatusCode == http.StatusOK
}

// Metrics returns the Prometheus text a process serves at base+"/metrics".
func Metrics(base string) (string, error) {
	r, err := http.Get(base + "/metrics")
	if err != nil {
		return "", err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err == nil && r.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s/metrics: %s", base, r.Status)
	}
	return string(b), err
}

// LoopbackAddr is a loopback HOST:PORT that was free a moment ago.
func LoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// FreeAddr is LoopbackAddr for tests.
func FreeAddr(t T) string {
	t.Helper()
	a, err := LoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	return a
}
