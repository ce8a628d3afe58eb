package smgwire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Flat is the media items of one request as protocols that join them carry
// them: one encoder input and one tensor per side name.
type Flat struct {
	Modality vision.Modality
	// Input is the items' encoder inputs joined along dim 0, named as the
	// first item's.
	Input protocol.Tensor
	// Side are the side tensors in the first item's order: a batched
	// name's tensors joined along dim 0, a shared name's one tensor, then
	// the sizes tensor of a flat input (Fields.Sizes).
	Side []protocol.Tensor
	// Fields, PadToken: the items' (equal in every item).
	Fields   protocol.Fields
	PadToken *uint32
}

// Flatten joins items (at least one, in prompt order) into one Flat.
// Errors wrap protocol.ErrUnsupportedParam for items of several
// modalities, else protocol.ErrBadRequest (items that disagree on their
// fields, pad token, dtypes or side tensors, a batched input whose items
// are not one row each, inputs that cannot be joined without a copy of
// shared memory).
func Flatten(items []protocol.MediaItem) (*Flat, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("no media items: %w", protocol.ErrBadRequest)
	}
	first := &items[0]
	f := &Flat{Modality: first.Modality, Fields: first.Fields, PadToken: first.PadToken}
	inputs := make([]protocol.Tensor, len(items))
	for i := range items {
		it := &items[i]
		switch {
		case it.Modality != f.Modality:
			return nil, fmt.Errorf("media items of several modalities (%v, %v) in one request: %w", f.Modality, it.Modality, protocol.ErrUnsupportedParam)
		case !sameFields(it.Fields, f.Fields):
			return nil, fmt.Errorf("item %d: field layout %+v differs from item 0's %+v: %w", i, it.Fields, f.Fields, protocol.ErrBadRequest)
		case (it.PadToken == nil) != (f.PadToken == nil) || it.PadToken != nil && *it.PadToken != *f.PadToken:
			return nil, fmt.Errorf("item %d: pad token differs from item 0's: %w", i, protocol.ErrBadRequest)
		case f.Fields.Sizes == "" && (len(it.Input.Shape) == 0 || it.Input.Shape[0] != 1):
			return nil, fmt.Errorf("item %d: a batched %s must have one row per item, not shape %v: %w", i, it.Input.Name, it.Input.Shape, protocol.ErrBadRequest)
		}
		inputs[i] = it.Input
	}
	in, err := Join(inputs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", first.Input.Name, err)
	}
	f.Input = in
	if f.Side, err = joinSide(items); err != nil {
		return nil, err
	}
	if s := f.Fields.Sizes; s != "" {
		if s == f.Input.Name || slices.ContainsFunc(f.Side, func(t protocol.Tensor) bool { return t.Name == s }) {
			return nil, fmt.Errorf("sizes tensor %q is also an item tensor: %w", s, protocol.ErrBadRequest)
		}
		f.Side = append(f.Side, Sizes(s, items))
	}
	return f, nil
}

func sameFields(a, b protocol.Fields) bool {
	return a.Sizes == b.Sizes && slices.Equal(a.Batched, b.Batched) && slices.Equal(a.KeepOnCPU, b.KeepOnCPU)
}

// joinSide joins the items' side tensors by name: each item must have the
// same names; batched names are joined along dim 0, other names are shared
// and must hold the same bytes in every item.
func joinSide(items []protocol.MediaItem) ([]protocol.Tensor, error) {
	first := items[0].Side
	var out []protocol.Tensor
	for k, t := range first {
		if t.Name == "" || t.Name == items[0].Input.Name || slices.ContainsFunc(first[:k], func(u protocol.Tensor) bool { return u.Name == t.Name }) {
			return nil, fmt.Errorf("side tensor name %q empty, repeated or the input's: %w", t.Name, protocol.ErrBadRequest)
		}
		parts := make([]protocol.Tensor, len(items))
		for i := range items {
			j := slices.IndexFunc(items[i].Side, func(u protocol.Tensor) bool { return u.Name == t.Name })
			if j < 0 || len(items[i].Side) != len(first) {
				return nil, fmt.Errorf("item %d: side tensors differ from item 0's: %w", i, protocol.ErrBadRequest)
			}
			parts[i] = items[i].Side[j]
		}
		if !slices.Contains(items[0].Fields.Batched, t.Name) {
			for i, p := range parts {
				if p.Payload.Shm != nil || p.DType != t.DType || !slices.Equal(p.Shape, t.Shape) || !bytes.Equal(p.Payload.Inline, t.Payload.Inline) {
					return nil, fmt.Errorf("item %d: %s is shared by the items but differs: %w", i, t.Name, protocol.ErrBadRequest)
				}
			}
			out = append(out, t)
			continue
		}
		j, err := Join(parts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		out = append(out, j)
	}
	return out, nil
}

// Sizes is the int64 [N] tensor of each item's input dim 0.
func Sizes(name string, items []protocol.MediaItem) protocol.Tensor {
	b := make([]byte, 8*len(items))
	for i := range items {
		if sh := items[i].Input.Shape; len(sh) > 0 {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(sh[0]))
		}
	}
	return protocol.InlineTensor(name, tensor.Int64, []int{len(items)}, b)
}

// Join joins tensors of one dtype and equal trailing dimensions along dim 0
// into one tensor named as the first (see the package documentation for
// payloads). Errors wrap protocol.ErrBadRequest.
func Join(ts []protocol.Tensor) (protocol.Tensor, error) {
	if len(ts) == 0 {
		return protocol.Tensor{}, fmt.Errorf("nothing to join: %w", protocol.ErrBadRequest)
	}
	t0 := ts[0]
	shape := slices.Clone(t0.Shape)
	for i, t := range ts {
		n, err := tensor.ByteSize(t.DType, t.Shape)
		switch {
		case err != nil:
			return protocol.Tensor{}, fmt.Errorf("part %d: %w: %w", i, protocol.ErrBadRequest, err)
		case len(t.Shape) == 0 || t.DType != t0.DType || !slices.Equal(t.Shape[1:], t0.Shape[1:]):
			return protocol.Tensor{}, fmt.Errorf("part %d is %v%v, part 0 %v%v: not joinable along dim 0: %w", i, t.DType, t.Shape, t0.DType, t0.Shape, protocol.ErrBadRequest)
		case payloadSize(t.Payload) != n:
			return protocol.Tensor{}, fmt.Errorf("part %d: payload of %d bytes for %v%v: %w", i, payloadSize(t.Payload), t.DType, t.Shape, protocol.ErrBadRequest)
		}
		if i > 0 {
			shape[0] += t.Shape[0]
		}
	}
	p, err := joinPayloads(ts)
	if err != nil {
		return protocol.Tensor{}, err
	}
	return protocol.Tensor{Name: t0.Name, DType: t0.DType, Shape: shape, Payload: p}, nil
}

func payloadSize(p shm.Payload) int {
	if p.Shm != nil {
		return int(p.Shm.NBytes)
	}
	return len(p.Inline)
}

// joinPayloads joins consecutive ranges of one segment, or inline slices
// (without a copy when they are adjacent in memory).
func joinPayloads(ts []protocol.Tensor) (shm.Payload, error) {
	if len(ts) == 1 {
		return ts[0].Payload, nil
	}
	if h0 := ts[0].Payload.Shm; h0 != nil {
		h := *h0
		for i, t := range ts[1:] {
			s := t.Payload.Shm
			if s == nil || s.Name != h.Name || s.Owner != h.Owner || s.Offset != h.Offset+h.NBytes {
				return shm.Payload{}, fmt.Errorf("part %d is not the next range of segment %s: %w", i+1, h.Name, protocol.ErrBadRequest)
			}
			h.NBytes += s.NBytes
		}
		return shm.Payload{Shm: &h}, nil
	}
	total := 0
	for i, t := range ts {
		if t.Payload.Shm != nil {
			return shm.Payload{}, fmt.Errorf("part %d in shared memory, part 0 inline: %w", i, protocol.ErrBadRequest)
		}
		total += len(t.Payload.Inline)
	}
	return shm.Payload{Inline: joinInline(ts, total)}, nil
}

// joinInline returns the parts' bytes as one slice: the parts themselves
// when each starts where the previous ends, else a copy.
func joinInline(ts []protocol.Tensor, total int) []byte {
	first := ts[0].Payload.Inline
	if cap(first) >= total {
		joined, off := first[:total:total], 0
		adjacent := true
		for _, t := range ts {
			b := t.Payload.Inline
			if len(b) > 0 && &joined[off] != &b[0] {
				adjacent = false
				break
			}
			off += len(b)
		}
		if adjacent {
			return joined
		}
	}
	out := make([]byte, 0, total)
	for _, t := range ts {
		out = append(out, t.Payload.Inline...)
	}
	return out
}
