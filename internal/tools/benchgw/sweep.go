package benchgw

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Stop says where a Sweep ended.
type Stop int

const (
	// Done: every level ran and was written.
	Done Stop = iota
	// Refused: New refused a level's options; no reports come back.
	Refused
	// RunFailed: a level's run failed; the reports before it come back.
	RunFailed
	// OutputFailed: a report could not be written; no reports come back.
	OutputFailed
)

// Sweep runs the load once per concurrency level, in order, and writes each
// level's report to out as it comes: one JSON line with asJSON, else a
// table (a blank line between tables). Level i sends
// LevelImages(images, i, o.Requests), announced on o.Progress. It stops at
// the first error, which it returns with where it stopped.
func Sweep(ctx context.Context, o Options, images []Image, levels []int, out io.Writer, asJSON bool) ([]*Report, Stop, error) {
	var runs []*Report
	for i, level := range levels {
		o.Concurrency, o.Images = level, LevelImages(images, i, o.Requests)
		r, err := New(o)
		if err != nil {
			return nil, Refused, err
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "bench gateway: %d image requests at concurrency %d to %s (%d image files)\n", o.Requests, level, o.URL, len(images))
		}
		rep, err := r.Run(ctx)
		if err != nil {
			return runs, RunFailed, err
		}
		runs = append(runs, rep)
		if err := writeReport(out, i, rep, asJSON); err != nil {
			return nil, OutputFailed, err
		}
	}
	return runs, Done, nil
}

// writeReport writes the i-th report of a sweep.
func writeReport(w io.Writer, i int, rep *Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	if i > 0 {
		fmt.Fprintln(w)
	}
	return WriteTable(w, rep)
}

// AnyFailed reports whether a run sent an image request that failed, or
// had none answered.
func AnyFailed(runs []*Report) bool {
	for _, rep := range runs {
		if rep.Image.Failed > 0 || rep.Image.OK == 0 {
			return true
		}
	}
	return false
}
