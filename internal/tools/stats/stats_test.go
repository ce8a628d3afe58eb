package stats

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		in   []time.Duration
		want Summary
	}{
		{nil, Summary{}},
		{ms(7), Summary{N: 1, Mean: 7e6, Median: 7e6, P50: 7e6, P90: 7e6, P99: 7e6, Max: 7e6}},
		// Unsorted input; even count: the median averages the middle two,
		// P50 is the lower one (nearest rank 2 of 4).
		{ms(4, 1, 3, 2), Summary{N: 4, Mean: 2500e3, Median: 2500e3, P50: 2e6, P90: 4e6, P99: 4e6, Max: 4e6}},
		{ms(3, 1, 2), Summary{N: 3, Mean: 2e6, Median: 2e6, P50: 2e6, P90: 3e6, P99: 3e6, Max: 3e6}},
	} {
		if got := Summarize(tc.in); got != tc.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	in := ms(5, 1, 9)
	Summarize(in)
	if in[0] != 5*time.Millisecond {
		t.Error("Summarize sorted its input")
	}
}

// TestPercentileRanks checks the integer rank against the definition
// ⌈p·n/100⌉, found by counting up, for every count up to 2,000.
func TestPercentileRanks(t *testing.T) {
	for n := 1; n <= 2000; n++ {
		s := make([]time.Duration, n)
		for i := range s {
			s[i] = time.Duration(i + 1)
		}
		for _, p := range []int{1, 50, 90, 99, 100} {
			// The smallest rank r with r·100 ≥ p·n.
			r := 1
			for r*100 < p*n {
				r++
			}
			if got := Percentile(s, p); got != time.Duration(r) {
				t.Fatalf("n=%d p=%d: rank %d, want %d", n, p, got, r)
			}
		}
	}
}
