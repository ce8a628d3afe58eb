package family

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// CheckPlanes is the worker-side check of an image of a family whose
// pixel_values keep image planes (Gemma 3, LLaVA, InternVL): pixels of
// exactly the shape want (the item's batch-of-one shape), no side tensor
// but the names in side, and tokens placeholder tokens. Its Summary's Head
// is the shape ("shape 1x3x896x896").
func CheckPlanes(r Received, want []int, tokens int, side ...string) (Summary, error) {
	s := Summary{Head: "shape " + joinInts(r.Primary.Shape, "x")}
	if r.Modality != vision.Image {
		return s, fmt.Errorf("a %v item: the model takes images only", r.Modality)
	}
	for _, t := range r.Side {
		if !slices.Contains(side, t.Name) {
			return s, fmt.Errorf("unexpected side tensor %s", t.Name)
		}
	}
	if !slices.Equal(r.Primary.Shape, want) {
		return s, fmt.Errorf("encoder_input shape %v, want %v", r.Primary.Shape, want)
	}
	if r.Tokens != tokens {
		return s, fmt.Errorf("%d placeholder tokens, shape %v needs %d", r.Tokens, want, tokens)
	}
	return s, nil
}

// CheckSizes checks the sizes tensor name of a flat input (Layout.Sizes)
// when the item carries it: a protocol that joins the items' inputs (vLLM,
// SGLang) gives each item its row of it, which must be its pixels' dim 0.
func CheckSizes(r Received, name string) error {
	t, ok := r.SideTensor(name)
	if !ok {
		return nil
	}
	v, err := ReadInt64s(t.Tensor, 1)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if len(r.Primary.Shape) == 0 || v[0] != int64(r.Primary.Shape[0]) {
		return fmt.Errorf("%s %d for encoder_input shape %v", name, v[0], r.Primary.Shape)
	}
	return nil
}

// Views returns the leading dimension of a [views, 3, h, w] pixels tensor,
// or 0 when the tensor has another rank.
func Views(t tensor.Tensor) int {
	if len(t.Shape) != 4 {
		return 0
	}
	return t.Shape[0]
}

// Int64Tensor is an int64 side tensor of the given shape holding v.
func Int64Tensor(name string, shape []int, v ...int64) NamedTensor {
	data := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(x))
	}
	return NamedTensor{Name: name, Tensor: tensor.Tensor{DType: tensor.Int64, Shape: slices.Clone(shape), Data: data}}
}

// ReadInt64s reads an int64 tensor holding exactly n values.
func ReadInt64s(t tensor.Tensor, n int) ([]int64, error) {
	if t.DType != tensor.Int64 || len(t.Data) != 8*n {
		return nil, fmt.Errorf("want %d int64 values, have %v %v", n, t.DType, t.Shape)
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return out, nil
}

func joinInts(v []int, sep string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, sep)
}
