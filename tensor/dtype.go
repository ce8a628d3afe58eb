package tensor

import (
	"errors"
	"fmt"
)

// DType is an element type on the wire. The zero value is invalid.
type DType uint8

// The element types the TokenSpeed protocol names.
const (
	Float32 DType = iota + 1
	BFloat16
	Float16
	Int64
	Uint32
)

var dtypeNames = [...]string{Float32: "float32", BFloat16: "bfloat16", Float16: "float16", Int64: "int64", Uint32: "uint32"}
var dtypeSizes = [...]int{Float32: 4, BFloat16: 2, Float16: 2, Int64: 8, Uint32: 4}

// ErrDType is returned for an unknown dtype name or value.
var ErrDType = errors.New("tensor: unknown dtype")

// String returns the wire name ("float32", "bfloat16", ...).
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return dtypeNames[d]
}

// Valid reports whether d is one of the defined dtypes.
func (d DType) Valid() bool { return d >= Float32 && d <= Uint32 }

// Size is the number of bytes of one element (0 for an invalid dtype).
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return dtypeSizes[d]
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == Float32 || d == BFloat16 || d == Float16 }

// ParseDType maps a wire name to its DType.
func ParseDType(name string) (DType, error) {
	for d := Float32; d <= Uint32; d++ {
		if dtypeNames[d] == name {
			return d, nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrDType, name)
}

// MarshalText implements encoding.TextMarshaler (JSON prints the wire name).
func (d DType) MarshalText() ([]byte, error) {
	if !d.Valid() {
		return nil, fmt.Errorf("%w %d", ErrDType, uint8(d))
	}
	return []byte(dtypeNames[d]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *DType) UnmarshalText(b []byte) error {
	v, err := ParseDType(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
