package benchreport

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/tools/benchreport/browser"
)

var keepDir = flag.String("keep", "", "write the rendered pages and their screenshots under this directory")

// outDir is where a browser test writes its page: -keep DIR/name or a
// temporary directory.
func outDir(t *testing.T, name string) string {
	if *keepDir == "" {
		return t.TempDir()
	}
	d := filepath.Join(*keepDir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func needBrowser(t *testing.T) {
	t.Helper()
	if _, err := browser.Find(); errors.Is(err, browser.ErrNotFound) {
		t.Skip("skipping: no Chromium on PATH (apt-get install -y chromium); the report pages were not checked in a browser")
	}
}

// TestBrowserCanned loads the canned reports in headless Chromium: the page
// loads without script errors and every chart has the marks the renderer
// drew, laid out inside the chart.
func TestBrowserCanned(t *testing.T) {
	needBrowser(t)
	for _, tc := range []struct {
		name   string
		write  func(dir string) error
		charts []string
	}{
		{"gateway", func(dir string) error { return WriteGateway(dir, loadGateway(t)) }, []string{"latency", "throughput", "ttft", "transport", "stages"}},
		{"transport", func(dir string) error { return WriteTransport(dir, loadTransport(t)) }, []string{"time", "ratio"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := outDir(t, tc.name)
			if err := tc.write(dir); err != nil {
				t.Fatal(err)
			}
			res, err := browser.Load(context.Background(), filepath.Join(dir, HTMLFile), browser.Options{Screenshot: filepath.Join(dir, "screenshot.png")})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Problems(tc.charts...) {
				t.Error(p)
			}
		})
	}
}

// TestBrowserCatchesBrokenPages makes sure the page's check can fail: a
// script error and a mark moved out of its chart are both reported.
func TestBrowserCatchesBrokenPages(t *testing.T) {
	needBrowser(t)
	var b bytes.Buffer
	if err := RenderTransportHTML(&b, loadTransport(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	i := strings.Index(page, `<circle class="mark" cx="`)
	if i < 0 {
		t.Fatal("no point in the page")
	}
	// Move the first point out of the chart (its old x goes to data-moved).
	page = page[:i] + `<circle class="mark" cx="-400" data-moved="` + page[i+len(`<circle class="mark" cx="`):]
	page = strings.Replace(page, "</body>", "<script>notDefinedAnywhere();</script></body>", 1)
	path := filepath.Join(t.TempDir(), HTMLFile)
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := browser.Load(context.Background(), path, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if errs := res.Errors(); len(errs) != 1 || !strings.Contains(errs[0], "notDefinedAnywhere") {
		t.Errorf("script errors %q, want the ReferenceError", errs)
	}
	var time browser.Chart
	for _, c := range res.Charts {
		if c.ID == "time" {
			time = c
		}
	}
	if time.Expected != 40 || time.Drawn != 39 {
		t.Errorf("time chart: %+v, want 39 of 40 marks inside the chart", time)
	}
	if p := strings.Join(res.Problems("time", "ratio"), "; "); !strings.Contains(p, "notDefinedAnywhere") || !strings.Contains(p, "39 of 40") {
		t.Errorf("problems %q", p)
	}
}
