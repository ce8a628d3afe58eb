package tensor

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func randomFloats(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	s := make([]float32, n)
	for i := range s {
		switch i % 5 {
		case 0:
			s[i] = math.Float32frombits(r.Uint32())
		default:
			s[i] = float32(r.NormFloat64() * 2)
		}
	}
	return s
}

func TestEncodeParallelMatchesSerial(t *testing.T) {
	for _, n := range []int{0, 1, 1000, chunkElems - 1, chunkElems, 3*chunkElems + 17} {
		src := randomFloats(n, uint64(n))
		for _, dt := range []DType{Float32, BFloat16, Float16} {
			serial := make([]byte, n*dt.Size())
			par := make([]byte, n*dt.Size())
			if err := EncodeFloat32(serial, src, dt); err != nil {
				t.Fatal(err)
			}
			if err := EncodeFloat32Parallel(context.Background(), par, src, dt, 4); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(serial, par) {
				t.Fatalf("n=%d %s: parallel differs from serial", n, dt)
			}
			one := make([]byte, dt.Size())
			for i := 0; i < n; i += 1 + n/50 {
				PutFloat32(one, src[i], dt)
				if !bytes.Equal(one, serial[i*dt.Size():(i+1)*dt.Size()]) {
					t.Fatalf("PutFloat32 differs at %d", i)
				}
			}
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	if err := EncodeFloat32(make([]byte, 3), []float32{1}, Float32); !errors.Is(err, ErrShape) {
		t.Errorf("short dst: %v", err)
	}
	if err := EncodeFloat32(make([]byte, 8), []float32{1}, Int64); !errors.Is(err, ErrDType) {
		t.Errorf("int64: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := make([]float32, 4*chunkElems)
	if err := EncodeFloat32Parallel(ctx, make([]byte, len(src)*4), src, Float32, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestTensorValidate(t *testing.T) {
	cases := []struct {
		dt    DType
		shape []int
		n     int
		ok    bool
	}{
		{Float32, []int{2, 3}, 24, true},
		{BFloat16, []int{2, 3}, 12, true},
		{Int64, []int{1, 3}, 24, true},
		{Uint32, []int{}, 4, true},
		{Float32, []int{2, 3}, 23, false},
		{Float32, []int{-1, 3}, 0, false},
		{Float32, []int{math.MaxInt / 2, 3}, 0, false},
		{DType(0), []int{1}, 4, false},
	}
	for _, c := range cases {
		_, err := New(c.dt, c.shape, make([]byte, c.n))
		if (err == nil) != c.ok {
			t.Errorf("%v %v %d: err=%v, want ok=%v", c.dt, c.shape, c.n, err, c.ok)
		}
	}
}

func TestDTypeNames(t *testing.T) {
	for _, name := range []string{"float32", "bfloat16", "float16", "int64", "uint32"} {
		d, err := ParseDType(name)
		if err != nil || d.String() != name {
			t.Errorf("%s: %v %v", name, d, err)
		}
	}
	if _, err := ParseDType("float64"); !errors.Is(err, ErrDType) {
		t.Errorf("float64 accepted")
	}
}

func BenchmarkEncodeBFloat16(b *testing.B) {
	src := randomFloats(1<<22, 7)
	dst := make([]byte, len(src)*2)
	b.SetBytes(int64(len(src) * 4))
	for b.Loop() {
		_ = EncodeFloat32Parallel(context.Background(), dst, src, BFloat16, 0)
	}
}
