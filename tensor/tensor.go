package tensor

import (
	"errors"
	"fmt"
	"math"
)

// Tensor is a view of little-endian, C-order elements held in Data. Data is
// owned by the caller; a Tensor never copies it.
type Tensor struct {
	DType DType
	Shape []int
	Data  []byte
}

// ErrShape is returned when a shape is negative, overflows, or disagrees with
// the byte count.
var ErrShape = errors.New("tensor: bad shape")

// NumElements is the product of shape, or an error when a dimension is
// negative or the product overflows int.
func NumElements(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("%w: negative dimension in %v", ErrShape, shape)
		}
		if d != 0 && n > math.MaxInt/d {
			return 0, fmt.Errorf("%w: %v overflows", ErrShape, shape)
		}
		n *= d
	}
	return n, nil
}

// ByteSize is NumElements(shape) × dt.Size(), with overflow checks.
func ByteSize(dt DType, shape []int) (int, error) {
	if !dt.Valid() {
		return 0, fmt.Errorf("%w %d", ErrDType, uint8(dt))
	}
	n, err := NumElements(shape)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt/dt.Size() {
		return 0, fmt.Errorf("%w: %v × %s overflows", ErrShape, shape, dt)
	}
	return n * dt.Size(), nil
}

// New returns a Tensor over data after checking that its length matches.
func New(dt DType, shape []int, data []byte) (Tensor, error) {
	t := Tensor{DType: dt, Shape: shape, Data: data}
	return t, t.Validate()
}

// Validate checks that the dtype is known and len(Data) matches the shape.
func (t Tensor) Validate() error {
	n, err := ByteSize(t.DType, t.Shape)
	if err != nil {
		return err
	}
	if n != len(t.Data) {
		return fmt.Errorf("%w: %s%v needs %d bytes, have %d", ErrShape, t.DType, t.Shape, n, len(t.Data))
	}
	return nil
}

// NBytes is len(Data).
func (t Tensor) NBytes() int { return len(t.Data) }
