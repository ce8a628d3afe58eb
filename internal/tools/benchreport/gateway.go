package benchreport

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
)

// RenderGatewayHTML writes the gateway report page.
func RenderGatewayHTML(w io.Writer, g *Gateway) error {
	p, err := gatewayPage(g)
	if err != nil {
		return err
	}
	return renderPage(w, p)
}

func gatewayPage(g *Gateway) (*page, error) {
	runs := make([]*benchgw.Report, 0, len(g.Runs))
	for _, r := range g.Runs {
		if r != nil {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("gateway report: %w", ErrNoData)
	}
	title := g.Title
	if title == "" {
		title = "mmgate gateway benchmark"
	}
	cats := make([]string, len(runs))
	for i, r := range runs {
		cats[i] = strconv.Itoa(r.Concurrency)
	}
	p := &page{
		Title: title, Kind: KindGateway, Generated: formatTime(g.GeneratedAt),
		Intro: fmt.Sprintf("%d run(s) against %s, model %s: streaming one-image chat requests at each concurrency level, with a paced text-only probe beside them.",
			len(runs), runs[0].URL, runs[0].Model),
		Host: hostParams(g.Host), Params: g.Parameters, Summary: gatewaySummary(runs),
	}
	p.Sections = append(p.Sections,
		latencySection(runs, cats),
		throughputSection(runs, cats),
		ttftSection(runs, cats),
		transportSection(runs, cats),
		stagesSection(runs, cats),
	)
	if s, ok := errorsSection(runs); ok {
		p.Sections = append(p.Sections, s)
	}
	return p, nil
}

func gatewaySummary(runs []*benchgw.Report) []Param {
	best := runs[0]
	sent, ok, failed := 0, 0, 0
	for _, r := range runs {
		if r.ImagesPerSec > best.ImagesPerSec {
			best = r
		}
		sent += r.Image.Sent
		ok += r.Image.OK
		failed += r.Image.Failed
	}
	return []Param{
		{"best throughput", fmt.Sprintf("%s images/s at concurrency %d", num(best.ImagesPerSec), best.Concurrency)},
		{"image latency p50 there", num(best.Image.Latency.P50) + " ms"},
		{"image requests", fmt.Sprintf("%d sent, %d ok, %d failed", sent, ok, failed)},
		{"concurrency levels", strconv.Itoa(len(runs))},
	}
}

// perRun maps each run to a value.
func perRun(runs []*benchgw.Report, f func(*benchgw.Report) float64) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = f(r)
	}
	return out
}

// orNaN treats a zero from an empty distribution as missing.
func orNaN(count int, v float64) float64 {
	if count == 0 {
		return math.NaN()
	}
	return v
}

// distSeries is the image p50, p90 and p99 and the text probe's p99 of the
// distribution pick chooses, one point per run (NaN where it is empty).
func distSeries(runs []*benchgw.Report, pick func(benchgw.Kind) benchgw.Dist) []series {
	at := func(probe bool, p func(benchgw.Dist) float64) []float64 {
		return perRun(runs, func(r *benchgw.Report) float64 {
			k := r.Image
			if probe {
				k = r.TextProbe
			}
			d := pick(k)
			return orNaN(d.Count, p(d))
		})
	}
	return []series{
		{Name: "image p50", Color: color(0), Values: at(false, func(d benchgw.Dist) float64 { return d.P50 })},
		{Name: "image p90", Color: color(1), Values: at(false, func(d benchgw.Dist) float64 { return d.P90 })},
		{Name: "image p99", Color: color(4), Values: at(false, func(d benchgw.Dist) float64 { return d.P99 })},
		{Name: "text probe p99", Color: color(2), Dashed: true, Values: at(true, func(d benchgw.Dist) float64 { return d.P99 })},
	}
}

// namedKind is one kind of request of a run, with its name in tables.
type namedKind struct {
	name string
	k    benchgw.Kind
}

// sentKinds is the kinds of request a run sent: image, then text probe.
func sentKinds(r *benchgw.Report) []namedKind {
	var out []namedKind
	for _, k := range []namedKind{{"image", r.Image}, {"text probe", r.TextProbe}} {
		if k.k.Sent > 0 {
			out = append(out, k)
		}
	}
	return out
}

func latencySection(runs []*benchgw.Report, cats []string) section {
	c := &chart{ID: "latency", Title: "Request latency percentiles by concurrency", XLabel: "concurrency (image requests in flight)",
		YLabel: "latency (ms)", Kind: lines, Categories: cats, Unit: " ms", RefY: math.NaN()}
	c.Series = distSeries(runs, func(k benchgw.Kind) benchgw.Dist { return k.Latency })
	t := table{Head: []string{"concurrency", "kind", "ok", "failed", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms"}}
	for _, r := range runs {
		for _, k := range sentKinds(r) {
			l := k.k.Latency
			t.Rows = append(t.Rows, []string{itoa(r.Concurrency), k.name, itoa(k.k.OK), itoa(k.k.Failed), num(l.Mean), num(l.P50), num(l.P90), num(l.P99), num(l.Max)})
		}
	}
	return section{ID: "latency", Title: "Latency by concurrency", Chart: c, Legend: legendOf(c), Table: t,
		Intro: "Time from sending a request to the end of its stream (successful requests, nearest-rank percentiles). The text probe shows how long a text-only request waits behind image work."}
}

func throughputSection(runs []*benchgw.Report, cats []string) section {
	c := &chart{ID: "throughput", Title: "Throughput by concurrency", XLabel: "concurrency (image requests in flight)",
		YLabel: "images per second", Kind: bars, Categories: cats, Unit: " images/s", RefY: math.NaN()}
	c.Series = []series{{Name: "images/s", Color: color(0), Values: perRun(runs, func(r *benchgw.Report) float64 { return r.ImagesPerSec })}}
	t := table{Head: []string{"concurrency", "images/s", "requests/s", "wall s", "ok", "sent", "stopped by", "cache hits", "cache misses"}}
	for _, r := range runs {
		t.Rows = append(t.Rows, []string{itoa(r.Concurrency), num(r.ImagesPerSec), num(r.RequestsPerSec), num(r.WallSeconds),
			itoa(r.Image.OK), itoa(r.Image.Sent), r.StoppedBy, count(r.Server.TensorCacheHits), count(r.Server.TensorCacheMisses)})
	}
	var notes []string
	for _, r := range runs {
		if r.Server.TensorCacheHits > 0 {
			notes = append(notes, "Some levels were served partly from the gateway's tensor cache (see cache hits): those images skipped decoding and preprocessing, so levels are not equally loaded. For comparable levels give at least (levels × requests) distinct images, or run the gateway with its cache disabled.")
			break
		}
	}
	return section{ID: "throughput", Title: "Throughput by concurrency", Chart: c, Table: t, Notes: notes,
		Intro: "Successful image requests (one image each) per second of wall time. Cache hits are images the gateway served from its preprocessed-tensor cache."}
}

func ttftSection(runs []*benchgw.Report, cats []string) section {
	c := &chart{ID: "ttft", Title: "Time to first token by concurrency", XLabel: "concurrency (image requests in flight)",
		YLabel: "time to first token (ms)", Kind: lines, Categories: cats, Unit: " ms", RefY: math.NaN()}
	c.Series = distSeries(runs, func(k benchgw.Kind) benchgw.Dist { return k.TTFT })
	t := table{Head: []string{"concurrency", "kind", "count", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms", "server mean ms"}}
	for _, r := range runs {
		for _, k := range sentKinds(r) {
			d, srv := k.k.TTFT, "–"
			if k.name == "image" && r.MetricsError == "" {
				srv = num(r.Server.TTFTMeanMS)
			}
			t.Rows = append(t.Rows, []string{itoa(r.Concurrency), k.name, itoa(d.Count), num(d.Mean), num(d.P50), num(d.P90), num(d.P99), num(d.Max), srv})
		}
	}
	return section{ID: "ttft", Title: "Time to first token", Chart: c, Legend: legendOf(c), Table: t,
		Intro: "Measured by the client: from sending the request to the first chunk with content. The server mean is the gateway's own figure over all requests (from /metrics)."}
}

func transportSection(runs []*benchgw.Report, cats []string) section {
	c := &chart{ID: "transport", Title: "Tensor transport mix by concurrency", XLabel: "concurrency (image requests in flight)",
		YLabel: "image tensors", Kind: stacked, Categories: cats, Unit: " tensors", RefY: math.NaN()}
	c.Series = []series{
		{Name: "shm", Color: color(0), Values: perRun(runs, func(r *benchgw.Report) float64 { return float64(r.Transport.ReplyShm) })},
		{Name: "inline", Color: color(1), Values: perRun(runs, func(r *benchgw.Report) float64 { return float64(r.Transport.ReplyInline) })},
		{Name: "not named", Color: color(8), Values: perRun(runs, func(r *benchgw.Report) float64 { return float64(r.Transport.ReplyUnknown) })},
	}
	t := table{Head: []string{"concurrency", "source", "modality", "path", "runtime", "tensors", "MiB", "share"}}
	for _, r := range runs {
		tr := r.Transport
		n := float64(tr.ReplyShm + tr.ReplyInline + tr.ReplyUnknown)
		for _, x := range []struct {
			path string
			v    int
		}{{"shm", tr.ReplyShm}, {"inline", tr.ReplyInline}, {"not named", tr.ReplyUnknown}} {
			if x.v == 0 && x.path == "not named" {
				continue
			}
			t.Rows = append(t.Rows, []string{itoa(r.Concurrency), "replies", "image", x.path, "", itoa(x.v), "", share(float64(x.v), n)})
		}
		var mt float64
		for _, m := range tr.Metrics {
			mt += m.Tensors
		}
		for _, m := range tr.Metrics {
			t.Rows = append(t.Rows, []string{itoa(r.Concurrency), "metrics", m.Modality, m.Path, m.Runtime, count(m.Tensors), num(m.Bytes / (1 << 20)), share(m.Tensors, mt)})
		}
	}
	return section{ID: "transport", Title: "Transport mix", Chart: c, Legend: legendOf(c), Table: t,
		Intro: "How image tensors reached the worker: through a shared-memory segment or inline in the gRPC message. The chart counts the worker's replies; the table adds the gateway's counters (mmgate_mm_tensors_total) over each run."}
}

func share(v, total float64) string {
	if total <= 0 {
		return "–"
	}
	return strconv.FormatFloat(100*v/total, 'f', 1, 64) + " %"
}

func stagesSection(runs []*benchgw.Report, cats []string) section {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Stages {
			if !seen[s.Stage] {
				seen[s.Stage] = true
				names = append(names, s.Stage)
			}
		}
	}
	sec := section{ID: "stages", Title: "Per-stage time breakdown",
		Intro: "Mean time of each pipeline stage per call, stacked, from the change of mmgate_stage_duration_seconds over each run. Text-only probe requests count in the stages they pass through (tokenize, transport, generate)."}
	if len(names) == 0 {
		sec.Notes = append(sec.Notes, "No stage timings: the gateway's /metrics gave none for these runs.")
		for _, r := range runs {
			if r.MetricsError != "" {
				sec.Notes = append(sec.Notes, fmt.Sprintf("concurrency %d: metrics unavailable: %s", r.Concurrency, r.MetricsError))
			}
		}
		return sec
	}
	c := &chart{ID: "stages", Title: "Mean stage time by concurrency", XLabel: "concurrency (image requests in flight)",
		YLabel: "mean time per call (ms)", Kind: stacked, Categories: cats, Unit: " ms", RefY: math.NaN()}
	t := table{Head: append([]string{"concurrency"}, names...)}
	for i, name := range names {
		c.Series = append(c.Series, series{Name: name, Color: color(i), Values: perRun(runs, func(r *benchgw.Report) float64 {
			for _, s := range r.Stages {
				if s.Stage == name {
					return s.MeanMS
				}
			}
			return math.NaN()
		})})
	}
	for _, r := range runs {
		row := []string{itoa(r.Concurrency)}
		for _, name := range names {
			cell := "–"
			for _, s := range r.Stages {
				if s.Stage == name {
					cell = fmt.Sprintf("%s (×%s)", num(s.MeanMS), count(s.Count))
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Chart, sec.Legend, sec.Table = c, legendOf(c), t
	sec.Notes = append(sec.Notes, "Cells: mean ms per call (number of calls).")
	return sec
}

func errorsSection(runs []*benchgw.Report) (section, bool) {
	t := table{Head: []string{"concurrency", "kind", "status", "code", "count", "example"}}
	for _, r := range runs {
		for _, e := range r.Errors {
			t.Rows = append(t.Rows, []string{itoa(r.Concurrency), e.Kind, itoa(e.Status), e.Code, itoa(e.Count), e.Example})
		}
	}
	if len(t.Rows) == 0 {
		return section{}, false
	}
	return section{ID: "errors", Title: "Errors", Table: t,
		Intro: "Failed requests by status and error code (status 0: no HTTP status was read; status 200 with a code: an error event inside the stream)."}, true
}

func itoa(n int) string { return strconv.Itoa(n) }
