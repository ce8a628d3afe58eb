package refworker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mmgate/mmgate/engine/tokenspeed/tensordata"
	"github.com/mmgate/mmgate/family"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// Tokenizer is what the worker needs of the model's tokenizer.
type Tokenizer interface {
	Encode(text string) []uint32
	Decode(ids []uint32, skipSpecial bool) string
}

// Options configure a Server. ModelDir, Tokenizer and Reader are required.
type Options struct {
	ModelDir string // the model folder (config.json, tokenizer files, ...)
	// Families match the folder's config.json to its model family; nil
	// means the built-in families.
	Families        *family.Registry
	ServedModelName string // default: the folder's base name
	EncoderDType    string // multimodal_encoder_dtype to advertise; default: the model dtype
	Fingerprint     Fingerprint
	Tokenizer       Tokenizer
	Reader          *shm.Reader
	// ToolCall, when set, is the reply text instead of the description (for
	// example a Qwen `<tool_call>{...}</tool_call>` block), so that tool-call
	// handling can be tested end to end.
	ToolCall string
	// TokenDelay paces streaming (tests of cancellation and abort).
	TokenDelay time.Duration
	// RejectEvery, when positive, makes every RejectEvery-th Generate call
	// fail with INVALID_ARGUMENT before anything is streamed (its tensors are
	// still read and released), so that a gateway's handling of a rejecting
	// worker can be exercised.
	RejectEvery int
	// Encode, when set, runs the reading and fingerprinting of a request's
	// tensors — the work that stands in for the vision encoder. A worker
	// inside a gateway passes the gateway's low-priority pool, so that its
	// bulk work on media does not hold up the gateway's text requests. Nil
	// runs it on the request's goroutine.
	Encode func(ctx context.Context, f func()) error
	// Version is reported as tokenspeed_version.
	Version string
	Logger  *slog.Logger
}

// Server implements the TokenSpeedScheduler service.
type Server struct {
	schedulerpb.UnimplementedTokenSpeedSchedulerServer

	opts    Options
	model   *modelInfo
	tok     Tokenizer
	reader  tensordata.Reader
	encDT   string
	started time.Time

	bundle bundle

	mu       sync.Mutex
	inflight map[string]context.CancelFunc
	calls    atomic.Int64 // Generate calls, for RejectEvery
}

// ErrOptions is returned by New for missing or invalid options.
var ErrOptions = errors.New("refworker: bad options")

// New reads the model folder and returns a Server.
func New(o Options) (*Server, error) {
	if o.ModelDir == "" || o.Tokenizer == nil || o.Reader == nil {
		return nil, fmt.Errorf("%w: ModelDir, Tokenizer and Reader are required", ErrOptions)
	}
	fp, err := ParseFingerprint(string(o.Fingerprint))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOptions, err)
	}
	o.Fingerprint = fp
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	m, err := loadModelInfo(o.ModelDir, o.Families)
	if err != nil {
		return nil, err
	}
	if len(m.EOS) == 0 {
		m.EOS = tokenizerEOS(o.ModelDir, o.Tokenizer)
	}
	if o.ServedModelName == "" {
		o.ServedModelName = filepath.Base(filepath.Clean(o.ModelDir))
	}
	enc := o.EncoderDType
	if enc == "" {
		enc = m.DType
	}
	if o.RejectEvery < 0 {
		return nil, fmt.Errorf("%w: RejectEvery %d is negative", ErrOptions, o.RejectEvery)
	}
	if dt, err := tensor.ParseDType(enc); err != nil || !dt.IsFloat() {
		return nil, fmt.Errorf("%w: encoder dtype %q is not float32, bfloat16 or float16", ErrOptions, enc)
	}
	return &Server{
		opts: o, model: m, tok: o.Tokenizer, reader: tensordata.Reader{Reader: o.Reader}, encDT: enc,
		started: time.Now(), inflight: map[string]context.CancelFunc{},
	}, nil
}

// Register adds the service to g.
func (s *Server) Register(g *grpc.Server) { schedulerpb.RegisterTokenSpeedSchedulerServer(g, s) }

// ServedModelName is the name clients use for this model.
func (s *Server) ServedModelName() string { return s.opts.ServedModelName }

// InFlight is the number of Generate calls running.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inflight)
}

func (s *Server) track(rid string, cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[rid]; dup {
		return false
	}
	s.inflight[rid] = cancel
	return true
}

func (s *Server) untrack(rid string) {
	s.mu.Lock()
	delete(s.inflight, rid)
	s.mu.Unlock()
}

// Abort cancels the request with that id, and the "-n<i>" sub-requests of
// an n>1 request.
func (s *Server) Abort(_ context.Context, req *schedulerpb.AbortRequest) (*schedulerpb.AbortResponse, error) {
	rid := req.GetRequestId()
	s.mu.Lock()
	n := 0
	for id, cancel := range s.inflight {
		if id == rid || strings.HasPrefix(id, rid+"-n") {
			cancel()
			n++
		}
	}
	s.mu.Unlock()
	s.opts.Logger.Info("abort", "request_id", rid, "reason", req.GetReason(), "found", n)
	if n == 0 {
		return &schedulerpb.AbortResponse{Success: false, Message: "no such request"}, nil
	}
	return &schedulerpb.AbortResponse{Success: true}, nil
}

// HealthCheck always reports healthy while the process serves.
func (s *Server) HealthCheck(context.Context, *schedulerpb.HealthCheckRequest) (*schedulerpb.HealthCheckResponse, error) {
	return &schedulerpb.HealthCheckResponse{Healthy: true, Message: "ok"}, nil
}

// GetModelInfo describes the model folder.
func (s *Server) GetModelInfo(context.Context, *schedulerpb.GetModelInfoRequest) (*schedulerpb.GetModelInfoResponse, error) {
	m := s.model
	return &schedulerpb.GetModelInfoResponse{
		ModelPath:              s.opts.ModelDir,
		TokenizerPath:          s.opts.ModelDir,
		ServedModelName:        s.opts.ServedModelName,
		ModelType:              m.ModelType,
		Architectures:          m.Architectures,
		MaxContextLength:       int32(m.ContextLength),
		MaxReqInputLen:         int32(m.ContextLength),
		VocabSize:              int32(m.VocabSize),
		EosTokenIds:            m.EOS,
		PadTokenId:             m.Pad,
		BosTokenId:             m.BOS,
		WeightVersion:          "reference",
		SupportsVision:         m.SupportsVision,
		SupportsMultimodal:     len(m.Modalities) > 0,
		SupportedModalities:    m.Modalities,
		ModelDtype:             m.DType,
		MultimodalEncoderDtype: s.encDT,
	}, nil
}

// GetServerInfo reports the shm namespace id (so a gateway on the same host
// can choose the shm path), whether segments are kept after reading
// ("shm_keep_after_read", only when they are: a gateway may then reuse
// them), and uptime.
func (s *Server) GetServerInfo(context.Context, *schedulerpb.GetServerInfoRequest) (*schedulerpb.GetServerInfoResponse, error) {
	fields := map[string]any{
		"shm_namespace_id": s.reader.NamespaceID(),
		"worker":           "mmgate-reference",
	}
	if s.reader.KeepsFiles() {
		fields["shm_keep_after_read"] = true
	}
	sched, err := structpb.NewStruct(fields)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	args, err := structpb.NewStruct(map[string]any{
		"model_path":        s.opts.ModelDir,
		"served_model_name": s.opts.ServedModelName,
		"fingerprint":       string(s.opts.Fingerprint),
	})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &schedulerpb.GetServerInfoResponse{
		ServerArgs:        args,
		SchedulerInfo:     sched,
		ActiveRequests:    int32(s.InFlight()),
		UptimeSeconds:     time.Since(s.started).Seconds(),
		MaxTotalNumTokens: int32(s.model.ContextLength),
		TokenspeedVersion: s.opts.Version,
		StartTime:         timestamppb.New(s.started),
	}, nil
}

// GetLoads reports the real number of running requests.
func (s *Server) GetLoads(context.Context, *schedulerpb.GetLoadsRequest) (*schedulerpb.GetLoadsResponse, error) {
	n := int32(s.InFlight())
	return &schedulerpb.GetLoadsResponse{
		Timestamp:   time.Now().UTC().Format(time.RFC3339Nano),
		Version:     s.opts.Version,
		DpRankCount: 1,
		Loads: []*schedulerpb.SchedulerLoad{{
			NumRunningReqs:    n,
			NumTotalReqs:      n,
			MaxTotalNumTokens: int32(s.model.ContextLength),
		}},
		Aggregate: &schedulerpb.AggregateMetrics{TotalRunningReqs: n, TotalReqs: n},
	}, nil
}

// FlushCache has no cache to flush.
func (s *Server) FlushCache(context.Context, *commonpb.FlushCacheRequest) (*commonpb.FlushCacheResponse, error) {
	return &commonpb.FlushCacheResponse{Success: true, Message: "no cache"}, nil
}

// StartProfile and StopProfile have nothing to profile.
func (s *Server) StartProfile(context.Context, *commonpb.StartProfileRequest) (*commonpb.ProfileResponse, error) {
	return &commonpb.ProfileResponse{Success: false, Message: "the reference worker does not profile"}, nil
}

// StopProfile: see StartProfile.
func (s *Server) StopProfile(context.Context, *commonpb.StopProfileRequest) (*commonpb.ProfileResponse, error) {
	return &commonpb.ProfileResponse{Success: false, Message: "the reference worker does not profile"}, nil
}
