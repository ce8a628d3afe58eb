// Package stats summarises measured durations for the benchmark, soak and
// load tools: one definition of a percentile (nearest rank) and of a
// median, used by every report. Its functions are pure and safe for
// concurrent use.
package stats

import (
	"slices"
	"time"
)

// Summary describes a set of durations. The percentiles are nearest-rank:
// the p-th percentile of n values is the ⌈p·n/100⌉-th smallest, always one
// of the values measured. Median is the middle value, or the mean of the two
// middle ones for an even count.
type Summary struct {
	N                  int
	Mean, Median       time.Duration
	P50, P90, P99, Max time.Duration
}

// Summarize sorts a copy of ds and summarises it; the zero Summary for none.
func Summarize(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Summary{
		N: n, Mean: sum / time.Duration(n), Median: med,
		P50: Percentile(s, 50), P90: Percentile(s, 90), P99: Percentile(s, 99), Max: s[n-1],
	}
}

// Percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of sorted,
// which must not be empty. The rank is computed in integers, so that no
// rounding of p·n moves it.
func Percentile(sorted []time.Duration, p int) time.Duration {
	i := (p*len(sorted)+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
