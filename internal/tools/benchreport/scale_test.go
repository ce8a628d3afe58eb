package benchreport

import (
	"math"
	"slices"
	"testing"
)

func TestNiceStep(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0.7, 1}, {1, 1}, {1.2, 2}, {3, 5}, {7, 10}, {63, 100}, {0.013, 0.02}, {0, 1}, {math.NaN(), 1},
	} {
		if got := niceStep(tc.in); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestLinearScale(t *testing.T) {
	for _, tc := range []struct {
		vals  []float64
		ticks []float64
	}{
		{[]float64{3, 17, 9}, []float64{0, 5, 10, 15, 20}},
		{[]float64{0.12, 0.31}, []float64{0, 0.1, 0.2, 0.3, 0.4}},
		{[]float64{math.NaN(), 0}, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{[]float64{-4, 6}, []float64{-4, -2, 0, 2, 4, 6}},
	} {
		s := linearScale(tc.vals, 300, 0)
		if !slices.Equal(s.ticks, tc.ticks) {
			t.Errorf("linearScale(%v) ticks %v, want %v", tc.vals, s.ticks, tc.ticks)
		}
		if s.at(s.d0) != 300 || s.at(s.d1) != 0 {
			t.Errorf("linearScale(%v) maps its ends to %v, %v", tc.vals, s.at(s.d0), s.at(s.d1))
		}
	}
}

func TestLogScale(t *testing.T) {
	s := logScale([]float64{0.35, 12, -1, math.Inf(1)}, 0, 100)
	if s.d0 != 0.1 || s.d1 != 100 {
		t.Fatalf("domain [%v, %v], want [0.1, 100]", s.d0, s.d1)
	}
	want := []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}
	if len(s.ticks) != len(want) {
		t.Fatalf("ticks %v, want %v", s.ticks, want)
	}
	for i := range want {
		if math.Abs(s.ticks[i]-want[i]) > 1e-9*want[i] {
			t.Errorf("tick %d = %v, want %v", i, s.ticks[i], want[i])
		}
	}
	if got := s.at(1); math.Abs(got-100.0/3) > 1e-9 {
		t.Errorf("at(1) = %v, want 33.33", got)
	}
	wide := logScale([]float64{1e-3, 1e4}, 0, 1)
	if len(wide.ticks) != 8 {
		t.Errorf("7 decades: ticks %v, want the 8 powers of ten only", wide.ticks)
	}
}

func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{sizeLabel(1 << 20), "1 MiB"}, {sizeLabel(256 << 10), "256 KiB"}, {sizeLabel(3 << 30), "3 GiB"}, {sizeLabel(1536), "1.5 KiB"}, {sizeLabel(512), "512 B"},
		{num(1234.56), "1235"}, {num(123.456), "123.5"}, {num(12.3456), "12.35"}, {num(1.23456), "1.235"}, {num(0), "0"}, {num(math.NaN()), "–"}, {num(0.00012), "0.00012"},
		{tickLabel(25000), "25k"}, {tickLabel(2e6), "2M"}, {tickLabel(0.5), "0.5"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
