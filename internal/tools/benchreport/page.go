package benchreport

import (
	"html/template"
	"io"
	"slices"
	"time"
)

// page is what the HTML template draws.
type page struct {
	Title     string
	Kind      string
	Generated string
	Intro     string
	Host      []Param
	Params    []Param
	Summary   []Param
	Sections  []section
}

// section is one chart (or none) with its legend, a table of its numbers and
// notes.
type section struct {
	ID     string
	Title  string
	Intro  string
	Chart  *chart
	Table  table
	Notes  []string
	Legend []legendItem
}

type legendItem struct {
	Name   string
	Color  string
	Dashed bool
}

type table struct {
	Head []string
	Rows [][]string
}

// SVG draws the section's chart (empty without one).
func (s section) SVG() template.HTML {
	if s.Chart == nil {
		return ""
	}
	return s.Chart.svg()
}

// legendOf lists a chart's series that have at least one mark.
func legendOf(c *chart) []legendItem {
	var out []legendItem
	for _, s := range c.Series {
		if !slices.ContainsFunc(s.Values, c.drawable) {
			continue
		}
		out = append(out, legendItem{Name: s.Name, Color: s.Color, Dashed: s.Dashed})
	}
	return out
}

func hostParams(h Host) []Param {
	ps := []Param{}
	add := func(name, v string) {
		if v != "" {
			ps = append(ps, Param{name, v})
		}
	}
	add("host", h.Hostname)
	add("OS / arch", h.OS+" / "+h.Arch)
	add("CPU", h.CPUModel)
	add("cores (logical)", itoa(h.CPUs))
	add("GOMAXPROCS", itoa(h.GOMAXPROCS))
	add("Go", h.GoVersion)
	add("mmgate", h.MmgateVersion)
	if h.Cgo {
		add("cgo", "yes")
	} else {
		add("cgo", "no")
	}
	return ps
}

// renderPage parses the page template on use: a report renders one page,
// and the binary's other commands need not parse it at start.
func renderPage(w io.Writer, p *page) error {
	return template.Must(template.New("page").Parse(pageSource)).Execute(w, p)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

const pageSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mmgate bench {{.Kind}}">
<title>{{.Title}}</title>
<script>` + checkScript + `</script>
<style>` + pageCSS + `</style>
</head>
<body data-kind="{{.Kind}}" data-check="pending">
<header>
<h1>{{.Title}}</h1>
<p class="date">Generated {{.Generated}}</p>
{{if .Intro}}<p>{{.Intro}}</p>{{end}}
</header>
<div class="facts">
<section><h2>Run parameters</h2>
<table class="kv">{{range .Params}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>{{end}}</table></section>
<section><h2>Host</h2>
<table class="kv">{{range .Host}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>{{end}}</table></section>
{{if .Summary}}<section><h2>Summary</h2>
<table class="kv">{{range .Summary}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>{{end}}</table></section>{{end}}
</div>
<nav><ul>{{range .Sections}}<li><a href="#sec-{{.ID}}">{{.Title}}</a></li>{{end}}</ul></nav>
{{range .Sections}}
<section class="report" id="sec-{{.ID}}">
<h2>{{.Title}}</h2>
{{if .Intro}}<p>{{.Intro}}</p>{{end}}
{{if .Chart}}<figure>{{.SVG}}
{{if .Legend}}<figcaption class="legend">{{range .Legend}}<span class="key"><svg width="28" height="12" aria-hidden="true"><line x1="2" x2="26" y1="6" y2="6" stroke="{{.Color}}" stroke-width="3"{{if .Dashed}} stroke-dasharray="5 3"{{end}}/></svg>{{.Name}}</span> {{end}}</figcaption>{{end}}
</figure>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{if .Table.Rows}}<div class="scroll"><table class="data">
<thead><tr>{{range .Table.Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody>
</table></div>{{end}}
</section>
{{end}}
<footer>Data: report.json beside this page. Hover a point or bar for its value.</footer>
</body>
</html>
`

// checkScript records script errors and, after load, counts the chart
// marks the browser laid out (see the package documentation).
const checkScript = `
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push(String((e && e.message) || (e && e.target && (e.target.src || e.target.href)) || "error"));
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    errors.push("unhandled rejection: " + String(e && e.reason));
  });
  window.addEventListener("load", function () {
    var body = document.body, total = 0, per = [];
    try {
      var charts = document.querySelectorAll("svg.chart");
      for (var i = 0; i < charts.length; i++) {
        var svg = charts[i], vb = svg.viewBox.baseVal, n = 0;
        var marks = svg.querySelectorAll(".mark");
        for (var j = 0; j < marks.length; j++) {
          var v = parseFloat(marks[j].getAttribute("data-v"));
          var bb = marks[j].getBBox();
          if (isFinite(v) && bb.width > 0 && bb.height > 0 &&
              bb.x >= vb.x && bb.y >= vb.y && bb.x + bb.width <= vb.x + vb.width && bb.y + bb.height <= vb.y + vb.height) {
            n++;
          }
        }
        svg.setAttribute("data-marks-drawn", String(n));
        per.push(svg.id + ":" + n);
        total += n;
      }
      body.setAttribute("data-charts", String(charts.length));
    } catch (err) {
      errors.push("chart check: " + err);
    }
    body.setAttribute("data-marks", String(total));
    body.setAttribute("data-chart-marks", per.join(" "));
    body.setAttribute("data-errors", String(errors.length));
    body.setAttribute("data-error-messages", errors.join(" | "));
    body.setAttribute("data-check", "done");
  });
})();
`

const pageCSS = `
:root { --fg: #1d2430; --muted: #5b6573; --line: #d8dde4; --bg: #fff; --band: #f4f6f9; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 980px; padding: 24px 20px 48px; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; }
.facts h2 { font-size: 15px; margin: 0 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.date { color: var(--muted); margin: 0 0 12px; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(270px, 1fr)); gap: 16px 28px; padding: 14px 16px; background: var(--band); border-radius: 8px; }
table { border-collapse: collapse; }
table.kv { width: 100%; table-layout: fixed; }
table.kv th { width: 46%; text-align: left; font-weight: 600; padding: 1px 14px 1px 0; vertical-align: top; }
table.kv td { padding: 1px 0; overflow-wrap: anywhere; vertical-align: top; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 18px 0 0; }
nav a { color: #0b5cad; text-decoration: none; }
section.report { border-top: 1px solid var(--line); margin-top: 22px; }
figure { margin: 8px 0; }
svg.chart { width: 100%; height: auto; display: block; font-size: 12px; }
svg.chart .grid line { stroke: #e6e9ee; }
svg.chart .axis { stroke: #7a8491; }
svg.chart .ref { stroke: #d55e00; stroke-dasharray: 4 4; }
svg.chart .ytick { text-anchor: end; fill: var(--muted); }
svg.chart .xtick { text-anchor: middle; fill: var(--muted); }
svg.chart .axis-title { text-anchor: middle; fill: var(--fg); font-weight: 600; }
svg.chart .line { fill: none; stroke-width: 2.2; }
svg.chart circle.mark { stroke-width: 2; }
svg.chart .mark:hover { opacity: .75; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; color: var(--fg); font-size: 13px; padding-left: 70px; }
.legend .key { display: inline-flex; align-items: center; gap: 4px; }
.note { color: var(--muted); font-size: 13.5px; }
.scroll { overflow-x: auto; }
table.data { margin: 8px 0; font-size: 13.5px; font-variant-numeric: tabular-nums; }
table.data th, table.data td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
table.data th:first-child, table.data td:first-child { text-align: left; }
table.data thead th { background: var(--band); }
footer { margin-top: 32px; color: var(--muted); font-size: 13px; }
`
