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
	var sizes []int
	var paths []string
	at := map[[2]any]TransportResult{}
	for _, r := range t.Results {
		if !slices.Contains(sizes, r.Bytes) {
			sizes = append(sizes, r.Bytes)
		}
		if !slices.Contains(paths, r.Path) {
			paths = append(paths, r.Path)
		}
		at[[2]any{r.Bytes, r.Path}] = r
	}
	slices.Sort(sizes)
	slices.SortStableFunc(paths, func(a, b string) int { return rank(a) - rank(b) })
	xs := make([]float64, len(sizes))
	for i, n := range sizes {
		xs[i] = float64(n)
	}
	get := func(n int, p string) (TransportResult, bool) {
		r, ok := at[[2]any{n, p}]
		return r, ok
	}

	// Time by size, one colour per path: median solid, p90 dashed.
	c := &chart{ID: "time", Title: "Transfer time by tensor size and path", XLabel: "tensor size (log scale)",
		YLabel: "time (ms, log scale)", Kind: lines, XValues: xs, XLog: true, YLog: true, XTick: sizeLabel, Unit: " ms", RefY: math.NaN()}
	for i, p := range paths {
		med, p90 := make([]float64, len(sizes)), make([]float64, len(sizes))
		for j, n := range sizes {
			med[j], p90[j] = math.NaN(), math.NaN()
			if r, ok := get(n, p); ok {
				med[j], p90[j] = r.MedianMS, r.P90MS
			}
		}
		c.Series = append(c.Series,
			series{Name: p + " median", Color: color(i), Values: med},
			series{Name: p + " p90", Color: color(i), Dashed: true, Values: p90})
	}
	tt := table{Head: []string{"size", "path", "median ms", "p90 ms", "GiB/s (median)", "inline-tcp / this", "this / memcpy"}}
	for _, n := range sizes {
		for _, p := range paths {
			r, ok := get(n, p)
			if !ok {
				continue
			}
			speed, floor, rate := "–", "–", "–"
			if x, ok := get(n, PathInlineTCP); ok && r.MedianMS > 0 {
				speed = num(x.MedianMS/r.MedianMS) + "×"
			}
			if m, ok := get(n, PathMemcpy); ok && m.MedianMS > 0 {
				floor = num(r.MedianMS/m.MedianMS) + "×"
			}
			if r.MedianMS > 0 {
				rate = num(float64(n) / (1 << 30) / (r.MedianMS / 1e3))
			}
			tt.Rows = append(tt.Rows, []string{sizeLabel(float64(n)), p, num(r.MedianMS), num(r.P90MS), rate, speed, floor})
		}
	}
	timeSec := section{ID: "time", Title: "Time by tensor size and path", Chart: c, Legend: legendOf(c), Table: tt,
		Intro: "From the producer starting to write the tensor to the worker having read every byte (median solid, 90th percentile dashed). memcpy is the floor: fill a buffer, copy it, read the copy."}

	// Ratio inline-tcp / shm.
	ratioSec := section{ID: "ratio", Title: "Speed-up of shared memory over inline TCP",
		Intro: "Median time inline over TCP divided by median time through a shared-memory segment, per size: above 1× shared memory is faster."}
	ratios := make([]float64, len(sizes))
	rt := table{Head: []string{"size", "inline-tcp median ms", "shm median ms", "inline-tcp / shm"}}
	have := false
	for j, n := range sizes {
		ratios[j] = math.NaN()
		x, ok1 := get(n, PathInlineTCP)
		s, ok2 := get(n, PathShm)
		if !ok1 || !ok2 || s.MedianMS <= 0 {
			continue
		}
		ratios[j] = x.MedianMS / s.MedianMS
		have = true
		rt.Rows = append(rt.Rows, []string{sizeLabel(float64(n)), num(x.MedianMS), num(s.MedianMS), num(ratios[j]) + "×"})
	}
	if have {
		rc := &chart{ID: "ratio", Title: "inline-tcp / shm median time by tensor size", XLabel: "tensor size (log scale)",
			YLabel: "inline-tcp / shm (×)", Kind: lines, XValues: xs, XLog: true, XTick: sizeLabel, Unit: "×", RefY: 1}
		rc.Series = []series{{Name: "inline-tcp / shm", Color: color(4), Values: ratios}}
		ratioSec.Chart, ratioSec.Legend, ratioSec.Table = rc, legendOf(rc), rt
		ratioSec.Notes = []string{"The dashed line marks 1× (equal time)."}
	} else {
		ratioSec.Notes = []string{"Not measured: the run did not include both the inline-tcp and the shm path."}
	}

	best := ""
	if have {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range ratios {
			if finite(r) {
				lo, hi = math.Min(lo, r), math.Max(hi, r)
			}
		}
		best = fmt.Sprintf("%s× – %s×", num(lo), num(hi))
	}
	summary := []Param{{"sizes", fmt.Sprint(len(sizes))}, {"paths", fmt.Sprint(len(paths))}}
	if best != "" {
		summary = append(summary, Param{"inline-tcp / shm", best})
	}
	return &page{
		Title: title, Kind: KindTransport, Generated: formatTime(t.GeneratedAt),
		Intro: "Time to move one tensor from a producer to a worker process on the same host, by tensor size and transport path.",
		Host:  hostParams(t.Host), Params: t.Parameters, Summary: summary,
		Sections: []section{timeSec, ratioSec},
	}, nil
}

func rank(p string) int {
	if i := slices.Index(pathOrder, p); i >= 0 {
		return i
	}
	return len(pathOrder)
}
