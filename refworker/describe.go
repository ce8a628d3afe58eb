package refworker

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"

	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/crc32c"
	"github.com/mmgate/mmgate/vision"
)

// Fingerprint names the digest the worker reports per item.
type Fingerprint string

// The fingerprints: SHA-256 (64 hex digits, the default) or CRC-32C
// (8 hex digits, cheap enough for benchmarks).
const (
	SHA256 Fingerprint = "sha256"
	CRC32C Fingerprint = "crc32c"
)

// ParseFingerprint accepts "sha256", "crc32c" or "" (SHA-256).
func ParseFingerprint(s string) (Fingerprint, error) {
	switch s {
	case "", "sha256":
		return SHA256, nil
	case "crc32c":
		return CRC32C, nil
	}
	return "", fmt.Errorf("refworker: fingerprint %q is not sha256 or crc32c", s)
}

// fingerprint is the lower-case hex digest of b.
func (s *Server) fingerprint(b []byte) string {
	var h hash.Hash = sha256.New()
	if s.opts.Fingerprint == CRC32C {
		h = crc32c.New() // hash/crc32's Castagnoli digest, folded with AVX-512 where the CPU has it
	}
	cpupool.Write(h, b) // preemptible between pieces
	return hex.EncodeToString(h.Sum(nil))
}

// idsBytes is the little-endian uint32 encoding of ids, for fingerprinting the
// prompt the worker received.
func idsBytes(ids []uint32) []byte {
	b := make([]byte, 4*len(ids))
	for i, id := range ids {
		binary.LittleEndian.PutUint32(b[4*i:], id)
	}
	return b
}

// describe is the reply text: one line for the prompt, then one line per item
// with what the model's family reports about it, for example
//
//	image 1: grid 1x34x46, bfloat16 via shm, sha256 <64 hex digits>
func (s *Server) describe(ids []uint32, items []received) string {
	var b strings.Builder
	fmt.Fprintf(&b, "prompt: %d tokens, %s %s\n", len(ids), s.opts.Fingerprint, s.fingerprint(idsBytes(ids)))
	count := map[vision.Modality]int{}
	for _, it := range items {
		count[it.Modality]++
		name := it.Modality.String()
		fmt.Fprintf(&b, "%s %d: %s, %s via %s, %s %s", name, count[it.Modality],
			it.Summary.Head, it.DType, it.Path, s.opts.Fingerprint, it.Fingerprint)
		for _, n := range it.Summary.Notes {
			b.WriteString(", ")
			b.WriteString(n)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
