package transportbench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
)

// TensorReader turns a wire tensor into bytes (tensordata.Reader implements
// it).
type TensorReader interface {
	Read(td *schedulerpb.TensorData) (*shm.View, error)
	NamespaceID() string
}

// Digest selects what Generate reports about each tensor.
type Digest uint8

const (
	// DigestSum64: the wrapping sum of the little-endian uint64 words (fast;
	// what the benchmark uses), as two uint32 (low, high).
	DigestSum64 Digest = iota
	// DigestSHA256: SHA-256 of the bytes, as eight big-endian uint32.
	DigestSHA256
)

// Server is a minimal TokenSpeedScheduler worker: Generate reads every
// multimodal tensor of the request and answers with one GenerateComplete
// whose output_ids are the digests of the tensors in order (each item's
// encoder_input, then its model_specific_tensors by key); GetServerInfo
// advertises the shm namespace id; HealthCheck answers healthy. Other methods
// are unimplemented. It is safe for concurrent use.
type Server struct {
	schedulerpb.UnimplementedTokenSpeedSchedulerServer
	Reader TensorReader
	Digest Digest
}

// Generate implements TokenSpeedScheduler.
func (s *Server) Generate(req *schedulerpb.GenerateRequest, stream grpc.ServerStreamingServer[schedulerpb.GenerateResponse]) error {
	var out []uint32
	// Mappings are released after the answer is sent: tearing them down
	// (and freeing the pages of unlinked segments) is not on the request's
	// path.
	var views []*shm.View
	defer func() {
		for _, v := range views {
			_ = v.Close()
		}
	}()
	for i, it := range req.GetMmInputs().GetItems() {
		tds := []*schedulerpb.TensorData{it.GetEncoderInput()}
		keys := make([]string, 0, len(it.GetModelSpecificTensors()))
		for k := range it.GetModelSpecificTensors() {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			tds = append(tds, it.GetModelSpecificTensors()[k])
		}
		for j, td := range tds {
			if td == nil {
				continue
			}
			v, err := s.Reader.Read(td)
			if err != nil {
				return status.Errorf(codes.InvalidArgument, "item %d tensor %d: %v", i, j, err)
			}
			views = append(views, v)
			out = appendDigest(out, s.Digest, v.Data)
		}
	}
	return stream.Send(&schedulerpb.GenerateResponse{
		RequestId: req.GetRequestId(),
		Response: &schedulerpb.GenerateResponse_Complete{Complete: &schedulerpb.GenerateComplete{
			OutputIds:        out,
			FinishReason:     "stop",
			PromptTokens:     uint32(len(req.GetTokenized().GetInputIds())),
			CompletionTokens: uint32(len(out)),
		}},
	})
}

func appendDigest(out []uint32, d Digest, b []byte) []uint32 {
	if d == DigestSHA256 {
		h := sha256.Sum256(b)
		for i := 0; i < len(h); i += 4 {
			out = append(out, binary.BigEndian.Uint32(h[i:]))
		}
		return out
	}
	s := Sum64(b)
	return append(out, uint32(s), uint32(s>>32))
}

// ExpectDigest is the digest Generate reports for b.
func ExpectDigest(d Digest, b []byte) []uint32 { return appendDigest(nil, d, b) }

// HealthCheck implements TokenSpeedScheduler.
func (s *Server) HealthCheck(context.Context, *schedulerpb.HealthCheckRequest) (*schedulerpb.HealthCheckResponse, error) {
	return &schedulerpb.HealthCheckResponse{Healthy: true, Message: "ok"}, nil
}

// GetServerInfo implements TokenSpeedScheduler.
func (s *Server) GetServerInfo(context.Context, *schedulerpb.GetServerInfoRequest) (*schedulerpb.GetServerInfoResponse, error) {
	info, err := structpb.NewStruct(map[string]any{"shm_namespace_id": s.Reader.NamespaceID()})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &schedulerpb.GetServerInfoResponse{SchedulerInfo: info, ServerArgs: &structpb.Struct{}}, nil
}

// Listen opens "HOST:PORT" (TCP) or "unix:///path" (a stale socket file at
// path is removed first).
func Listen(addr string) (net.Listener, error) {
	if p, ok := strings.CutPrefix(addr, "unix://"); ok {
		if p == "" {
			return nil, fmt.Errorf("listen %q: empty socket path", addr)
		}
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSocket != 0 {
			_ = os.Remove(p)
		}
		return net.Listen("unix", p)
	}
	return net.Listen("tcp", addr)
}

// ListenerURL is the address clients dial for l: "HOST:PORT" or
// "unix:///path".
func ListenerURL(l net.Listener) string {
	if l.Addr().Network() == "unix" {
		return "unix://" + l.Addr().String()
	}
	return l.Addr().String()
}

// NewGRPCServer returns a gRPC server with srv registered and both message
// limits set to maxMsg bytes.
func NewGRPCServer(srv schedulerpb.TokenSpeedSchedulerServer, maxMsg int) *grpc.Server {
	g := grpc.NewServer(grpc.MaxRecvMsgSize(maxMsg), grpc.MaxSendMsgSize(maxMsg))
	schedulerpb.RegisterTokenSpeedSchedulerServer(g, srv)
	return g
}
