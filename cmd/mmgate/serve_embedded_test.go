package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The embedded worker keeps the segments it reads and says so, so the
// gateway refills one segment for a stream of same-size images.
func TestEmbeddedWorkerReusesSegments(t *testing.T) {
	images := writeBenchImages(t, 1, 320, 240)
	shmBase := "/dev/shm"
	if st, err := os.Stat(shmBase); err != nil || !st.IsDir() {
		shmBase = os.TempDir()
	}
	shmDir, err := os.MkdirTemp(shmBase, "mmgate-embedded-reuse-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shmDir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var serveErr bytes.Buffer
	served := make(chan int, 1)
	go func() {
		served <- runServe(ctx, &stdio{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &syncWriter{w: &serveErr}},
			[]string{"--embedded-worker", "--embedded-fingerprint", "crc32c", "--listen", addr, "--shm-dir", shmDir,
				"--cache-bytes", "0", "--health-interval", "100ms", "--log-level", "warn"})
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case <-served:
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop")
		}
	}
	defer stop()
	url := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case code := <-served:
			t.Fatalf("serve exited with %d: %s", code, serveErr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("gateway not ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, out, errs := runBenchGatewayArgs(t, "--url", url, "--images", images, "--requests", "5", "--concurrency", "1", "--json")
	if code != 0 || !strings.Contains(out, `"reply_shm":5`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, val, ok := strings.Cut(line, " "); ok && strings.HasPrefix(name, "mmgate_shm_reuse_total{") {
			got[name], _ = strconv.ParseFloat(val, 64)
		}
	}
	if got[`mmgate_shm_reuse_total{outcome="hit"}`] != 4 || got[`mmgate_shm_reuse_total{outcome="miss"}`] != 1 {
		t.Fatalf("reuse counters %v, want 4 hits and 1 miss", got)
	}
	// On shutdown the pool removes its idle segments.
	stop()
	left, err := os.ReadDir(shmDir)
	if err != nil || len(left) != 0 {
		t.Fatalf("after shutdown: %v %v", left, err)
	}
}
