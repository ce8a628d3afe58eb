package benchreport

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// RenderTransportHTML writes the transport report page.
func RenderTransportHTML(w io.Writer, t *Transport) error {
	p, err := transportPage(t)
	if err != nil {
		return err
	}
	return renderPage(w, p)
}

// pathOrder is the display order of the known paths; others follow in the
// order they appear.
var pathOrder = []string{PathInlineTCP, PathInlineUnix, PathShm, PathShmReuse, PathMemcpy}

func transportPage(t *Transport) (*page, error) {
	if len(t.Results) == 0 {
		return nil, fmt.Errorf("transport report: %w", ErrNoData)
	}
	title := t.Title
	if title == "" {
		title = "mmgate transport benchmark"
	}
	g := newResultGrid(t.Results)
	ratioSec, ratios := g.ratioSection()
	summary := []Param{{"sizes", fmt.Sprint(len(g.sizes))}, {"paths", fmt.Sprint(len(g.paths))}}
	if ratios != nil {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range ratios {
			if finite(r) {
				lo, hi = math.Min(lo, r), math.Max(hi, r)
			}
		}
		summary = append(summary, Param{"inline-tcp / shm", fmt.Sprintf("%s× – %s×", num(lo), num(hi))})
	}
	return &page{
		Title: title, Kind: KindTransport, Generated: formatTime(t.GeneratedAt),
		Intro: "Time to move one tensor from a producer to a worker process on the same host, by tensor size and transport path.",
		Host:  hostParams(t.Host), Params: t.Parameters, Summary: summary,
		Sections: []section{g.timeSection(), ratioSec},
	}, nil
}

// resultGrid is the transport results by size (increasing) and path (in
// display order).
type resultGrid struct {
	sizes []int
	paths []string
	xs    []float64 // the sizes as chart x values
	at    map[[2]any]TransportResult
}

func newResultGrid(res []TransportResult) *resultGrid {
	g := &resultGrid{at: map[[2]any]TransportResult{}}
	for _, r := range res {
		if !slices.Contains(g.sizes, r.Bytes) {
			g.sizes = append(g.sizes, r.Bytes)
		}
		if !slices.Contains(g.paths, r.Path) {
			g.paths = append(g.paths, r.Path)
		}
		g.at[[2]any{r.Bytes, r.Path}] = r
	}
	slices.Sort(g.sizes)
	slices.SortStableFunc(g.paths, func(a, b string) int { return rank(a) - rank(b) })
	g.xs = make([]float64, len(g.sizes))
	for i, n := range g.sizes {
		g.xs[i] = float64(n)
	}
	return g
}

func (g *resultGrid) get(n int, p string) (TransportResult, bool) {
	r, ok := g.at[[2]any{n, p}]
	return r, ok
}

// timeSection is the time by size, one colour per path: median solid, p90
// dashed; and the table of every result.
func (g *resultGrid) timeSection() section {
	c := &chart{ID: "time", Title: "Transfer time by tensor size and path", XLabel: "tensor size (log scale)",
		YLabel: "time (ms, log scale)", Kind: lines, XValues: g.xs, XLog: true, YLog: true, XTick: sizeLabel, Unit: " ms", RefY: math.NaN()}
	for i, p := range g.paths {
		med, p90 := make([]float64, len(g.sizes)), make([]float64, len(g.sizes))
		for j, n := range g.sizes {
			med[j], p90[j] = math.NaN(), math.NaN()
			if r, ok := g.get(n, p); ok {
				med[j], p90[j] = r.MedianMS, r.P90MS
			}
		}
		c.Series = append(c.Series,
			series{Name: p + " median", Color: color(i), Values: med},
			series{Name: p + " p90", Color: color(i), Dashed: true, Values: p90})
	}
	tt := table{Head: []string{"size", "path", "median ms", "p90 ms", "GiB/s (median)", "inline-tcp / this", "this / memcpy"}}
	for _, n := range g.sizes {
		for _, p := range g.paths {
			r, ok := g.get(n, p)
			if !ok {
				continue
			}
			speed, floor, rate := "–", "–", "–"
			if x, ok := g.get(n, PathInlineTCP); ok && r.MedianMS > 0 {
				speed = num(x.MedianMS/r.MedianMS) + "×"
			}
			if m, ok := g.get(n, PathMemcpy); ok && m.MedianMS > 0 {
				floor = num(r.MedianMS/m.MedianMS) + "×"
			}
			if r.MedianMS > 0 {
				rate = num(float64(n) / (1 << 30) / (r.MedianMS / 1e3))
			}
			tt.Rows = append(tt.Rows, []string{sizeLabel(float64(n)), p, num(r.MedianMS), num(r.P90MS), rate, speed, floor})
		}
	}
	return section{ID: "time", Title: "Time by tensor size and path", Chart: c, Legend: legendOf(c), Table: tt,
		Intro: "From the producer starting to write the tensor to the worker having read every byte (median solid, 90th percentile dashed). memcpy is the floor: fill a buffer, copy it, read the copy."}
}

// ratioSection is inline-tcp / shm by size, and the ratios (NaN where a
// size lacks either path; nil when no size has both).
func (g *resultGrid) ratioSection() (section, []float64) {
	sec := section{ID: "ratio", Title: "Speed-up of shared memory over inline TCP",
		Intro: "Median time inline over TCP divided by median time through a shared-memory segment, per size: above 1× shared memory is faster."}
	ratios := make([]float64, len(g.sizes))
	rt := table{Head: []string{"size", "inline-tcp median ms", "shm median ms", "inline-tcp / shm"}}
	have := false
	for j, n := range g.sizes {
		ratios[j] = math.NaN()
		x, ok1 := g.get(n, PathInlineTCP)
		s, ok2 := g.get(n, PathShm)
		if !ok1 || !ok2 || s.MedianMS <= 0 {
			continue
		}
		ratios[j] = x.MedianMS / s.MedianMS
		have = true
		rt.Rows = append(rt.Rows, []string{sizeLabel(float64(n)), num(x.MedianMS), num(s.MedianMS), num(ratios[j]) + "×"})
	}
	if !have {
		sec.Notes = []string{"Not measured: the run did not include both the inline-tcp and the shm path."}
		return sec, nil
	}
	rc := &chart{ID: "ratio", Title: "inline-tcp / shm median time by tensor size", XLabel: "tensor size (log scale)",
		YLabel: "inline-tcp / shm (×)", Kind: lines, XValues: g.xs, XLog: true, XTick: sizeLabel, Unit: "×", RefY: 1}
	rc.Series = []series{{Name: "inline-tcp / shm", Color: color(4), Values: ratios}}
	sec.Chart, sec.Legend, sec.Table = rc, legendOf(rc), rt
	sec.Notes = []string{"The dashed line marks 1× (equal time)."}
	return sec, ratios
}

func rank(p string) int {
	if i := slices.Index(pathOrder, p); i >= 0 {
		return i
	}
	return len(pathOrder)
}
