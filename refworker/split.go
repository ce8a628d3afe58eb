package refworker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// splitLayout says how the tensors of a request that joins its items' tensors
// (vLLM, SGLang) divide into items: a batched tensor has the item as dim
// 0, a flat one is cut along dim 0 by a sizes tensor, any other is shared
// by every item.
type splitLayout struct {
	batched map[string]bool
	flat    map[string]string // tensor → its sizes tensor
}

// splitItems divides ts into n items: per item, each tensor's part.
// Errors are the statuses vLLM's servicer answers: a missing sizes tensor
// or sizes that do not add up fail inside the engine (INTERNAL), a batched
// tensor without one row per item is refused.
func splitItems(ts map[string]tensor.Tensor, l splitLayout, n int) ([]map[string]tensor.Tensor, error) {
	parts := make([]map[string]tensor.Tensor, n)
	for k := range parts {
		parts[k] = map[string]tensor.Tensor{}
	}
	// Batched and shared tensors first, then the flat ones, each in name
	// order: the same refusal for the same request.
	names := sortedKeys(ts)
	slices.SortStableFunc(names, func(a, b string) int { return cmpBool(l.flat[a] != "", l.flat[b] != "") })
	for _, name := range names {
		t := ts[name]
		var sizes []int
		switch {
		case l.batched[name]:
			if len(t.Shape) == 0 || t.Shape[0] != n {
				return nil, invalid("batched %s has shape %v, not one row per item of %d", name, t.Shape, n)
			}
			sizes = ones(n)
		case l.flat[name] != "":
			st, ok := ts[l.flat[name]]
			if !ok {
				return nil, status.Errorf(codes.Internal, "KeyError: sizes tensor %q of flat %s is missing", l.flat[name], name)
			}
			var err error
			if sizes, err = readSizes(st, n); err != nil {
				return nil, status.Errorf(codes.Internal, "sizes %s of %s: %v", l.flat[name], name, err)
			}
		default:
			for k := range parts {
				parts[k][name] = t
			}
			continue
		}
		cut, err := cutRows(t, sizes)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%s: %v", name, err)
		}
		for k := range parts {
			parts[k][name] = cut[k]
		}
	}
	return parts, nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func ones(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// readSizes reads n non-negative integer sizes (int64 or uint32).
func readSizes(t tensor.Tensor, n int) ([]int, error) {
	var out []int
	switch t.DType {
	case tensor.Int64:
		for k := 0; k+8 <= len(t.Data); k += 8 {
			out = append(out, int(int64(binary.LittleEndian.Uint64(t.Data[k:]))))
		}
	case tensor.Uint32:
		for k := 0; k+4 <= len(t.Data); k += 4 {
			out = append(out, int(binary.LittleEndian.Uint32(t.Data[k:])))
		}
	default:
		return nil, fmt.Errorf("dtype %v is not an integer type", t.DType)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%d sizes for %d items", len(out), n)
	}
	for _, v := range out {
		if v < 0 {
			return nil, errors.New("a negative size")
		}
	}
	return out, nil
}

// cutRows cuts t along dim 0 into parts of sizes rows, which must add up to
// its rows.
func cutRows(t tensor.Tensor, sizes []int) ([]tensor.Tensor, error) {
	if len(t.Shape) == 0 {
		return nil, errors.New("a scalar has no rows")
	}
	rowBytes, err := tensor.ByteSize(t.DType, t.Shape[1:])
	if err != nil {
		return nil, err
	}
	total := 0
	for _, s := range sizes {
		if s > t.Shape[0]-total {
			return nil, fmt.Errorf("sizes add up to more than the tensor's %d rows", t.Shape[0])
		}
		total += s
	}
	if total != t.Shape[0] {
		return nil, fmt.Errorf("sizes add up to %d, the tensor has %d rows", total, t.Shape[0])
	}
	out := make([]tensor.Tensor, len(sizes))
	row := 0
	for k, s := range sizes {
		shape := append([]int{s}, t.Shape[1:]...)
		out[k] = tensor.Tensor{DType: t.DType, Shape: shape, Data: t.Data[row*rowBytes : (row+s)*rowBytes]}
		row += s
	}
	return out, nil
}

// sideOf are an item's parts other than its primary tensor, in name order.
func sideOf(part map[string]tensor.Tensor, primary string) []family.NamedTensor {
	var out []family.NamedTensor
	for _, name := range sortedKeys(part) {
		if name != primary {
			out = append(out, family.NamedTensor{Name: name, Tensor: part[name]})
		}
	}
	return out
}

// readStatus is the status of a tensor the worker could not read: a bad
// handle or payload is refused, anything else (a file that is gone) fails
// inside the worker.
func readStatus(err error) error {
	if errors.Is(err, shm.ErrBadHandle) {
		return invalid("%v", err)
	}
	return status.Errorf(codes.Internal, "%v", err)
}

// views holds the tensors a request read, to close once it is checked.
type views []*shm.View

func (vs views) close() {
	for _, v := range vs {
		v.Close()
	}
}
