package smgwire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

func TestJoin(t *testing.T) {
	buf := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	part := func(b []byte, rows int) protocol.Tensor {
		return protocol.Tensor{Name: "x", DType: tensor.Float32, Shape: []int{rows, 1}, Payload: shm.Payload{Inline: b}}
	}
	// Adjacent slices of one buffer: the buffer itself.
	j, err := Join([]protocol.Tensor{part(buf[0:4], 1), part(buf[4:12], 2)})
	if err != nil || &j.Payload.Inline[0] != &buf[0] || len(j.Payload.Inline) != 12 || j.Shape[0] != 3 {
		t.Errorf("adjacent: %+v %v", j, err)
	}
	// Separate buffers: a copy with the same bytes.
	a, b := []byte{1, 2, 3, 4}, []byte{5, 6, 7, 8}
	j, err = Join([]protocol.Tensor{part(a, 1), part(b, 1)})
	if err != nil || !bytes.Equal(j.Payload.Inline, []byte{1, 2, 3, 4, 5, 6, 7, 8}) || &j.Payload.Inline[0] == &a[0] {
		t.Errorf("copy: %+v %v", j, err)
	}
	// Slices of one buffer out of order are not adjacent either.
	j, err = Join([]protocol.Tensor{part(buf[4:8], 1), part(buf[0:4], 1)})
	if err != nil || !bytes.Equal(j.Payload.Inline, []byte{5, 6, 7, 8, 1, 2, 3, 4}) {
		t.Errorf("out of order: %+v %v", j, err)
	}
	for name, ts := range map[string][]protocol.Tensor{
		"payload size":   {part(buf[0:3], 1)},
		"trailing dims":  {part(buf[0:4], 1), {Name: "x", DType: tensor.Float32, Shape: []int{1, 2}, Payload: shm.Payload{Inline: buf[4:12]}}},
		"dtype":          {part(buf[0:4], 1), {Name: "x", DType: tensor.Uint32, Shape: []int{1, 1}, Payload: shm.Payload{Inline: buf[4:8]}}},
		"inline and shm": {part(buf[0:4], 1), {Name: "x", DType: tensor.Float32, Shape: []int{1, 1}, Payload: shm.Payload{Shm: &shm.Handle{Name: "s", NBytes: 4}}}},
		"nothing":        nil,
	} {
		if _, err := Join(ts); !errors.Is(err, protocol.ErrBadRequest) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
