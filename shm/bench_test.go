package shm

import (
	"fmt"
	"testing"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
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
				v, err := r.Read(&schedulerpb.TensorData{Shape: []uint32{uint32(n / 4)}, Dtype: "uint32",
					Payload: &schedulerpb.TensorData_Shm{Shm: s.Handle()}})
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
