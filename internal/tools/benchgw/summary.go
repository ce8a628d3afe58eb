package benchgw

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// report turns the outcomes into a Report (without the /metrics parts).
func (r *Runner) report(images, probes []outcome, wall time.Duration, stoppedBy string) *Report {
	o := r.opts
	rep := &Report{
		URL: o.URL, Model: o.Model, Concurrency: o.Concurrency, RequestsPlanned: o.Requests,
		ImageFiles: len(o.Images), StoppedBy: stoppedBy, WallSeconds: round3(wall.Seconds()),
		Errors: []ErrorCount{}, Stages: []Stage{}, Transport: Transport{Metrics: []TransportSeries{}},
	}
	total := 0
	for _, im := range o.Images {
		total += im.Bytes
	}
	rep.ImageBytesMean = round3(float64(total) / float64(len(o.Images)))

	errs := map[string]*ErrorCount{}
	var order []string
	summarise := func(kind string, outs []outcome) Kind {
		k := Kind{Sent: len(outs)}
		var lat, ttft []time.Duration
		for _, x := range outs {
			if !x.ok() {
				k.Failed++
				key := fmt.Sprint(kind, "\x00", x.status, "\x00", x.code)
				e := errs[key]
				if e == nil {
					e = &ErrorCount{Kind: kind, Status: x.status, Code: x.code, Example: truncate(x.message, 300)}
					errs[key] = e
					order = append(order, key)
				}
				e.Count++
				continue
			}
			k.OK++
			lat = append(lat, x.latency)
			if x.ttft > 0 {
				ttft = append(ttft, x.ttft)
			}
			if kind == "image" {
				rep.Transport.ReplyShm += x.shm
				rep.Transport.ReplyInline += x.inline
				if x.shm+x.inline == 0 {
					rep.Transport.ReplyUnknown++
				}
			}
		}
		k.Latency, k.TTFT = dist(lat), dist(ttft)
		return k
	}
	rep.Image = summarise("image", images)
	rep.TextProbe = summarise("text_probe", probes)
	for _, key := range order {
		rep.Errors = append(rep.Errors, *errs[key])
	}
	sort.SliceStable(rep.Errors, func(i, j int) bool {
		a, b := rep.Errors[i], rep.Errors[j]
		if a.Kind != b.Kind {
			return a.Kind == "image"
		}
		return a.Count > b.Count
	})
	if s := wall.Seconds(); s > 0 {
		rep.RequestsPerSec = round3(float64(rep.Image.OK) / s)
		// Each image request carries one image.
		rep.ImagesPerSec = rep.RequestsPerSec
	}
	return rep
}

// addMetrics fills the parts of rep that come from two /metrics scrapes.
func addMetrics(rep *Report, before, after metrics) {
	bytesBy := map[string]float64{}
	for _, s := range delta(before, after, "mmgate_mm_tensor_bytes_total") {
		bytesBy[seriesKey("", s.labels)] = s.value
	}
	for _, s := range delta(before, after, "mmgate_mm_tensors_total") {
		if s.value == 0 {
			continue
		}
		rep.Transport.Metrics = append(rep.Transport.Metrics, TransportSeries{
			Modality: s.labels["modality"], Path: s.labels["path"], Runtime: s.labels["runtime"],
			Tensors: s.value, Bytes: bytesBy[seriesKey("", s.labels)],
		})
	}
	counts := map[string]float64{}
	for _, s := range delta(before, after, "mmgate_stage_duration_seconds_count") {
		counts[s.labels["stage"]] = s.value
	}
	for _, s := range delta(before, after, "mmgate_stage_duration_seconds_sum") {
		st := s.labels["stage"]
		c := counts[st]
		if c <= 0 {
			continue
		}
		rep.Stages = append(rep.Stages, Stage{Stage: st, Count: c, MeanMS: round3(s.value / c * 1e3), TotalMS: round3(s.value * 1e3)})
	}
	sort.SliceStable(rep.Stages, func(i, j int) bool {
		a, b := stageRank(rep.Stages[i].Stage), stageRank(rep.Stages[j].Stage)
		if a != b {
			return a < b
		}
		return rep.Stages[i].Stage < rep.Stages[j].Stage
	})
	sumOf := func(name string) float64 {
		t := 0.0
		for _, s := range delta(before, after, name) {
			t += s.value
		}
		return t
	}
	if c := sumOf("mmgate_time_to_first_token_seconds_count"); c > 0 {
		rep.Server.TTFTMeanMS = round3(sumOf("mmgate_time_to_first_token_seconds_sum") / c * 1e3)
	}
	rep.Server.TensorCacheHits = sumOf("mmgate_tensor_cache_hits_total")
	rep.Server.TensorCacheMisses = sumOf("mmgate_tensor_cache_misses_total")
}

func stageRank(s string) int {
	if i := slices.Index(stageOrder, s); i >= 0 {
		return i
	}
	return len(stageOrder)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
