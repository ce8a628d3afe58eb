package tensor

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"testing"
)

// refBFloat16 is the slow reference: pick the nearer of the two bfloat16
// neighbours in float64 (exact here), ties to the even mantissa. The value past
// the largest finite bfloat16 is taken as 2^128, which makes overflow round to
// Inf exactly where IEEE says.
func refBFloat16(f float32) uint16 {
	if f != f {
		return 0x7FC0
	}
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	a := u & 0x7FFFFFFF
	if a == 0x7F800000 {
		return sign | 0x7F80
	}
	lo := uint16(a >> 16)
	hi := lo + 1
	v := float64(math.Float32frombits(a))
	vlo := float64(math.Float32frombits(uint32(lo) << 16))
	var vhi float64
	if hi == 0x7F80 {
		vhi = math.Ldexp(1, 128)
	} else {
		vhi = float64(math.Float32frombits(uint32(hi) << 16))
	}
	dlo, dhi := v-vlo, vhi-v
	switch {
	case dlo < dhi:
		return sign | lo
	case dhi < dlo:
		return sign | hi
	case lo&1 == 0:
		return sign | lo
	}
	return sign | hi
}

// half16Table lists every non-negative finite half value as float64, in order,
// with 65536 appended as the stand-in for +Inf (the rounding point past 65504).
func half16Table() []float64 {
	t := make([]float64, 0, 0x7C01)
	for h := uint16(0); h < 0x7C00; h++ {
		t = append(t, float64(Float32FromFloat16(h)))
	}
	return append(t, 65536)
}

// refFloat16 rounds by searching the table of every half value.
func refFloat16(tab []float64, f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	if f != f {
		return sign | 0x7E00
	}
	v := math.Abs(float64(f))
	if math.IsInf(v, 1) {
		return sign | 0x7C00
	}
	i := sort.SearchFloat64s(tab, v) // first tab[i] >= v
	if i == len(tab) {
		return sign | 0x7C00
	}
	if tab[i] == v || i == 0 {
		return sign | uint16(i)
	}
	dlo, dhi := v-tab[i-1], tab[i]-v
	switch {
	case dlo < dhi:
		return sign | uint16(i-1)
	case dhi < dlo:
		return sign | uint16(i)
	case (i-1)&1 == 0:
		return sign | uint16(i-1)
	}
	return sign | uint16(i)
}

// sweep runs check over [lo, hi) in steps of stride, split across cores, and
// stops the test at the first mismatch.
func sweep(t *testing.T, lo, hi, stride uint64, check func(u uint32) (got, want uint16)) {
	t.Helper()
	workers := runtime.GOMAXPROCS(0)
	span := (hi - lo + uint64(workers) - 1) / uint64(workers)
	var mu sync.Mutex
	var wg sync.WaitGroup
	fails := 0
	for w := 0; w < workers; w++ {
		start := lo + uint64(w)*span
		end := min(start+span, hi)
		// keep every worker on the same stride lattice
		if r := (start - lo) % stride; r != 0 {
			start += stride - r
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := start; x < end; x += stride {
				got, want := check(uint32(x))
				if got != want {
					mu.Lock()
					if fails < 5 {
						t.Errorf("bits %#08x (%g): got %#04x, want %#04x", x, math.Float32frombits(uint32(x)), got, want)
					}
					fails++
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestBFloat16Exhaustive(t *testing.T) {
	stride := uint64(1)
	if testing.Short() {
		stride = 97
	}
	sweep(t, 0, 1<<32, stride, func(u uint32) (uint16, uint16) {
		f := math.Float32frombits(u)
		return BFloat16FromFloat32(f), refBFloat16(f)
	})
}

func TestFloat16DenseSweep(t *testing.T) {
	tab := half16Table()
	check := func(u uint32) (uint16, uint16) {
		f := math.Float32frombits(u)
		return Float16FromFloat32(f), refFloat16(tab, f)
	}
	// Every pattern from below the smallest half subnormal up to past the
	// overflow point, both signs; a coarse stride elsewhere (zeros, tiny
	// values, huge values, Inf, NaN).
	dense := uint64(1)
	if testing.Short() {
		dense = 31
	}
	sweep(t, 0x32F00000, 0x47900000, dense, check)
	sweep(t, 0xB2F00000, 0xC7900000, dense*7, check)
	sweep(t, 0, 1<<32, 4099, check)
	for _, u := range []uint32{0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x33000000, 0x33000001, 0x477FEFFF, 0x477FF000} {
		if got, want := check(u); got != want {
			t.Errorf("bits %#08x: got %#04x, want %#04x", u, got, want)
		}
	}
}

func TestHalfKnownValues(t *testing.T) {
	cases := []struct {
		f        float32
		bf16, fp uint16
	}{
		{0, 0x0000, 0x0000},
		{1, 0x3F80, 0x3C00},
		{-2, 0xC000, 0xC000},
		{65504, 0x4780, 0x7BFF},
		{65520, 0x4780, 0x7C00},
		{float32(math.Inf(1)), 0x7F80, 0x7C00},
		{float32(math.Inf(-1)), 0xFF80, 0xFC00},
		{math.MaxFloat32, 0x7F80, 0x7C00},
		{5.960464477539063e-08, 0x3380, 0x0001}, // 2^-24, smallest half subnormal
		{1.9303361177444458, 0x3FF7, 0x3FB9},
		{-1.7922625541687012, 0xBFE5, 0xBF2B},
	}
	for _, c := range cases {
		if got := BFloat16FromFloat32(c.f); got != c.bf16 {
			t.Errorf("bf16(%g) = %#04x, want %#04x", c.f, got, c.bf16)
		}
		if got := Float16FromFloat32(c.f); got != c.fp {
			t.Errorf("f16(%g) = %#04x, want %#04x", c.f, got, c.fp)
		}
	}
	if v := Float32FromBFloat16(BFloat16FromFloat32(float32(math.NaN()))); v == v {
		t.Errorf("bf16 NaN did not stay NaN")
	}
	if v := Float32FromFloat16(Float16FromFloat32(float32(math.NaN()))); v == v {
		t.Errorf("f16 NaN did not stay NaN")
	}
}

func TestFloat16WidenRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := Float32FromFloat16(uint16(h))
		if f != f {
			continue
		}
		if got := Float16FromFloat32(f); got != uint16(h) {
			t.Fatalf("half %#04x → %g → %#04x", h, f, got)
		}
	}
	for h := 0; h < 1<<16; h++ {
		f := Float32FromBFloat16(uint16(h))
		if f != f {
			continue
		}
		if got := BFloat16FromFloat32(f); got != uint16(h) {
			t.Fatalf("bf16 %#04x → %g → %#04x", h, f, got)
		}
	}
}
