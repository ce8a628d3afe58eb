// Package tensordata converts between the TokenSpeed protocol's tensor
// messages (tokenspeed.grpc.scheduler.TensorData with its
// smg.grpc.common.ShmHandle) and the shm package's protocol-neutral
// descriptions: shm.Payload on the gateway side, shm.Wire on the worker side.
// It is a leaf shared by the TokenSpeed client (engine/tokenspeed), the
// reference worker and the transport benchmark, so that the shm package
// itself knows no protocol.
package tensordata

import (
	"fmt"

	"github.com/mmgate/mmgate/engine/smgwire"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// Handle is h as the wire's ShmHandle.
func Handle(h shm.Handle) *commonpb.ShmHandle { return smgwire.Handle(h) }

// Encode builds the TensorData of a tensor of dtype dt and shape placed as p.
// A dimension over the wire's uint32 range fails with tensor.ErrShape.
func Encode(dt tensor.DType, shape []int, p shm.Payload) (*schedulerpb.TensorData, error) {
	dims, err := smgwire.Dims(shape)
	if err != nil {
		return nil, fmt.Errorf("tensordata: %w", err)
	}
	td := &schedulerpb.TensorData{Shape: dims, Dtype: dt.String()}
	if p.Shm != nil {
		td.Payload = &schedulerpb.TensorData_Shm{Shm: Handle(*p.Shm)}
	} else {
		td.Payload = &schedulerpb.TensorData_Inline{Inline: p.Inline}
	}
	return td, nil
}

// Wire is td as the shm reader takes it. A nil td has no payload.
func Wire(td *schedulerpb.TensorData) shm.Wire {
	return smgwire.Wire(td)
}

// Reader reads TokenSpeed tensors with an shm.Reader (the worker side). It
// is safe for concurrent use when its shm.Reader is.
type Reader struct{ *shm.Reader }

// Read is shm.Reader.Read for a TensorData; a nil td is refused with
// shm.ErrBadHandle.
func (r Reader) Read(td *schedulerpb.TensorData) (*shm.View, error) {
	if td == nil {
		return nil, fmt.Errorf("shm: read: nil tensor: %w", shm.ErrBadHandle)
	}
	return r.Reader.Read(Wire(td))
}

// ReadInto is shm.Reader.ReadInto for a TensorData.
func (r Reader) ReadInto(td *schedulerpb.TensorData, buf []byte) (tensor.Tensor, error) {
	if td == nil {
		return tensor.Tensor{}, fmt.Errorf("shm: read: nil tensor: %w", shm.ErrBadHandle)
	}
	return r.Reader.ReadInto(Wire(td), buf)
}

// Seal seals the tensor filled into x (shm.Buffer.Payload) and encodes it.
func Seal(x *shm.Buffer, dt tensor.DType, shape []int) (*schedulerpb.TensorData, error) {
	p, err := x.Payload(dt, shape)
	if err != nil {
		return nil, err
	}
	return Encode(dt, shape, p)
}
