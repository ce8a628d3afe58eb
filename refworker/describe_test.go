package refworker

import (
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/mmgate/mmgate/internal/cpupool"
)

// TestFingerprintCRC32C checks that the CRC-32C fingerprint is hash/crc32's
// Castagnoli checksum in 8 hex digits, for items below, across and far past
// the pieces the worker hashes them in.
func TestFingerprintCRC32C(t *testing.T) {
	s := &Server{opts: Options{Fingerprint: CRC32C}}
	b := make([]byte, 15<<20+7)
	rand.NewChaCha8([32]byte{1}).Read(b)
	for _, n := range []int{0, 13, 300, cpupool.Piece - 1, cpupool.Piece + 77, len(b)} {
		want := fmt.Sprintf("%08x", crc32.Checksum(b[:n], crc32.MakeTable(crc32.Castagnoli)))
		if got := s.fingerprint(b[:n]); got != want {
			t.Errorf("fingerprint of %d bytes = %s, want %s", n, got, want)
		}
	}
}
