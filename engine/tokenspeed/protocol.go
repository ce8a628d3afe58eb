package tokenspeed

import (
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/tensor"
)

// Name is the protocol's runtime label.
const Name = "tokenspeed"

// Protocol is the TokenSpeed protocol. Its zero value is ready to use.
type Protocol struct{}

var _ protocol.Protocol = Protocol{}

// Name returns "tokenspeed".
func (Protocol) Name() string { return Name }

// Capabilities of the protocol (see the package documentation).
func (Protocol) Capabilities() protocol.Capabilities {
	return protocol.Capabilities{
		DTypes:        []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16},
		Shm:           true,
		Layout:        protocol.LayoutPerItem,
		MixModalities: true,
	}
}

// Client binds the protocol to a worker connection.
func (Protocol) Client(cc grpc.ClientConnInterface) protocol.Client {
	return &client{c: schedulerpb.NewTokenSpeedSchedulerClient(cc)}
}

// Encode builds the GenerateRequest of req (see the package documentation).
func (Protocol) Encode(req *protocol.Request) (proto.Message, error) {
	return Encode(req)
}
