package benchreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/testutil/jsontest"
	"github.com/mmgate/mmgate/internal/tools/benchgw"
)

func loadGateway(t *testing.T) *Gateway {
	t.Helper()
	var g Gateway
	readJSON(t, "gateway.json", &g)
	return &g
}

func loadTransport(t *testing.T) *Transport {
	t.Helper()
	var tr Transport
	readJSON(t, "transport.json", &tr)
	return &tr
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

var expectedRE = regexp.MustCompile(`<svg class="chart" id="([^"]+)"[^>]*data-marks-expected="(\d+)"`)

// chartMarks returns the expected mark count of each chart in page.
func chartMarks(page string) map[string]int {
	out := map[string]int{}
	for _, m := range expectedRE.FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// checkSelfContained fails when the page refers to anything outside itself.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"src=", "http://", "https://", "url(", "@import", "<link", "<iframe", "NaN", "Inf"} {
		if strings.Contains(page, bad) {
			i := strings.Index(page, bad)
			t.Errorf("page contains %q: …%s…", bad, page[max(0, i-60):min(len(page), i+60)])
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link to %q leaves the page", m[1])
		}
	}
}

func TestRenderGateway(t *testing.T) {
	g := loadGateway(t)
	var b bytes.Buffer
	if err := RenderGatewayHTML(&b, g); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The canned report's URL is a loopback http URL; it appears as text.
	checkSelfContained(t, strings.ReplaceAll(page, "http://127.0.0.1:8080", "URL"))
	// 4 levels: latency 4 series × 4 points; throughput 4 bars; TTFT 16
	// points; transport: 4 shm + 2 inline (levels 2 and 8) segments; stages 7 × 4.
	want := map[string]int{"latency": 16, "throughput": 4, "ttft": 16, "transport": 6, "stages": 28}
	got := chartMarks(page)
	if len(got) != len(want) {
		t.Errorf("charts %v, want %v", got, want)
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("chart %s: %d marks, want %d", id, got[id], n)
		}
	}
	for _, s := range []string{
		"<title>mmgate gateway benchmark (canned test data)</title>", "Test CPU @ 2.0GHz", "go1.26.8", "0.1.0-dev",
		"2026-11-30 12:00:00 UTC", "concurrency sweep", "normalize_patchify", "overloaded", "too many requests in flight &lt;256&gt;",
		`id="sec-errors"`, "25.30 images/s at concurrency 8",
	} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

func TestRenderGatewayEscapes(t *testing.T) {
	g := loadGateway(t)
	g.Title = `<script>alert(1)</script>`
	g.Runs = g.Runs[:1]
	g.Runs[0].Model = `"><img src=x onerror=alert(1)>`
	g.Runs[0].Stages = []benchgw.Stage{{Stage: `</svg><script>x()</script>`, Count: 1, MeanMS: 2}}
	var b bytes.Buffer
	if err := RenderGatewayHTML(&b, g); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Count(page, "<script>") != 1 || strings.Contains(page, "<img") || strings.Contains(page, "</svg><script>") {
		t.Errorf("untrusted text reached the page unescaped")
	}
}

func TestRenderGatewayWithoutMetrics(t *testing.T) {
	g := loadGateway(t)
	for _, r := range g.Runs {
		r.Stages = []benchgw.Stage{}
		r.Transport.Metrics = []benchgw.TransportSeries{}
		r.MetricsError = "GET /metrics: 404"
		r.TextProbe = benchgw.Kind{}
	}
	var b bytes.Buffer
	if err := RenderGatewayHTML(&b, g); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	got := chartMarks(page)
	if _, ok := got["stages"]; ok {
		t.Errorf("a stage chart without stage data")
	}
	// Without probes, only the three image series have points.
	if got["latency"] != 12 || got["ttft"] != 12 {
		t.Errorf("marks %v", got)
	}
	if !strings.Contains(page, "metrics unavailable: GET /metrics: 404") {
		t.Errorf("the missing metrics are not explained")
	}
	checkSelfContained(t, strings.ReplaceAll(page, "http://127.0.0.1:8080", "URL"))
}

func TestRenderTransport(t *testing.T) {
	tr := loadTransport(t)
	var b bytes.Buffer
	if err := RenderTransportHTML(&b, tr); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkSelfContained(t, page)
	// 5 sizes × 4 paths × (median, p90); ratio: 5 points.
	if got := chartMarks(page); got["time"] != 40 || got["ratio"] != 5 || len(got) != 2 {
		t.Errorf("marks %v", got)
	}
	for _, s := range []string{"256 MiB", "inline-tcp / shm", "memcpy", "1 MiB"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	// 1 MiB: inline-tcp 2.5 ms, shm 0.8 ms → 3.125×.
	if !strings.Contains(page, "<td>3.125×</td>") {
		t.Errorf("ratio row for 1 MiB missing")
	}

	// Without the shm path there is no ratio chart, and the page says why.
	var only []TransportResult
	for _, r := range tr.Results {
		if r.Path != PathShm {
			only = append(only, r)
		}
	}
	tr.Results = only
	b.Reset()
	if err := RenderTransportHTML(&b, tr); err != nil {
		t.Fatal(err)
	}
	if got := chartMarks(b.String()); got["time"] != 30 || len(got) != 1 {
		t.Errorf("without shm: marks %v", got)
	}
	if !strings.Contains(b.String(), "Not measured") {
		t.Errorf("the missing ratio is not explained")
	}
}

func TestRenderNoData(t *testing.T) {
	if err := RenderGatewayHTML(&bytes.Buffer{}, &Gateway{}); !errors.Is(err, ErrNoData) {
		t.Errorf("empty gateway report: %v", err)
	}
	if err := RenderTransportHTML(&bytes.Buffer{}, &Transport{}); !errors.Is(err, ErrNoData) {
		t.Errorf("empty transport report: %v", err)
	}
}

func TestChartSkipsMissingValues(t *testing.T) {
	c := &chart{ID: "x", Kind: lines, Categories: []string{"a", "b", "c"}, YLog: true, RefY: math.NaN(),
		Series: []series{{Name: "s", Color: color(0), Values: []float64{1, math.NaN(), 0}}, {Name: "t", Color: color(1), Values: []float64{math.Inf(1), 3, 4}}}}
	if c.marks() != 3 {
		t.Errorf("marks %d, want 3 (NaN, Inf and 0 on a log axis skipped)", c.marks())
	}
	svg := string(c.svg())
	if strings.Count(svg, `class="mark"`) != 3 || strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Errorf("svg: %s", svg)
	}
	// A gap splits the line: a new M after the missing value.
	c.YLog = false
	c.Series = c.Series[:1]
	c.Series[0].Values = []float64{1, math.NaN(), 2}
	if svg := string(c.svg()); !regexp.MustCompile(`d="M[\d. ]+M[\d. ]+"`).MatchString(svg) {
		t.Errorf("gap not kept: %s", svg)
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gw")
	g := loadGateway(t)
	if err := WriteGateway(dir, g); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["kind"] != KindGateway || len(doc["runs"].([]any)) != 4 {
		t.Errorf("report.json: kind %v, %d runs", doc["kind"], len(doc["runs"].([]any)))
	}
	checkNoNull(t, doc, "$")
	var back Gateway
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := GatewayJSON(&back)
	if !bytes.Equal(again, b) {
		t.Errorf("report.json does not round-trip")
	}
	if st, err := os.Stat(filepath.Join(dir, HTMLFile)); err != nil || st.Size() < 10000 {
		t.Errorf("index.html: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}

	tdir := filepath.Join(t.TempDir(), "tr")
	if err := WriteTransport(tdir, &Transport{Results: []TransportResult{{Bytes: 1 << 20, Path: PathShm, MedianMS: 1, P90MS: 2}}}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(tdir, JSONFile))
	doc = nil
	json.Unmarshal(b, &doc)
	checkNoNull(t, doc, "$")
	if doc["kind"] != KindTransport {
		t.Errorf("transport kind %v", doc["kind"])
	}
	if err := WriteTransport(filepath.Join(t.TempDir(), "none"), &Transport{}); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
}

// checkNoNull fails when a JSON document has a null anywhere or a key
// that is not snake_case.
func checkNoNull(t *testing.T, v any, path string) {
	t.Helper()
	jsontest.CheckConventions(t, v, path)
}
