package sglang

import (
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	"github.com/mmgate/mmgate/tensor"
)

// Name is the protocol's runtime label.
const Name = "sglang"

// Protocol is SGLang's protocol. Its zero value is ready to use.
type Protocol struct{}

var _ protocol.Protocol = Protocol{}

// Name returns "sglang".
func (Protocol) Name() string { return Name }

// Capabilities of the protocol (see the package documentation).
func (Protocol) Capabilities() protocol.Capabilities {
	return protocol.Capabilities{
		DTypes:   []tensor.DType{tensor.Float32},
		Layout:   protocol.LayoutFlat,
		RawMedia: true,
	}
}

// Client binds the protocol to a worker connection.
func (Protocol) Client(cc grpc.ClientConnInterface) protocol.Client {
	return &client{c: sglangpb.NewSglangSchedulerClient(cc)}
}

// Encode builds the GenerateRequest of req (see the package documentation).
func (Protocol) Encode(req *protocol.Request) (proto.Message, error) {
	return Encode(req)
}
