package benchreport

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// chartKind is how a chart draws its series.
type chartKind int

const (
	// lines: one polyline with a point per value, for each series.
	lines chartKind = iota
	// bars: one bar per series side by side in each category.
	bars
	// stacked: the series' values piled up in each category.
	stacked
)

// chart is a chart's data. Values of every series align with the x
// positions: Categories (equally spaced) or, when XValues is set, numbers on
// a linear or logarithmic x axis (lines only). A NaN value is missing: it is
// neither drawn nor counted as a mark.
type chart struct {
	ID         string
	Title      string // the accessible name of the SVG
	XLabel     string
	YLabel     string
	Kind       chartKind
	Categories []string
	XValues    []float64
	XLog       bool
	YLog       bool
	XTick      func(float64) string // x tick label for XValues; nil: tickLabel
	Unit       string               // appended to values in tooltips
	Series     []series
	// RefY draws a dashed horizontal line at this value (NaN: none).
	RefY float64
}

type series struct {
	Name   string
	Color  string
	Dashed bool
	Values []float64
}

// palette is a colour-blind-friendly set (Okabe–Ito, then extras).
var palette = []string{"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442", "#000000", "#999999", "#7f3c8d"}

func color(i int) string { return palette[i%len(palette)] }

// Chart geometry, in viewBox units.
const (
	svgW     = 760.0
	svgH     = 320.0
	padLeft  = 70.0
	padRight = 20.0
	padTop   = 16.0
	padBot   = 52.0
)

// marks is the number of data marks the chart draws.
func (c *chart) marks() int {
	n := 0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if c.drawable(v) {
				n++
			}
		}
	}
	return n
}

// drawable says whether v gets a mark: finite, positive on a log axis, and
// non-zero for bars (a zero bar has no area).
func (c *chart) drawable(v float64) bool {
	switch {
	case !finite(v):
		return false
	case c.YLog && v <= 0:
		return false
	case c.Kind != lines && v <= 0:
		return false
	}
	return true
}

// svg draws the chart as an inline <svg> element.
func (c *chart) svg() template.HTML {
	x0, x1 := padLeft, svgW-padRight
	y0, y1 := svgH-padBot, padTop // y grows downwards
	var all []float64
	if c.Kind == stacked {
		for i := range c.positions() {
			t := 0.0
			for _, s := range c.Series {
				if v := s.Values[i]; c.drawable(v) {
					t += v
				}
			}
			all = append(all, t)
		}
	} else {
		for _, s := range c.Series {
			all = append(all, s.Values...)
		}
	}
	if finite(c.RefY) {
		all = append(all, c.RefY)
	}
	var ys scale
	if c.YLog {
		ys = logScale(all, y0, y1)
	} else {
		ys = linearScale(all, y0, y1)
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" id="%s" viewBox="0 0 %g %g" role="img" aria-label="%s" data-marks-expected="%d">`,
		esc(c.ID), svgW, svgH, esc(c.Title), c.marks())
	fmt.Fprintf(&b, `<title>%s</title>`, esc(c.Title))

	// Y grid and labels.
	b.WriteString(`<g class="grid">`)
	for _, t := range ys.ticks {
		y := ys.at(t)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x0, x1, y, y)
		fmt.Fprintf(&b, `<text class="ytick" x="%.1f" y="%.1f">%s</text>`, x0-6, y+4, esc(tickLabel(t)))
	}
	b.WriteString(`</g>`)
	fmt.Fprintf(&b, `<text class="axis-title" transform="translate(16 %.1f) rotate(-90)">%s</text>`, (y0+y1)/2, esc(c.YLabel))
	fmt.Fprintf(&b, `<text class="axis-title" x="%.1f" y="%.1f">%s</text>`, (x0+x1)/2, svgH-8, esc(c.XLabel))
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x0, x1, y0, y0)
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x0, x0, y0, y1)

	// X positions and labels.
	xs := c.xPositions(x0, x1)
	for i, x := range xs {
		lab := ""
		if c.XValues != nil {
			f := c.XTick
			if f == nil {
				f = tickLabel
			}
			lab = f(c.XValues[i])
		} else {
			lab = c.Categories[i]
		}
		fmt.Fprintf(&b, `<text class="xtick" x="%.1f" y="%.1f">%s</text>`, x, y0+18, esc(lab))
	}
	if finite(c.RefY) {
		y := ys.at(c.RefY)
		fmt.Fprintf(&b, `<line class="ref" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x0, x1, y, y)
	}

	switch c.Kind {
	case lines:
		c.drawLines(&b, xs, ys)
	case bars:
		c.drawBars(&b, xs, ys, x1-x0)
	case stacked:
		c.drawStacked(&b, xs, ys, x1-x0)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// positions returns one index per x position.
func (c *chart) positions() []int {
	n := len(c.Categories)
	if c.XValues != nil {
		n = len(c.XValues)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// xPositions are the pixel x of each position: the middle of equal bands for
// categories, the scale position (inset) for numeric x.
func (c *chart) xPositions(x0, x1 float64) []float64 {
	n := len(c.positions())
	out := make([]float64, n)
	if c.XValues == nil || n < 2 {
		band := (x1 - x0) / float64(max(n, 1))
		for i := range out {
			out[i] = x0 + (float64(i)+0.5)*band
		}
		return out
	}
	inset := 24.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range c.XValues {
		if c.XLog {
			v = math.Log10(v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for i, v := range c.XValues {
		if c.XLog {
			v = math.Log10(v)
		}
		f := 0.5
		if hi > lo {
			f = (v - lo) / (hi - lo)
		}
		out[i] = x0 + inset + f*(x1-x0-2*inset)
	}
	return out
}

func (c *chart) tooltip(s series, i int, v float64) string {
	at := ""
	if c.XValues != nil {
		f := c.XTick
		if f == nil {
			f = tickLabel
		}
		at = f(c.XValues[i])
	} else {
		at = c.Categories[i]
	}
	return fmt.Sprintf("%s, %s: %s%s", s.Name, at, num(v), c.Unit)
}

func (c *chart) drawLines(b *strings.Builder, xs []float64, ys scale) {
	for _, s := range c.Series {
		var d strings.Builder
		pen := "M"
		for i, v := range s.Values {
			if !c.drawable(v) {
				pen = "M"
				continue
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", pen, xs[i], ys.at(v))
			pen = "L"
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		if d.Len() > 0 {
			fmt.Fprintf(b, `<path class="line" d="%s" stroke="%s"%s/>`, strings.TrimSpace(d.String()), s.Color, dash)
		}
		for i, v := range s.Values {
			if !c.drawable(v) {
				continue
			}
			fill := s.Color
			if s.Dashed {
				fill = "#fff"
			}
			fmt.Fprintf(b, `<circle class="mark" cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" data-v="%s"><title>%s</title></circle>`,
				xs[i], ys.at(v), fill, s.Color, num(v), esc(c.tooltip(s, i, v)))
		}
	}
}

func (c *chart) drawBars(b *strings.Builder, xs []float64, ys scale, width float64) {
	band := width / float64(max(len(xs), 1))
	inner := band * 0.7
	w := inner / float64(max(len(c.Series), 1))
	base := ys.at(math.Max(ys.d0, 0))
	if ys.log {
		base = ys.r0
	}
	for si, s := range c.Series {
		for i, v := range s.Values {
			if !c.drawable(v) {
				continue
			}
			x := xs[i] - inner/2 + float64(si)*w
			y := ys.at(v)
			fmt.Fprintf(b, `<rect class="mark" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" data-v="%s"><title>%s</title></rect>`,
				x+1, y, math.Max(w-2, 1), math.Max(base-y, 0.5), s.Color, num(v), esc(c.tooltip(s, i, v)))
		}
	}
}

func (c *chart) drawStacked(b *strings.Builder, xs []float64, ys scale, width float64) {
	band := width / float64(max(len(xs), 1))
	w := math.Min(band*0.55, 120)
	for i, x := range xs {
		acc := 0.0
		for _, s := range c.Series {
			v := s.Values[i]
			if !c.drawable(v) {
				continue
			}
			yTop, yBot := ys.at(acc+v), ys.at(acc)
			acc += v
			fmt.Fprintf(b, `<rect class="mark" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" data-v="%s"><title>%s</title></rect>`,
				x-w/2, yTop, w, math.Max(yBot-yTop, 0.5), s.Color, num(v), esc(c.tooltip(s, i, v)))
		}
	}
}

func esc(s string) string { return html.EscapeString(s) }
