package refworker

import (
	"encoding/binary"
	"testing"

	"github.com/mmgate/mmgate/tensor"
)

// FuzzSplitItems: any tensors and layout a gateway sends are divided into
// items or refused with a status, never a panic, and the parts of a flat
// tensor cover it exactly.
func FuzzSplitItems(f *testing.F) {
	f.Add(uint8(2), uint8(6), []byte{2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0}, true, true)
	f.Add(uint8(1), uint8(3), []byte{3, 0, 0, 0, 0, 0, 0, 0}, false, true)
	f.Add(uint8(3), uint8(0), []byte{}, true, false)
	f.Fuzz(func(t *testing.T, n, rows uint8, sizes []byte, batched, flat bool) {
		items := int(n%8) + 1
		pixels := tensor.Tensor{DType: tensor.Float32, Shape: []int{int(rows), 2}, Data: make([]byte, int(rows)*8)}
		sz := tensor.Tensor{DType: tensor.Int64, Shape: []int{len(sizes) / 8}, Data: sizes[:len(sizes)/8*8]}
		grid := tensor.Tensor{DType: tensor.Int64, Shape: []int{items, 3}, Data: make([]byte, items*24)}
		l := splitLayout{batched: map[string]bool{"grid": batched, "sizes": batched}, flat: map[string]string{}}
		if flat {
			l.flat["pixels"] = "sizes"
		}
		parts, err := splitItems(map[string]tensor.Tensor{"pixels": pixels, "sizes": sz, "grid": grid}, l, items)
		if err != nil {
			return
		}
		if len(parts) != items {
			t.Fatalf("%d parts for %d items", len(parts), items)
		}
		if flat {
			total := 0
			for k, p := range parts {
				total += p["pixels"].Shape[0]
				if want := int(binary.LittleEndian.Uint64(sizes[8*k:])); p["pixels"].Shape[0] != want {
					t.Fatalf("item %d: %d rows, size %d", k, p["pixels"].Shape[0], want)
				}
			}
			if total != int(rows) {
				t.Fatalf("parts cover %d of %d rows", total, rows)
			}
		}
	})
}
