package smgwire

import (
	"fmt"
	"math"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mmgate/mmgate/engine/protocol"
	commonpb "github.com/mmgate/mmgate/proto/common"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Handle is h as the wire's ShmHandle.
func Handle(h shm.Handle) *commonpb.ShmHandle {
	return &commonpb.ShmHandle{Name: h.Name, Offset: h.Offset, Nbytes: h.NBytes, OwnerId: h.Owner}
}

// HandleIn is a wire ShmHandle as shm describes it.
func HandleIn(h *commonpb.ShmHandle) shm.Handle {
	return shm.Handle{Name: h.GetName(), Offset: h.GetOffset(), NBytes: h.GetNbytes(), Owner: h.GetOwnerId()}
}

// Dims is shape as the wire's uint32 dimensions; a negative dimension or
// one over the uint32 range fails with tensor.ErrShape.
func Dims(shape []int) ([]uint32, error) {
	dims := make([]uint32, len(shape))
	for i, d := range shape {
		if d < 0 || d > math.MaxUint32 {
			return nil, fmt.Errorf("dimension %d of %v: %w", i, shape, tensor.ErrShape)
		}
		dims[i] = uint32(d)
	}
	return dims, nil
}

// ModalityOut maps a modality to the wire's.
func ModalityOut(m vision.Modality) (commonpb.Modality, bool) {
	switch m {
	case vision.Image:
		return commonpb.Modality_IMAGE, true
	case vision.Video:
		return commonpb.Modality_VIDEO, true
	case vision.Audio:
		return commonpb.Modality_AUDIO, true
	}
	return commonpb.Modality_MODALITY_UNSPECIFIED, false
}

// ModalityIn maps a wire modality to vision's (the inverse of ModalityOut).
func ModalityIn(m commonpb.Modality) (vision.Modality, bool) {
	for _, v := range []vision.Modality{vision.Image, vision.Video, vision.Audio} {
		if w, _ := ModalityOut(v); w == m {
			return v, true
		}
	}
	return 0, false
}

// EOS keeps the valid (non-negative) ids of a model info's eos_token_ids.
func EOS(ids []int32) []uint32 {
	var out []uint32
	for _, id := range ids {
		if id >= 0 {
			out = append(out, uint32(id))
		}
	}
	return out
}

// Chunks adapts a GetTokenizer stream to protocol.ChunkStream.
type Chunks struct {
	Stream grpc.ServerStreamingClient[commonpb.GetTokenizerChunk]
}

// Recv returns the next chunk, io.EOF after the last.
func (c Chunks) Recv() (protocol.Chunk, error) {
	ch, err := c.Stream.Recv()
	if err != nil {
		return protocol.Chunk{}, err // io.EOF after the last
	}
	return protocol.Chunk{Data: ch.GetData(), SHA256: ch.GetSha256()}, nil
}

// SchedulerLoad is a protocol's SchedulerLoad message (one data-parallel
// rank's queues).
type SchedulerLoad interface {
	GetNumRunningReqs() int32
	GetNumWaitingReqs() int32
}

// Aggregate is a protocol's AggregateMetrics.
type Aggregate interface {
	GetTotalRunningReqs() int32
	GetTotalWaitingReqs() int32
}

// AggregateOr is the running plus waiting requests of the aggregate when it
// has any (a nil one has none), else summed over the ranks.
func AggregateOr[L SchedulerLoad](a Aggregate, loads []L) int64 {
	if n := int64(a.GetTotalRunningReqs()) + int64(a.GetTotalWaitingReqs()); n != 0 {
		return n
	}
	return SumLoads(loads)
}

// SumLoads is the running plus waiting requests over the ranks.
func SumLoads[L SchedulerLoad](loads []L) int64 {
	var n int64
	for _, l := range loads {
		n += int64(l.GetNumRunningReqs()) + int64(l.GetNumWaitingReqs())
	}
	return n
}

// ModelInfo is what every protocol's GetModelInfoResponse has.
type ModelInfo interface {
	GetServedModelName() string
	GetModelType() string
	GetArchitectures() []string
	GetEosTokenIds() []int32
	GetDefaultSamplingParamsJson() string
}

// BaseInfo maps the model-info fields every protocol has; contextLength is
// the context length as the protocol reports it.
func BaseInfo(mi ModelInfo, contextLength int) *protocol.Info {
	info := &protocol.Info{
		ServedName:    mi.GetServedModelName(),
		ModelType:     mi.GetModelType(),
		Architectures: mi.GetArchitectures(),
		ContextLength: max(0, contextLength),
		EOS:           EOS(mi.GetEosTokenIds()),
	}
	// Defaults that do not parse are not the model's: none.
	info.Defaults, _ = protocol.ParseSamplingDefaults(mi.GetDefaultSamplingParamsJson())
	return info
}

// StringBias is a logit bias with decimal token-id keys (nil when empty).
func StringBias(b map[uint32]float32) map[string]float32 {
	if len(b) == 0 {
		return nil
	}
	out := make(map[string]float32, len(b))
	for id, v := range b {
		out[strconv.FormatUint(uint64(id), 10)] = v
	}
	return out
}

// TensorMsg is a protocol's TensorData with a payload oneof: inline bytes,
// a shared-memory handle or a remote handle.
type TensorMsg interface {
	ProtoReflect() protoreflect.Message
	GetDtype() string
	GetShape() []uint32
	GetShm() *commonpb.ShmHandle
	GetRemote() *commonpb.RemoteTensorHandle
	GetInline() []byte
}

// Wire is td as the shm reader takes it (the worker side). A nil td, or
// one without a payload (or with a nil handle), has no payload.
func Wire(td TensorMsg) shm.Wire {
	w := shm.Wire{DType: td.GetDtype(), Shape: td.GetShape()}
	m := td.ProtoReflect()
	set := m.WhichOneof(m.Descriptor().Oneofs().ByName("payload"))
	if set == nil {
		return w
	}
	switch set.Name() {
	case "inline":
		w.Kind, w.Inline = shm.InlinePayload, td.GetInline()
	case "shm":
		if h := td.GetShm(); h != nil {
			w.Kind, w.Shm = shm.ShmPayload, HandleIn(h)
		}
	default:
		w.Kind, w.Other = shm.OtherPayload, string(set.Name())
	}
	return w
}
