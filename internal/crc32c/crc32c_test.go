package crc32c

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"testing"
)

func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestUpdateLengths compares Update with hash/crc32 for every length up to
// 2048 (below, at and past the folding threshold and its 64-byte steps)
// and for a few long buffers of odd length, from random states.
func TestUpdateLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := randomBytes(r, 2048)
	for n := 0; n <= len(b); n++ {
		crc := r.Uint32()
		if n%7 == 0 {
			crc = 0
		}
		if got, want := Update(crc, b[:n]), crc32.Update(crc, castagnoli(), b[:n]); got != want {
			t.Fatalf("Update(%#x, %d bytes) = %#x, hash/crc32 gives %#x", crc, n, got, want)
		}
	}
	for _, n := range []int{1<<20 + 1, 1<<20 + 63, 1<<20 + 255, 3<<20 + 77} {
		b := randomBytes(r, n)
		crc := r.Uint32()
		if got, want := Update(crc, b), crc32.Update(crc, castagnoli(), b); got != want {
			t.Fatalf("Update(%#x, %d bytes) = %#x, hash/crc32 gives %#x", crc, n, got, want)
		}
	}
}

// TestUpdateOffsets starts the buffer at every offset within a cache line
// of a larger one: the loads must not depend on alignment.
func TestUpdateOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	big := randomBytes(r, 8192+64)
	for off := 0; off < 64; off++ {
		for _, n := range []int{0, 1, 63, 255, 256, 257, 319, 320, 511, 512, 575, 1000, 4096 + 13, 8192} {
			p := big[off : off+n]
			crc := r.Uint32()
			if got, want := Update(crc, p), crc32.Update(crc, castagnoli(), p); got != want {
				t.Fatalf("offset %d, %d bytes: Update(%#x) = %#x, hash/crc32 gives %#x", off, n, crc, got, want)
			}
		}
	}
}

// TestNewPieces writes a buffer to New in random pieces and checks every
// method against crc32.New.
func TestNewPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	b := randomBytes(r, 1<<20+333)
	for round := 0; round < 20; round++ {
		h, ref := New(), crc32.New(castagnoli())
		for p := b; len(p) > 0; {
			var n int
			switch r.IntN(3) {
			case 0:
				n = r.IntN(64)
			case 1:
				n = r.IntN(1024)
			default:
				n = r.IntN(64 << 10)
			}
			n = min(n, len(p))
			if k, err := h.Write(p[:n]); k != n || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", n, k, err)
			}
			ref.Write(p[:n])
			p = p[n:]
			if h.Sum32() != ref.Sum32() {
				t.Fatalf("round %d, %d bytes written: Sum32 = %#x, hash/crc32 gives %#x",
					round, len(b)-len(p), h.Sum32(), ref.Sum32())
			}
		}
		prefix := []byte("prefix")
		if got, want := h.Sum(bytes.Clone(prefix)), ref.Sum(bytes.Clone(prefix)); !bytes.Equal(got, want) {
			t.Fatalf("Sum = %x, hash/crc32 gives %x", got, want)
		}
	}
	h, ref := New(), crc32.New(castagnoli())
	if h.Size() != ref.Size() || h.BlockSize() != ref.BlockSize() {
		t.Errorf("Size, BlockSize = %d, %d; hash/crc32 gives %d, %d", h.Size(), h.BlockSize(), ref.Size(), ref.BlockSize())
	}
	h.Write(b[:1000])
	h.Reset()
	h.Write(b[:300])
	ref.Write(b[:300])
	if h.Sum32() != ref.Sum32() {
		t.Errorf("after Reset: Sum32 = %#x, hash/crc32 gives %#x", h.Sum32(), ref.Sum32())
	}
}

// xPowReflected is x^n mod P, P the CRC-32C polynomial, bit-reflected (x^0
// in bit 31), computed in the reflected domain where multiplying by x is a
// right shift and reducing is an xor with the reflected polynomial.
func xPowReflected(n int) uint32 {
	r := uint32(1) << 31
	for range n {
		low := r & 1
		r >>= 1
		if low != 0 {
			r ^= 0x82F63B78
		}
	}
	return r
}

// clmul is the carry-less product of a and b.
func clmul(a, b uint32) uint64 {
	var p uint64
	for i := range 32 {
		if b>>i&1 != 0 {
			p ^= uint64(a) << i
		}
	}
	return p
}

// xPowNormal is x^n mod P in the ordinary bit order (x^k in bit k), by
// square-and-multiply with carry-less products reduced bit by bit: a
// derivation independent of xPowReflected's.
func xPowNormal(n int) uint32 {
	const p = 1<<32 | 0x1EDC6F41
	mod := func(v uint64) uint32 {
		for i := 63; i >= 32; i-- {
			if v>>i&1 != 0 {
				v ^= p << (i - 32)
			}
		}
		return uint32(v)
	}
	result, base := uint32(1), uint32(2) // x^0, x^1
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			result = mod(clmul(result, base))
		}
		base = mod(clmul(base, base))
	}
	return result
}

// foldConstant is the stored form of x^n mod P: reflected and shifted left
// by one.
func foldConstant(n int) uint64 {
	r := xPowReflected(n)
	if nr := bits.Reverse32(xPowNormal(n)); nr != r {
		panic(fmt.Sprintf("x^%d mod P: %#x reflected, %#x in normal order reversed", n, r, nr))
	}
	return uint64(r) << 1
}

// TestFoldConstants recomputes the folding constants of crc32c_amd64.s
// from the polynomial and checks the literals there, every one of them:
// each table holds, per 16-byte lane, x^(8d+32) and x^(8d-32) mod P for
// the distance d in bytes that the lane is folded by (none: zeros).
func TestFoldConstants(t *testing.T) {
	want := map[string][]int{ // table → distance per lane
		"k256":   {256},
		"k192":   {192},
		"k128":   {128},
		"k64":    {64},
		"kLanes": {48, 32, 16, 0},
	}
	src, err := os.ReadFile("crc32c_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^DATA\s+(\w+)<>\+(\d+)\(SB\)/8,\s*\$(\w+)`)
	seen := map[string]map[int]uint64{}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		off, _ := strconv.Atoi(m[2])
		v, err := strconv.ParseUint(m[3], 0, 64)
		if err != nil {
			t.Fatalf("DATA %s+%d: %v", m[1], off, err)
		}
		if seen[m[1]] == nil {
			seen[m[1]] = map[int]uint64{}
		}
		seen[m[1]][off] = v
	}
	if len(seen) != len(want) {
		t.Errorf("crc32c_amd64.s has tables %v, want those of %v", seen, want)
	}
	for name, dists := range want {
		got := seen[name]
		if len(got) != 2*len(dists) {
			t.Errorf("%s: %d quadwords, want %d", name, len(got), 2*len(dists))
		}
		for lane, d := range dists {
			lo, hi := uint64(0), uint64(0)
			if d != 0 {
				lo, hi = foldConstant(8*d+32), foldConstant(8*d-32)
			}
			if v, ok := got[16*lane]; !ok || v != lo {
				t.Errorf("%s+%d = %#x, want x^%d mod P = %#x", name, 16*lane, v, 8*d+32, lo)
			}
			if v, ok := got[16*lane+8]; !ok || v != hi {
				t.Errorf("%s+%d = %#x, want x^%d mod P = %#x", name, 16*lane+8, v, 8*d-32, hi)
			}
		}
	}
}

// FuzzUpdate compares Update with hash/crc32 on the input and on the input
// repeated, so that most cases are long enough to be folded, starting at
// any offset.
func FuzzUpdate(f *testing.F) {
	f.Add(uint32(0), []byte("123456789"), uint8(0), uint8(0))
	f.Add(uint32(0xffffffff), bytes.Repeat([]byte{0xa5, 0x3c, 0x00}, 100), uint8(3), uint8(5))
	f.Add(uint32(0x12345678), []byte{}, uint8(200), uint8(1))
	f.Fuzz(func(t *testing.T, crc uint32, data []byte, reps, off uint8) {
		for _, p := range [][]byte{data, bytes.Repeat(data, 1+int(reps))} {
			p = p[min(int(off)%64, len(p)):]
			if got, want := Update(crc, p), crc32.Update(crc, castagnoli(), p); got != want {
				t.Fatalf("Update(%#x, %d bytes) = %#x, hash/crc32 gives %#x", crc, len(p), got, want)
			}
		}
	})
}

func BenchmarkUpdate(b *testing.B) {
	for _, size := range []int{256 << 10, 16 << 20} {
		buf := randomBytes(rand.New(rand.NewPCG(7, 8)), size)
		name := fmt.Sprintf("%dKiB", size>>10)
		if size >= 1<<20 {
			name = fmt.Sprintf("%dMiB", size>>20)
		}
		b.Run("crc32c/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				Update(0, buf)
			}
		})
		b.Run("hash-crc32/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			tab := castagnoli()
			for b.Loop() {
				crc32.Update(0, tab, buf)
			}
		})
	}
}
