package tensor

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// chunkElems bounds the work one goroutine takes at a time when encoding in
// parallel: 256 Ki elements (1 MiB of float32 input).
const chunkElems = 1 << 18

// EncodeFloat32 writes src into dst as dt (Float32, BFloat16 or Float16),
// little-endian. len(dst) must be len(src)·dt.Size().
func EncodeFloat32(dst []byte, src []float32, dt DType) error {
	if err := checkEncode(dst, src, dt); err != nil {
		return err
	}
	encode(dst, src, dt)
	return nil
}

// EncodeFloat32Parallel is EncodeFloat32 split into bounded chunks spread over
// up to workers goroutines (GOMAXPROCS when workers ≤ 0). The bytes written
// are identical to the serial path's.
func EncodeFloat32Parallel(ctx context.Context, dst []byte, src []float32, dt DType, workers int) error {
	if err := checkEncode(dst, src, dt); err != nil {
		return err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 || len(src) <= chunkElems {
		encode(dst, src, dt)
		return nil
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	size := dt.Size()
	for lo := 0; lo < len(src); lo += chunkElems {
		hi := min(lo+chunkElems, len(src))
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			encode(dst[lo*size:hi*size], src[lo:hi], dt)
			return nil
		})
	}
	return g.Wait()
}

func checkEncode(dst []byte, src []float32, dt DType) error {
	if !dt.IsFloat() {
		return fmt.Errorf("%w: cannot encode float32 as %s", ErrDType, dt)
	}
	if len(dst) != len(src)*dt.Size() {
		return fmt.Errorf("%w: %d float32 values need %d bytes as %s, dst has %d", ErrShape, len(src), len(src)*dt.Size(), dt, len(dst))
	}
	return nil
}

func encode(dst []byte, src []float32, dt DType) {
	switch dt {
	case Float32:
		for i, v := range src {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
		}
	case BFloat16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], BFloat16FromFloat32(v))
		}
	case Float16:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], Float16FromFloat32(v))
		}
	}
}

// PutFloat32 writes one float32 value as dt at dst[0:dt.Size()]. It is the
// per-element form used by kernels that produce values in their final layout.
func PutFloat32(dst []byte, v float32, dt DType) {
	switch dt {
	case Float32:
		binary.LittleEndian.PutUint32(dst, math.Float32bits(v))
	case BFloat16:
		binary.LittleEndian.PutUint16(dst, BFloat16FromFloat32(v))
	case Float16:
		binary.LittleEndian.PutUint16(dst, Float16FromFloat32(v))
	}
}
