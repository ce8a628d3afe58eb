// Package browser loads a report page in headless Chromium and reads back
// what the page's check script wrote on <body> (see package benchreport):
// whether scripts failed and how many chart marks were laid out. It also
// takes screenshots. It is used by tests and needs a Chromium binary
// (Debian package "chromium"); Find says whether one is installed.
//
// Each call starts its own browser process with a fresh profile directory
// and ends it (with its whole process group on Unix) before returning; calls
// are safe to make concurrently.
package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrNotFound: no Chromium binary is on PATH.
var ErrNotFound = errors.New("chromium not found (install the Debian package chromium)")

// Candidates are the binary names Find looks for, in order.
var Candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"}

// Find returns the path of the first Chromium binary on PATH.
func Find() (string, error) {
	for _, n := range Candidates {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Options configures a Load. Zero values mean the defaults.
type Options struct {
	// Binary is the browser to run (default: Find).
	Binary string
	// Timeout bounds each browser run (default 30s).
	Timeout time.Duration
	// Screenshot, when set, is a PNG path: a second run takes a screenshot
	// of the page there.
	Screenshot string
	// Width and Height are the window size for the screenshot (default
	// 1100×2600).
	Width, Height int
}

// Result is what the loaded page reported.
type Result struct {
	// Body holds the attributes of the <body> element after load.
	Body map[string]string
	// Charts lists each <svg class="chart"> with its marks.
	Charts []Chart
	// DOM is the serialised document after load.
	DOM string
}

// Chart is one chart's mark counts: written by the renderer (Expected) and
// counted by the page's script in the browser (Drawn).
type Chart struct {
	ID       string
	Expected int
	Drawn    int
}

// Checked says whether the page's check script ran to the end.
func (r *Result) Checked() bool { return r.Body["data-check"] == "done" }

// Errors returns the script errors the page recorded.
func (r *Result) Errors() []string {
	if r.Body["data-errors"] == "0" || r.Body["data-error-messages"] == "" {
		return nil
	}
	return strings.Split(r.Body["data-error-messages"], " | ")
}

// Load opens the HTML file at path (file://) in headless Chromium and
// returns the DOM it had after the load event.
func Load(ctx context.Context, path string, opts Options) (*Result, error) {
	if opts.Binary == "" {
		b, err := Find()
		if err != nil {
			return nil, err
		}
		opts.Binary = b
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Width <= 0 {
		opts.Width = 1100
	}
	if opts.Height <= 0 {
		opts.Height = 2600
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	url := "file://" + abs
	dom, err := run(ctx, opts, "--dump-dom", url)
	if err != nil {
		return nil, err
	}
	res := &Result{DOM: string(dom), Body: map[string]string{}}
	if attrs, ok := findTag(res.DOM, "body"); ok {
		res.Body = attrs
	} else {
		return nil, fmt.Errorf("browser: no <body> in the dumped DOM of %s", url)
	}
	rest := res.DOM
	for {
		attrs, i, ok := nextTag(rest, "svg")
		if !ok {
			break
		}
		rest = rest[i:]
		if !hasClass(attrs["class"], "chart") {
			continue
		}
		c := Chart{ID: attrs["id"], Expected: -1, Drawn: -1}
		if n, err := strconv.Atoi(attrs["data-marks-expected"]); err == nil {
			c.Expected = n
		}
		if n, err := strconv.Atoi(attrs["data-marks-drawn"]); err == nil {
			c.Drawn = n
		}
		res.Charts = append(res.Charts, c)
	}
	if opts.Screenshot != "" {
		shot, err := filepath.Abs(opts.Screenshot)
		if err != nil {
			return nil, err
		}
		if _, err := run(ctx, opts, "--screenshot="+shot, "--hide-scrollbars",
			fmt.Sprintf("--window-size=%d,%d", opts.Width, opts.Height), url); err != nil {
			return nil, err
		}
		if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
			return nil, fmt.Errorf("browser: no screenshot written to %s", shot)
		}
	}
	return res, nil
}

// run starts the browser with a fresh profile and returns its stdout.
func run(ctx context.Context, opts Options, args ...string) ([]byte, error) {
	profile, err := os.MkdirTemp("", "mmgate-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--mute-audio",
		"--user-data-dir=" + profile,
	}
	cmd := exec.CommandContext(ctx, opts.Binary, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Dir = profile
	setGroup(cmd)
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("browser: %s did not finish within %s: %w; stderr:\n%s", opts.Binary, opts.Timeout, ctx.Err(), tail(errb.String(), 4000))
	}
	if err != nil {
		return nil, fmt.Errorf("browser: %s: %w; stderr:\n%s", opts.Binary, err, tail(errb.String(), 4000))
	}
	return out.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func hasClass(list, c string) bool {
	for _, f := range strings.Fields(list) {
		if f == c {
			return true
		}
	}
	return false
}

// Problems lists what is wrong with a loaded report page: the check script
// did not finish, scripts failed, the charts are not exactly those named, or
// a chart has no marks or fewer laid out than the renderer drew. Nil means
// the page is fine.
func (r *Result) Problems(charts ...string) []string {
	if !r.Checked() {
		return []string{fmt.Sprintf("the page's check script did not finish (body attributes %v)", r.Body)}
	}
	var out []string
	if errs := r.Errors(); len(errs) > 0 || r.Body["data-errors"] != "0" {
		out = append(out, fmt.Sprintf("script errors: %q", errs))
	}
	byID := map[string]Chart{}
	for _, c := range r.Charts {
		byID[c.ID] = c
	}
	if len(r.Charts) != len(charts) {
		out = append(out, fmt.Sprintf("charts %+v, want %v", r.Charts, charts))
	}
	for _, id := range charts {
		c, ok := byID[id]
		switch {
		case !ok:
			out = append(out, "chart "+id+" missing")
		case c.Expected < 1 || c.Drawn != c.Expected:
			out = append(out, fmt.Sprintf("chart %s: %d of %d marks laid out", id, c.Drawn, c.Expected))
		}
	}
	return out
}
