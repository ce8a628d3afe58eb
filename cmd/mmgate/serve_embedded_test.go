package main

import (
	"bufio"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The embedded worker keeps the segments it reads and says so, so the
// gateway refills one segment for a stream of same-size images.
func TestEmbeddedWorkerReusesSegments(t *testing.T) {
	images := writeBenchImages(t, 1, 320, 240)
	gw := startEmbeddedGateway(t, "--cache-bytes", "0")
	url, shmDir, stop := gw.URL, gw.ShmDir, gw.Stop
	code, out, errs := runBenchGatewayArgs(t, "--url", url, "--images", images, "--requests", "5", "--concurrency", "1", "--no-warm-up", "--json")
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
