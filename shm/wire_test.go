package shm

import "github.com/mmgate/mmgate/tensor"

// received is the Wire a worker gets for a tensor the gateway placed as p.
func received(p Payload, dt tensor.DType, shape []int) Wire {
	w := Wire{DType: dt.String()}
	for _, d := range shape {
		w.Shape = append(w.Shape, uint32(d))
	}
	if p.Shm != nil {
		w.Kind, w.Shm = ShmPayload, *p.Shm
	} else {
		w.Kind, w.Inline = InlinePayload, p.Inline
	}
	return w
}

// inlineWire is an inline tensor as received.
func inlineWire(data []byte, dtype string, shape ...uint32) Wire {
	return Wire{DType: dtype, Shape: shape, Kind: InlinePayload, Inline: data}
}

// sealed seals x's tensor as the gateway does and returns what the worker
// receives.
func sealed(x *Buffer, dt tensor.DType, shape []int) (Wire, error) {
	p, err := x.Payload(dt, shape)
	if err != nil {
		return Wire{}, err
	}
	return received(p, dt, shape), nil
}
