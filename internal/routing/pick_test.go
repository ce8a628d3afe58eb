package routing

import (
	"fmt"
	"testing"
)

func TestCachePick(t *testing.T) {
	c := func(load int, routed uint64, match int) Candidate {
		return Candidate{Load: load, Routed: routed, Match: match}
	}
	cases := []struct {
		name   string
		cands  []Candidate
		tokens int
		th     Thresholds
		want   int
		reason Reason
	}{
		{"none", nil, 10, Thresholds{}, -1, ReasonMiss},
		{"hit", []Candidate{c(0, 0, 10), c(0, 0, 80)}, 100, Thresholds{}, 1, ReasonHit},
		{"exactly the threshold is a miss", []Candidate{c(1, 0, 50), c(0, 0, 0)}, 100, Thresholds{}, 1, ReasonMiss},
		{"just over it", []Candidate{c(1, 0, 51), c(0, 0, 0)}, 100, Thresholds{}, 0, ReasonHit},
		{"miss goes to the least loaded", []Candidate{c(3, 0, 40), c(2, 9, 0), c(5, 0, 0)}, 100, Thresholds{}, 1, ReasonMiss},
		{"miss tie: fewer routed", []Candidate{c(2, 5, 0), c(2, 4, 0), c(2, 4, 0)}, 100, Thresholds{}, 1, ReasonMiss},
		{"hit tie: less loaded", []Candidate{c(4, 0, 90), c(3, 7, 90)}, 100, Thresholds{}, 1, ReasonHit},
		{"hit tie: then fewer routed", []Candidate{c(3, 8, 90), c(3, 7, 90)}, 100, Thresholds{}, 1, ReasonHit},
		// max − min = 33 > 32 and 40 > 7 × 1.1: imbalanced, cache ignored.
		{"imbalanced", []Candidate{c(40, 0, 100), c(7, 0, 0)}, 100, Thresholds{}, 1, ReasonImbalanced},
		// max − min = 32, not over 32: balanced.
		{"abs threshold not exceeded", []Candidate{c(39, 0, 100), c(7, 0, 0)}, 100, Thresholds{}, 0, ReasonHit},
		// 400 − 350 > 32 but 400 < 350 × 1.2: balanced.
		{"rel threshold not exceeded", []Candidate{c(400, 0, 100), c(350, 0, 0)}, 100, Thresholds{BalanceRel: 1.2}, 0, ReasonHit},
		{"abs 0 given as negative", []Candidate{c(2, 0, 100), c(1, 0, 0)}, 100, Thresholds{BalanceAbs: -1}, 1, ReasonImbalanced},
		{"cache threshold 0 given as negative", []Candidate{c(5, 0, 1), c(0, 0, 0)}, 100, Thresholds{Cache: -1}, 0, ReasonHit},
		{"custom cache threshold", []Candidate{c(5, 0, 30), c(0, 0, 0)}, 100, Thresholds{Cache: 0.25}, 0, ReasonHit},
		{"empty prompt", []Candidate{c(1, 0, 0), c(0, 0, 0)}, 0, Thresholds{}, 1, ReasonMiss},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, why := CachePick(tc.cands, tc.tokens, tc.th)
			if got != tc.want || why != tc.reason {
				t.Fatalf("CachePick = %d %s, want %d %s", got, why, tc.want, tc.reason)
			}
		})
	}
}

func TestPowerOfTwo(t *testing.T) {
	if PowerOfTwo(nil, nil) != -1 || PowerOfTwo([]int{7}, nil) != 0 {
		t.Fatal("0 or 1 candidate")
	}
	// draws returns the given values in turn.
	draws := func(v ...int) func(int) int {
		return func(n int) int {
			x := v[0]
			v = v[1:]
			if x >= n {
				panic(fmt.Sprintf("draw %d out of [0,%d)", x, n))
			}
			return x
		}
	}
	loads := []int{5, 1, 3, 1}
	for _, tc := range []struct {
		draws []int
		want  int
	}{
		{[]int{0, 0}, 1}, // 0 and 1: loads 5, 1
		{[]int{1, 2}, 1}, // 1 and (1+1+2)%4 = 0: loads 1, 5
		{[]int{3, 1}, 3}, // 3 and 1: a tie, the first drawn
		{[]int{2, 2}, 1}, // 2 and 1: loads 3, 1
		{[]int{0, 1}, 2}, // 0 and 2: loads 5, 3
		{[]int{2, 0}, 3}, // 2 and 3: loads 3, 1
	} {
		if got := PowerOfTwo(loads, draws(tc.draws...)); got != tc.want {
			t.Errorf("draws %v: %d, want %d", tc.draws, got, tc.want)
		}
	}
}
