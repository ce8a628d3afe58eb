package shm

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mmgate/mmgate/tensor"
)

// BenchmarkSegment measures one segment's life on /dev/shm: create, reserve,
// fill, seal, read by a Reader (map, unlink), release both mappings.
func BenchmarkSegment(b *testing.B) {
	for _, n := range []int{1 << 20, 16 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("%dMiB", n>>20), func(b *testing.B) {
			p, err := New(Options{Budget: -1})
			if err != nil || !p.Usable() {
				b.Skipf("no usable %s: %v", DefaultDir, p.Probe().Err)
			}
			defer p.Close()
			r, err := NewReader(ReaderOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.SetBytes(int64(n))
			for b.Loop() {
				batch := p.NewBatch(nil, "bench")
				s, err := batch.Alloc(n)
				if err != nil {
					b.Fatal(err)
				}
				mem := s.Bytes()
				for i := 0; i < len(mem); i += 4096 {
					mem[i] = byte(i)
				}
				s.Seal()
				v, err := r.Read(Wire{Shape: []uint32{uint32(n / 4)}, DType: "uint32",
					Kind: ShmPayload, Shm: s.Handle()})
				if err != nil {
					b.Fatal(err)
				}
				var sum byte
				for i := 0; i < len(v.Data); i += 4096 {
					sum += v.Data[i]
				}
				_ = sum
				batch.Commit()
				v.Close()
			}
		})
	}
}

// qwenImageBytes is the encoder input of one 1280×960 image for Qwen3-VL in
// bfloat16: 60×80 patches of 3×2×16×16 values, 2 bytes each.
const qwenImageBytes = 60 * 80 * 1536 * 2

// BenchmarkPlaceFillCommit measures the gateway's side of one request's
// tensor on /dev/shm — Place, fill every byte, Payload, Commit — with
// fresh segments (the worker unlinks each after reading) and with reused
// ones (the worker keeps them). worker=map adds the worker's read (map,
// unmap; unlink without reuse); worker=none stands in for it by unlinking
// the fresh segment, as the worker would.
func BenchmarkPlaceFillCommit(b *testing.B) {
	src := make([]byte, qwenImageBytes)
	for i := range src {
		src[i] = byte(i * 31)
	}
	for _, reuse := range []bool{false, true} {
		for _, worker := range []string{"none", "map"} {
			b.Run(fmt.Sprintf("reuse=%v/worker=%s", reuse, worker), func(b *testing.B) {
				p, err := New(Options{Budget: -1})
				if err != nil || !p.Usable() {
					b.Skipf("no usable %s: %v", DefaultDir, p.Probe().Err)
				}
				defer p.Close()
				r, err := NewReader(ReaderOptions{KeepFiles: reuse})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				route := Route{Mode: ModeShm, Reuse: reuse}
				b.SetBytes(qwenImageBytes)
				for b.Loop() {
					batch := p.NewBatch(nil, "bench")
					x, err := batch.Place(route, qwenImageBytes, "image")
					if err != nil {
						b.Fatal(err)
					}
					copy(x.Bytes(), src)
					td, err := sealed(x, tensor.BFloat16, []int{60 * 80, 1536})
					if err != nil {
						b.Fatal(err)
					}
					switch {
					case worker == "map":
						v, err := r.Read(td)
						if err != nil {
							b.Fatal(err)
						}
						v.Close()
					case !reuse:
						_ = unix.Unlinkat(p.dirfd, td.Shm.Name, 0)
					}
					batch.Commit()
				}
			})
		}
	}
}
