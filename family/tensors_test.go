package family

import (
	"testing"

	"github.com/mmgate/mmgate/tensor"
)

func TestSideTensorHelpers(t *testing.T) {
	g := GridTensor("image_grid_thw", [3]int64{1, 34, 46})
	if err := g.Validate(); err != nil || g.Name != "image_grid_thw" {
		t.Fatalf("grid %+v: %v", g, err)
	}
	if got, err := ReadGrid(g.Tensor); err != nil || got != [3]int64{1, 34, 46} {
		t.Errorf("ReadGrid = %v, %v", got, err)
	}
	f := Float32Tensor("second_per_grid_ts", 0.5)
	if got, err := ReadFloat32s(f.Tensor); f.Validate() != nil || err != nil || len(got) != 1 || got[0] != 0.5 {
		t.Errorf("float32 %v, %v", got, err)
	}
	if _, err := ReadFloat32s(g.Tensor); err == nil {
		t.Error("ReadFloat32s read an int64 tensor")
	}
	for _, bad := range []tensor.Tensor{f.Tensor, GridTensor("g", [3]int64{1, 0, 2}).Tensor, GridTensor("g", [3]int64{1, MaxGrid + 1, 2}).Tensor} {
		if _, err := ReadGrid(bad); err == nil {
			t.Errorf("ReadGrid accepted %+v", bad)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = GridTensor("g", [3]int64{1, 2, 3}) }); n > 1 {
		t.Errorf("GridTensor makes %v allocations, want 1", n)
	}
}
