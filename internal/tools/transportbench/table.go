package transportbench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable prints one row per size and path, with the ratio to inline
// over TCP and to the memcpy floor when those were measured.
func WriteTable(w io.Writer, res []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size MiB\tpath\tmedian ms\tp90 ms\tinline-tcp / this\tthis / memcpy\t")
	byKey := map[string]Result{}
	for _, r := range res {
		byKey[fmt.Sprint(r.Bytes, r.Path)] = r
	}
	for _, r := range res {
		speed, floor := "-", "-"
		if t, ok := byKey[fmt.Sprint(r.Bytes, PathInlineTCP)]; ok && r.MedianMS > 0 {
			speed = fmt.Sprintf("%.2f×", t.MedianMS/r.MedianMS)
		}
		if m, ok := byKey[fmt.Sprint(r.Bytes, PathMemcpy)]; ok && m.MedianMS > 0 {
			floor = fmt.Sprintf("%.2f×", r.MedianMS/m.MedianMS)
		}
		fmt.Fprintf(tw, "%g\t%s\t%.3f\t%.3f\t%s\t%s\t\n", float64(r.Bytes)/(1<<20), r.Path, r.MedianMS, r.P90MS, speed, floor)
	}
	return tw.Flush()
}

// ParseSizes reads a list of tensor sizes: "1,4,16" (MiB) or values with a
// B/KiB/MiB/GiB suffix, each a positive multiple of 1 KiB.
func ParseSizes(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		mult := 1 << 20
		num := f
		for _, u := range []struct {
			suffix string
			mult   int
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
			if n, ok := strings.CutSuffix(f, u.suffix); ok {
				num, mult = n, u.mult
				break
			}
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		b := n * mult
		if b%1024 != 0 {
			return nil, fmt.Errorf("size %q is not a multiple of 1 KiB", f)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes")
	}
	return out, nil
}

// ParsePaths reads a list of paths: "shm,memcpy", each one of KnownPaths
// (empty items are skipped; none at all means Run's default).
func ParsePaths(v string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !slices.Contains(KnownPaths, p) {
			return nil, fmt.Errorf("unknown path %q", p)
		}
		out = append(out, p)
	}
	return out, nil
}
