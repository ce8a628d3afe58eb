package benchgw

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable prints rep for people: a summary, the latency table, errors,
// the transport mix and the stage means.
func WriteTable(w io.Writer, rep *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "gateway\t%s (model %s)\n", rep.URL, rep.Model)
	fmt.Fprintf(tw, "load\t%d image requests planned, concurrency %d, %d image files (mean %.0f bytes); stopped by %s\n",
		rep.RequestsPlanned, rep.Concurrency, rep.ImageFiles, rep.ImageBytesMean, rep.StoppedBy)
	fmt.Fprintf(tw, "throughput\t%.2f requests/s, %.2f images/s over %.2f s\n", rep.RequestsPerSec, rep.ImagesPerSec, rep.WallSeconds)
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "kind\tsent\tok\tfailed\tp50 ms\tp90 ms\tp99 ms\tmax ms\tTTFT p50\tTTFT p90\tTTFT p99\t")
	for _, k := range []struct {
		name string
		k    Kind
	}{{"image", rep.Image}, {"text probe", rep.TextProbe}} {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", k.name, k.k.Sent, k.k.OK, k.k.Failed,
			k.k.Latency.P50, k.k.Latency.P90, k.k.Latency.P99, k.k.Latency.Max, k.k.TTFT.P50, k.k.TTFT.P90, k.k.TTFT.P99)
	}
	if len(rep.Errors) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "errors\tstatus\tcode\tcount\texample\t")
		for _, e := range rep.Errors {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t\n", e.Kind, e.Status, e.Code, e.Count, e.Example)
		}
	}
	fmt.Fprintln(tw)
	t := rep.Transport
	fmt.Fprintf(tw, "transport (replies)\tshm %d, inline %d, unnamed %d\n", t.ReplyShm, t.ReplyInline, t.ReplyUnknown)
	for _, m := range t.Metrics {
		fmt.Fprintf(tw, "transport (metrics)\t%s %s via %s: %.0f tensors, %.1f MiB\n", m.Runtime, m.Modality, m.Path, m.Tensors, m.Bytes/(1<<20))
	}
	if rep.MetricsError != "" {
		fmt.Fprintf(tw, "metrics\tunavailable: %s\n", rep.MetricsError)
	} else {
		fmt.Fprintf(tw, "tensor cache\t%.0f hits, %.0f misses\n", rep.Server.TensorCacheHits, rep.Server.TensorCacheMisses)
		fmt.Fprintf(tw, "server TTFT mean\t%.1f ms\n", rep.Server.TTFTMeanMS)
	}
	if len(rep.Stages) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "stage\tcount\tmean ms\ttotal ms\t")
		for _, s := range rep.Stages {
			fmt.Fprintf(tw, "%s\t%.0f\t%.3f\t%.1f\t\n", s.Stage, s.Count, s.MeanMS, s.TotalMS)
		}
	}
	return tw.Flush()
}
