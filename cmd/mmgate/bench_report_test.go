package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/tools/benchgw/fakegw"
	"github.com/mmgate/mmgate/internal/tools/benchreport"
	"github.com/mmgate/mmgate/internal/tools/benchreport/browser"
)

// checkReportPage opens dir/index.html in headless Chromium, in a subtest
// "browser" that skips when Chromium is not installed, and fails on script
// errors or charts without data.
func checkReportPage(t *testing.T, dir string, charts ...string) {
	t.Helper()
	t.Run("browser", func(t *testing.T) {
		if _, err := browser.Find(); errors.Is(err, browser.ErrNotFound) {
			t.Skip("skipping: no Chromium on PATH (apt-get install -y chromium); the report page was not opened in a browser")
		}
		res, err := browser.Load(context.Background(), filepath.Join(dir, benchreport.HTMLFile), browser.Options{Screenshot: filepath.Join(dir, "screenshot.png")})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Problems(charts...) {
			t.Error(p)
		}
	})
}

func readReport(t *testing.T, dir string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, benchreport.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	checkNoNull(t, doc, "$")
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestBenchGatewayReport sweeps a fake gateway with --report: the default
// sweep 1,2,4,8, one JSON line per level on stdout, and a report whose page
// loads in a browser with data in every chart.
func TestBenchGatewayReport(t *testing.T) {
	fake := fakegw.New(fakegw.Options{ImageDelay: 3 * time.Millisecond, Inline: func(n int) bool { return n%5 == 0 }})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	images := writeBenchImages(t, 3, 64, 48)
	dir := filepath.Join(t.TempDir(), "report")

	code, out, errs := runBenchGatewayArgs(t, "--url", srv.URL, "--images", images, "--requests", "5", "--json", "--report", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 JSON lines (one per level), got:\n%s", out)
	}
	for i, l := range lines {
		var r struct{ Concurrency int }
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Concurrency != []int{1, 2, 4, 8}[i] {
			t.Errorf("line %d: %v %s", i, err, l)
		}
	}
	if !strings.Contains(errs, "report: "+filepath.Join(dir, "index.html")) {
		t.Errorf("stderr does not name the report:\n%s", errs)
	}
	var rep struct {
		Kind       string
		Host       benchreport.Host
		Parameters []benchreport.Param
		Runs       []struct {
			Concurrency int
			Image       struct{ OK int }
			Transport   struct {
				ReplyShm    int `json:"reply_shm"`
				ReplyInline int `json:"reply_inline"`
			}
			Stages []struct{ Stage string }
		}
	}
	readReport(t, dir, &rep)
	if rep.Kind != "gateway" || len(rep.Runs) != 4 || rep.Host.GoVersion == "" || rep.Host.MmgateVersion != version || rep.Host.CPUs < 1 {
		t.Errorf("report %+v", rep)
	}
	for _, r := range rep.Runs {
		if r.Image.OK != 5 || r.Transport.ReplyShm+r.Transport.ReplyInline != 5 || len(r.Stages) == 0 {
			t.Errorf("run %+v", r)
		}
	}
	if !slices.Contains(rep.Parameters, benchreport.Param{Name: "concurrency levels", Value: "1, 2, 4, 8"}) {
		t.Errorf("parameters %v", rep.Parameters)
	}
	checkReportPage(t, dir, "latency", "throughput", "ttft", "transport", "stages")

	// An explicit --concurrency means one level; the table output stays.
	dir2 := filepath.Join(t.TempDir(), "one")
	code, out, errs = runBenchGatewayArgs(t, "--url", srv.URL, "--images", images, "--requests", "3", "--concurrency", "3", "--no-probe", "--report", dir2)
	if code != 0 || !strings.Contains(out, "images/s") || strings.Count(out, "throughput") != 1 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	readReport(t, dir2, &rep)
	if len(rep.Runs) != 1 || rep.Runs[0].Concurrency != 3 {
		t.Errorf("runs %+v", rep.Runs)
	}

	// An explicit sweep, without a report, prints one table per level.
	code, out, _ = runBenchGatewayArgs(t, "--url", srv.URL, "--images", images, "--requests", "2", "--concurrency-sweep", "1,2", "--no-probe")
	if code != 0 || strings.Count(out, "throughput") != 2 {
		t.Errorf("sweep without report: exit %d\n%s", code, out)
	}

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--concurrency-sweep", "1,0"}, "--concurrency-sweep"},
		{[]string{"--concurrency-sweep", "2,2"}, "given twice"},
	} {
		code, _, errs := runBenchGatewayArgs(t, append([]string{"--url", srv.URL, "--images", images}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errs)
		}
	}
}

// TestBenchTransportReport runs a short real transport bench (its worker is
// this test binary run as mmgate) with --report.
func TestBenchTransportReport(t *testing.T) {
	t.Setenv(asMainEnv, "1")
	shmBase := "/dev/shm"
	if st, err := os.Stat(shmBase); err != nil || !st.IsDir() {
		t.Skip("no /dev/shm")
	}
	shmDir, err := os.MkdirTemp(shmBase, "mmgate-bench-report-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shmDir)
	dir := filepath.Join(t.TempDir(), "transport")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var outb, errb strings.Builder
	code := runBench(ctx, &stdio{in: strings.NewReader(""), out: &outb, err: &errb},
		[]string{"transport", "--sizes", "1,4", "--runs", "3", "--warmup", "1", "--shm-dir", shmDir, "--json", "--report", dir})
	if code != 0 {
		t.Fatalf("exit %d\nstderr %s", code, errb.String())
	}
	var printed struct {
		Results []benchreport.TransportResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(outb.String()), &printed); err != nil || len(printed.Results) != 8 {
		t.Fatalf("stdout %v: %s", err, outb.String())
	}
	var rep struct {
		Kind       string
		Parameters []benchreport.Param
		Results    []benchreport.TransportResult
	}
	readReport(t, dir, &rep)
	if rep.Kind != "transport" || !slices.Equal(rep.Results, printed.Results) {
		t.Errorf("report.json results %+v, stdout %+v", rep.Results, printed.Results)
	}
	if !slices.Contains(rep.Parameters, benchreport.Param{Name: "sizes", Value: "1 MiB, 4 MiB"}) {
		t.Errorf("parameters %v", rep.Parameters)
	}
	checkReportPage(t, dir, "time", "ratio")
}

// TestBenchGatewayReportEmbedded sweeps the real gateway (embedded worker)
// at two levels with a few small pictures and checks the report page.
func TestBenchGatewayReportEmbedded(t *testing.T) {
	url := startEmbeddedGateway(t).URL
	images := writeBenchImages(t, 8, 320, 240)
	dir := filepath.Join(t.TempDir(), "report")
	code, out, errs := runBenchGatewayArgs(t, "--url", url, "--images", images, "--requests", "4", "--concurrency-sweep", "1,2", "--report", dir)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	var rep struct {
		Runs []struct {
			Concurrency int
			Image       struct{ OK int }
			Server      struct {
				TensorCacheHits float64 `json:"tensor_cache_hits"`
			}
			Stages []struct{ Stage string }
		}
	}
	readReport(t, dir, &rep)
	if len(rep.Runs) != 2 {
		t.Fatalf("runs %+v", rep.Runs)
	}
	for _, r := range rep.Runs {
		// 8 files, 4 requests per level: the second level sends the other
		// four pictures, so nothing comes from the tensor cache.
		if r.Image.OK != 4 || len(r.Stages) == 0 || r.Server.TensorCacheHits != 0 {
			t.Errorf("run %+v", r)
		}
	}
	checkReportPage(t, dir, "latency", "throughput", "ttft", "transport", "stages")
}
