package browser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseTags(t *testing.T) {
	doc := `<html><head></head><body data-check="done" data-errors="1" data-error-messages="x &gt; y | &quot;q&quot;" data-x='a>b' hidden>` +
		`<svgx class="chart"></svgx><svg class="icon"></svg><svg class="chart wide" id="a" data-marks-expected="3" data-marks-drawn="2"></svg>` +
		`<svg id="b" class="chart" data-marks-expected="4"></svg></body></html>`
	attrs, ok := findTag(doc, "body")
	want := map[string]string{"data-check": "done", "data-errors": "1", "data-error-messages": `x > y | "q"`, "data-x": "a>b", "hidden": ""}
	if !ok || !reflect.DeepEqual(attrs, want) {
		t.Errorf("body attrs %v, want %v", attrs, want)
	}
	if _, _, ok := nextTag(`<body data-x="unterminated`, "body"); ok {
		t.Errorf("an unterminated attribute was accepted")
	}
	var ids []string
	rest := doc
	for {
		a, i, ok := nextTag(rest, "svg")
		if !ok {
			break
		}
		rest = rest[i:]
		if hasClass(a["class"], "chart") {
			ids = append(ids, a["id"])
		}
	}
	if !reflect.DeepEqual(ids, []string{"a", "b"}) {
		t.Errorf("chart ids %v", ids)
	}
}

func TestProblems(t *testing.T) {
	ok := &Result{Body: map[string]string{"data-check": "done", "data-errors": "0"}, Charts: []Chart{{"a", 3, 3}}}
	if p := ok.Problems("a"); p != nil {
		t.Errorf("fine page: %v", p)
	}
	for _, tc := range []struct {
		r    *Result
		want string
	}{
		{&Result{Body: map[string]string{}}, "did not finish"},
		{&Result{Body: map[string]string{"data-check": "done", "data-errors": "1", "data-error-messages": "boom"}, Charts: []Chart{{"a", 3, 3}}}, "boom"},
		{&Result{Body: map[string]string{"data-check": "done", "data-errors": "0"}, Charts: []Chart{{"a", 3, 2}}}, "2 of 3"},
		{&Result{Body: map[string]string{"data-check": "done", "data-errors": "0"}, Charts: []Chart{{"a", 0, 0}}}, "0 of 0"},
		{&Result{Body: map[string]string{"data-check": "done", "data-errors": "0"}, Charts: []Chart{{"b", 1, 1}}}, "chart a missing"},
	} {
		if p := strings.Join(tc.r.Problems("a"), "; "); !strings.Contains(p, tc.want) {
			t.Errorf("%+v: problems %q, want %q", tc.r, p, tc.want)
		}
	}
}

// TestLoadReadsDOMAfterLoad checks that Load returns the DOM as the page's
// load handler left it, and that a chart with fewer marks drawn than
// expected is a problem.
func TestLoadReadsDOMAfterLoad(t *testing.T) {
	if _, err := Find(); errors.Is(err, ErrNotFound) {
		t.Skip("skipping: no Chromium on PATH (apt-get install -y chromium)")
	}
	page := `<!DOCTYPE html><html><head><script>
window.addEventListener("load", function () {
  document.body.setAttribute("data-check", "done");
  document.body.setAttribute("data-errors", "0");
  var s = document.querySelector("svg.chart");
  s.setAttribute("data-marks-drawn", String(s.querySelectorAll(".mark").length));
});
</script></head><body><svg class="chart" id="c" viewBox="0 0 10 10" data-marks-expected="2"><rect class="mark" x="1" y="1" width="2" height="2"/></svg></body></html>`
	dir := t.TempDir()
	path := filepath.Join(dir, "p.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Load(context.Background(), path, Options{Screenshot: filepath.Join(dir, "p.png")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Checked() || len(res.Charts) != 1 || res.Charts[0] != (Chart{"c", 2, 1}) {
		t.Fatalf("result %+v %+v", res.Body, res.Charts)
	}
	if p := res.Problems("c"); len(p) != 1 || !strings.Contains(p[0], "1 of 2") {
		t.Errorf("problems %q", p)
	}
}
