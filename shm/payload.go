package shm

// Handle locates a tensor's bytes in a shared-memory file: what a protocol's
// shared-memory handle message (smg.grpc.common.ShmHandle) carries.
type Handle struct {
	// Name is the file name under the shared-memory directory (no slash).
	Name string
	// Offset and NBytes are the tensor's byte range in the file.
	Offset, NBytes uint64
	// Owner is the producer's owner id (the lifetime owner of the file).
	Owner string
}

// Payload is where one tensor's bytes travel, as the gateway places them:
// inline in the message (Inline, when Shm is nil) or in a shared-memory
// segment (Shm).
type Payload struct {
	Inline []byte
	Shm    *Handle
}

// PayloadKind says which payload a received tensor has.
type PayloadKind uint8

const (
	// NoPayload: the tensor carries none (refused).
	NoPayload PayloadKind = iota
	// InlinePayload: the bytes are in the message.
	InlinePayload
	// ShmPayload: the bytes are in a shared-memory segment.
	ShmPayload
	// OtherPayload: a kind the reader does not take (a remote handle).
	OtherPayload
)

// Wire is one tensor as a worker receives it, not yet checked: dtype and
// shape as sent and its payload. A protocol package converts its tensor
// message into a Wire for Reader.Read.
type Wire struct {
	DType string
	Shape []uint32
	Kind  PayloadKind
	// Inline is the payload of an InlinePayload tensor.
	Inline []byte
	// Shm is the handle of a ShmPayload tensor.
	Shm Handle
	// Other names the payload of an OtherPayload tensor (for messages).
	Other string
}
