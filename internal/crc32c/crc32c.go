package crc32c

import (
	"encoding/binary"
	"hash"
	"hash/crc32"
)

// Size is the size of a CRC-32C checksum in bytes.
const Size = 4

// Update returns the result of adding the bytes in p to crc, as
// crc32.Update with the Castagnoli table does.
func Update(crc uint32, p []byte) uint32 {
	crc, p = fold(crc, p)
	// MakeTable returns hash/crc32's one Castagnoli table, which selects
	// its SSE4.2 code.
	return crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), p)
}

// New returns a hash.Hash32 computing the CRC-32C checksum; its Sum and
// Sum32 equal those of crc32.New with the Castagnoli table.
func New() hash.Hash32 { return new(digest) }

// digest is the running checksum of what was written.
type digest struct{ crc uint32 }

func (d *digest) Size() int { return Size }

func (d *digest) BlockSize() int { return 1 }

func (d *digest) Reset() { d.crc = 0 }

func (d *digest) Write(p []byte) (int, error) {
	d.crc = Update(d.crc, p)
	return len(p), nil
}

func (d *digest) Sum32() uint32 { return d.crc }

// Sum appends the checksum in big-endian order, as hash/crc32 does.
func (d *digest) Sum(in []byte) []byte { return binary.BigEndian.AppendUint32(in, d.crc) }
