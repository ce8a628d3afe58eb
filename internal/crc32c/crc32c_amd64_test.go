//go:build amd64 && !purego

package crc32c

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestFoldAVX512 calls the folding code itself, so that a CPU without it
// shows as a skip rather than as hash/crc32 passing for it.
func TestFoldAVX512(t *testing.T) {
	if !hasFoldAVX512() {
		t.Skip("the CPU lacks AVX-512 VPCLMULQDQ: Update is hash/crc32 here")
	}
	r := rand.New(rand.NewPCG(9, 10))
	big := randomBytes(r, 64<<10+64)
	for off := 0; off < 64; off++ {
		for n := foldMin; n <= 4096; n += 64 {
			p := big[off : off+n]
			s := r.Uint32()
			if got, want := foldAVX512(s, p), ^crc32.Update(^s, castagnoli(), p); got != want {
				t.Fatalf("offset %d, %d bytes: foldAVX512(%#x) = %#x, hash/crc32 gives %#x", off, n, s, got, want)
			}
		}
	}
	p := big[5 : 5+64<<10]
	if got, want := foldAVX512(0, p), ^crc32.Update(^uint32(0), castagnoli(), p); got != want {
		t.Fatalf("%d bytes: foldAVX512 = %#x, hash/crc32 gives %#x", len(p), got, want)
	}
}

// TestFoldTaken checks that Update goes through the folding code where the
// CPU has it: everything but the tail shorter than 64 bytes.
func TestFoldTaken(t *testing.T) {
	if !hasFoldAVX512() {
		t.Skip("the CPU lacks AVX-512 VPCLMULQDQ: Update is hash/crc32 here")
	}
	for _, n := range []int{foldMin - 1, foldMin, 1000, 1 << 20} {
		_, rest := fold(0, make([]byte, n))
		want := n % 64
		if n < foldMin {
			want = n
		}
		if len(rest) != want {
			t.Errorf("fold of %d bytes leaves %d, want %d", n, len(rest), want)
		}
	}
}
