package family

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mmgate/mmgate/tensor"
)

// GridTensor is a *_grid_thw side tensor: int64 [1, 3] holding g. Its
// bytes and shape share one allocation (it is built per media item).
func GridTensor(name string, g [3]int64) NamedTensor {
	m := &struct {
		data  [24]byte
		shape [2]int
	}{shape: [2]int{1, 3}}
	for i, v := range g {
		binary.LittleEndian.PutUint64(m.data[8*i:], uint64(v))
	}
	return NamedTensor{Name: name, Tensor: tensor.Tensor{DType: tensor.Int64, Shape: m.shape[:], Data: m.data[:]}}
}

// Float32Tensor is a one-value float32 [1] side tensor (one allocation).
func Float32Tensor(name string, v float32) NamedTensor {
	m := &struct {
		data  [4]byte
		shape [1]int
	}{shape: [1]int{1}}
	binary.LittleEndian.PutUint32(m.data[:], math.Float32bits(v))
	return NamedTensor{Name: name, Tensor: tensor.Tensor{DType: tensor.Float32, Shape: m.shape[:], Data: m.data[:]}}
}

// MaxGrid bounds each value ReadGrid accepts.
const MaxGrid = 1 << 20

// ReadGrid reads a grid tensor as a worker receives it: int64 holding
// exactly three values (shape [1, 3] or [3]), each in 1..MaxGrid.
func ReadGrid(t tensor.Tensor) ([3]int64, error) {
	var g [3]int64
	if t.DType != tensor.Int64 || len(t.Data) != 24 {
		return g, fmt.Errorf("want int64 [1, 3], have %v %v", t.DType, t.Shape)
	}
	for k := range g {
		g[k] = int64(binary.LittleEndian.Uint64(t.Data[8*k:]))
		if g[k] <= 0 || g[k] > MaxGrid {
			return g, fmt.Errorf("grid value %d out of range", g[k])
		}
	}
	return g, nil
}

// ReadFloat32s reads a float32 tensor's values.
func ReadFloat32s(t tensor.Tensor) ([]float32, error) {
	if t.DType != tensor.Float32 {
		return nil, fmt.Errorf("must be float32, not %v", t.DType)
	}
	out := make([]float32, 0, len(t.Data)/4)
	for k := 0; k+4 <= len(t.Data); k += 4 {
		out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(t.Data[k:])))
	}
	return out, nil
}
