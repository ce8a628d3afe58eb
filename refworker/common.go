package refworker

import (
	"sort"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

func flushed() *commonpb.FlushCacheResponse {
	return &commonpb.FlushCacheResponse{Success: true, Message: "no cache"}
}

func noProfile() *commonpb.ProfileResponse {
	return &commonpb.ProfileResponse{Success: false, Message: "the reference worker does not profile"}
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
