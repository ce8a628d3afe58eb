package benchreport

import (
	"fmt"
	"math"
	"strconv"
)

// scale maps a data interval [d0, d1] onto a pixel interval [r0, r1],
// linearly or logarithmically.
type scale struct {
	log    bool
	d0, d1 float64
	r0, r1 float64
	ticks  []float64
}

// linearScale covers [0, max(vals)] (or [min, max] when some value is
// negative) with round ticks.
func linearScale(vals []float64, r0, r1 float64) scale {
	lo, hi := 0.0, 0.0
	for _, v := range vals {
		if !finite(v) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi == lo {
		hi = lo + 1
	}
	step := niceStep((hi - lo) / 5)
	lo = math.Floor(lo/step) * step
	hi = math.Ceil(hi/step) * step
	s := scale{d0: lo, d1: hi, r0: r0, r1: r1}
	for i := 0; ; i++ {
		t := lo + float64(i)*step
		if t > hi+step/1e6 {
			break
		}
		s.ticks = append(s.ticks, roundTick(t, step))
	}
	return s
}

// logScale covers the positive values with whole decades; ticks at 1, 2, 5
// times each power of ten when there are few decades, at the powers
// otherwise. Non-positive values are ignored (callers do not draw them).
func logScale(vals []float64, r0, r1 float64) scale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if finite(v) && v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	e0, e1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if e1 == e0 {
		e1++
	}
	s := scale{log: true, d0: math.Pow(10, e0), d1: math.Pow(10, e1), r0: r0, r1: r1}
	mult := []float64{1, 2, 5}
	if e1-e0 > 3 {
		mult = []float64{1}
	}
	for e := e0; e <= e1; e++ {
		for _, m := range mult {
			t := m * math.Pow(10, e)
			if t <= s.d1*(1+1e-9) {
				s.ticks = append(s.ticks, t)
			}
		}
	}
	return s
}

// at is the pixel position of v.
func (s scale) at(v float64) float64 {
	var f float64
	if s.log {
		f = (math.Log10(v) - math.Log10(s.d0)) / (math.Log10(s.d1) - math.Log10(s.d0))
	} else {
		f = (v - s.d0) / (s.d1 - s.d0)
	}
	return s.r0 + f*(s.r1-s.r0)
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || !finite(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / p; {
	case f <= 1:
		return p
	case f <= 2:
		return 2 * p
	case f <= 5:
		return 5 * p
	}
	return 10 * p
}

// roundTick removes the floating-point noise of lo + i*step.
func roundTick(t, step float64) float64 {
	d := math.Max(0, -math.Floor(math.Log10(step))+1)
	p := math.Pow(10, d)
	return math.Round(t*p) / p
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// num formats a measured value with about three significant digits.
func num(v float64) string {
	switch a := math.Abs(v); {
	case !finite(v):
		return "–"
	case a == 0:
		return "0"
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.001:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// tickLabel formats an axis tick compactly.
func tickLabel(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// sizeLabel formats a byte count: 1 MiB, 256 KiB, 2 GiB, 1536 B.
func sizeLabel(b float64) string {
	for _, u := range []struct {
		name string
		n    float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.n {
			return strconv.FormatFloat(b/u.n, 'g', 4, 64) + " " + u.name
		}
	}
	return fmt.Sprintf("%.0f B", b)
}

// count formats a counter value: whole numbers without decimals.
func count(v float64) string {
	if finite(v) && v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return num(v)
}
