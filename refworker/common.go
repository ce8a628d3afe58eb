package refworker

import (
	"context"
	"sort"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	commonpb "github.com/mmgate/mmgate/proto/common"
)

// workerName is how the worker names itself where a protocol has room
// (a scheduler_info entry "worker").
const workerName = "mmgate-reference"

// serverArgs are the worker's settings as a server_args Struct.
func (s *Server) serverArgs() (*structpb.Struct, error) {
	args, err := structpb.NewStruct(map[string]any{
		"model_path":        s.opts.ModelDir,
		"served_model_name": s.opts.ServedModelName,
		"fingerprint":       string(s.opts.Fingerprint),
		"protocol":          s.opts.Protocol,
	})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return args, nil
}

func (s *Server) uptime() float64 { return time.Since(s.started).Seconds() }

func (s *Server) now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// rpcs are the calls the protocols define alike, with smg.grpc.common
// messages; each protocol's service embeds them (beside its generated
// Unimplemented server, one level deeper, so that these win).
type rpcs struct{ s *Server }

// FlushCache has no cache to flush.
func (rpcs) FlushCache(context.Context, *commonpb.FlushCacheRequest) (*commonpb.FlushCacheResponse, error) {
	return &commonpb.FlushCacheResponse{Success: true, Message: "no cache"}, nil
}

// StartProfile and StopProfile have nothing to profile.
func (rpcs) StartProfile(context.Context, *commonpb.StartProfileRequest) (*commonpb.ProfileResponse, error) {
	return noProfile(), nil
}

// StopProfile: see StartProfile.
func (rpcs) StopProfile(context.Context, *commonpb.StopProfileRequest) (*commonpb.ProfileResponse, error) {
	return noProfile(), nil
}

func noProfile() *commonpb.ProfileResponse {
	return &commonpb.ProfileResponse{Success: false, Message: "the reference worker does not profile"}
}

// GetTokenizer streams the model folder's bundle.
func (r rpcs) GetTokenizer(_ *commonpb.GetTokenizerRequest, stream grpc.ServerStreamingServer[commonpb.GetTokenizerChunk]) error {
	return r.s.sendBundle(stream)
}

// SubscribeKvEvents accepts a KV-event subscription; the reference worker
// keeps no KV cache, so no event is ever sent. The stream ends when the
// client leaves.
func (rpcs) SubscribeKvEvents(_ *commonpb.SubscribeKvEventsRequest, stream grpc.ServerStreamingServer[commonpb.KvEventBatch]) error {
	<-stream.Context().Done()
	return nil
}

// sortedKeys are a map's keys in order (tensors are read in name order).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// loads fills out, an empty GetLoadsResponse of the service's protocol (the
// protocols name its fields alike), with the running requests on one rank,
// and the aggregate where the protocol has one.
func (s *Server) loads(out proto.Message) {
	n := int32(s.InFlight())
	m := out.ProtoReflect()
	f := m.Descriptor().Fields()
	set := func(m protoreflect.Message, name string, v protoreflect.Value) {
		if fd := m.Descriptor().Fields().ByName(protoreflect.Name(name)); fd != nil {
			m.Set(fd, v)
		}
	}
	set(m, "timestamp", protoreflect.ValueOfString(s.now()))
	set(m, "version", protoreflect.ValueOfString(s.opts.Version))
	set(m, "dp_rank_count", protoreflect.ValueOfInt32(1))
	list := m.Mutable(f.ByName("loads")).List()
	load := list.NewElement().Message()
	set(load, "num_running_reqs", protoreflect.ValueOfInt32(n))
	set(load, "num_total_reqs", protoreflect.ValueOfInt32(n))
	set(load, "max_total_num_tokens", protoreflect.ValueOfInt32(int32(s.model.ContextLength)))
	list.Append(protoreflect.ValueOfMessage(load))
	if fd := f.ByName("aggregate"); fd != nil {
		agg := m.Mutable(fd).Message()
		set(agg, "total_running_reqs", protoreflect.ValueOfInt32(n))
		set(agg, "total_reqs", protoreflect.ValueOfInt32(n))
	}
}
