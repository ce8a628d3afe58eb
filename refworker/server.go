package refworker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// The protocols the worker serves (Options.Protocol).
const (
	TokenSpeed = "tokenspeed"
	VLLM       = "vllm"
	SGLang     = "sglang"
)

// Protocols lists the protocols the worker serves.
func Protocols() []string { return []string{TokenSpeed, VLLM, SGLang} }

// Tokenizer is what the worker needs of the model's tokenizer.
type Tokenizer interface {
	Encode(text string) []uint32
	Decode(ids []uint32, skipSpecial bool) string
}

// Options configure a Server. ModelDir, Tokenizer and Reader are required.
type Options struct {
	ModelDir string // the model folder (config.json, tokenizer files, ...)
	// Protocol is the gRPC protocol Register serves: "tokenspeed" (the
	// default), "vllm" or "sglang".
	Protocol string
	// Families match the folder's config.json to its model family; nil
	// means the built-in families.
	Families        *family.Registry
	ServedModelName string // default: the folder's base name
	// EncoderDType is the multimodal_encoder_dtype TokenSpeed advertises;
	// default: the model dtype. (vLLM and SGLang take float32 inputs.)
	EncoderDType string
	Fingerprint  Fingerprint
	Tokenizer    Tokenizer
	Reader       *shm.Reader
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
	// PrefixCache is how many prompt tokens the worker's model of an
	// engine's prefix cache holds (prefix.go); 0 means 65536, negative
	// turns it off (cached_tokens is then always 0).
	PrefixCache int
	// PrefillRate, when positive, is the prompt tokens per second the
	// worker pretends to compute: before its first token it waits for its
	// prompt tokens the cache did not hold, so that routing for the cache
	// shows in latency.
	PrefillRate float64
	// Version is reported as the engine's version.
	Version string
	Logger  *slog.Logger
}

// Server is the reference worker: the model, the reply it generates and the
// checks of what it receives, shared by every protocol; Register serves it
// with the protocol of Options.Protocol, a thin layer that maps that
// protocol's messages (tokenspeed.go, vllm.go, sglang.go).
type Server struct {
	opts    Options
	model   *modelInfo
	tok     Tokenizer
	reader  *shm.Reader
	encDT   string
	started time.Time

	bundle bundle
	cache  *prefixCache // nil: off

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
	if o.Protocol == "" {
		o.Protocol = TokenSpeed
	}
	if !slices.Contains(Protocols(), o.Protocol) {
		return nil, fmt.Errorf("%w: protocol %q is not one of %s", ErrOptions, o.Protocol, strings.Join(Protocols(), ", "))
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
		opts: o, model: m, tok: o.Tokenizer, reader: o.Reader, encDT: enc,
		started: time.Now(), inflight: map[string]context.CancelFunc{}, cache: newPrefixCache(o.PrefixCache),
	}, nil
}

// Register adds the service of Options.Protocol to g.
func (s *Server) Register(g *grpc.Server) {
	switch s.opts.Protocol {
	case VLLM:
		registerVLLM(g, s)
	case SGLang:
		registerSGLang(g, s)
	default:
		registerTokenSpeed(g, s)
	}
}

// Protocol is the protocol Register serves.
func (s *Server) Protocol() string { return s.opts.Protocol }

// ServedModelName is the name clients use for this model.
func (s *Server) ServedModelName() string { return s.opts.ServedModelName }

// InFlight is the number of Generate calls running.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inflight)
}

// admit runs the checks every protocol makes before reading a request's
// tensors (an id, a prompt within the context, the fault injection of
// RejectEvery) and tracks the request for Abort; done untracks it. An
// error is the status to answer.
func (s *Server) admit(rid string, ids []uint32, cancel context.CancelFunc) (done func(), err error) {
	switch {
	case rid == "":
		return nil, status.Error(codes.InvalidArgument, "request_id is empty")
	case len(ids) == 0:
		return nil, status.Error(codes.InvalidArgument, "tokenized input is empty")
	}
	if n := s.opts.RejectEvery; n > 0 && s.calls.Add(1)%int64(n) == 0 {
		return nil, status.Errorf(codes.InvalidArgument, "request %q rejected (reject-every %d)", rid, n)
	}
	if len(ids) > s.model.ContextLength {
		return nil, status.Errorf(codes.InvalidArgument, "prompt of %d tokens exceeds the context length %d", len(ids), s.model.ContextLength)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[rid]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "request %q is already running", rid)
	}
	s.inflight[rid] = cancel
	return func() {
		s.mu.Lock()
		delete(s.inflight, rid)
		s.mu.Unlock()
	}, nil
}

// abort cancels the request with that id and its sub-requests (ids with
// the prefix rid+sep, when sep is not ""), and reports how many it found.
func (s *Server) abort(rid, sep, reason string) int {
	s.mu.Lock()
	n := 0
	for id, cancel := range s.inflight {
		if id == rid || sep != "" && strings.HasPrefix(id, rid+sep) {
			cancel()
			n++
		}
	}
	s.mu.Unlock()
	s.opts.Logger.Info("abort", "request_id", rid, "reason", reason, "found", n)
	return n
}

// run answers a Generate call its protocol's layer has checked and mapped:
// the limits and admission, the reading of its media (read; discard drops
// them when the request is refused before), and the generation through
// out.
func (s *Server) run(stream interface{ Context() context.Context }, rid string, ids []uint32, media bool, read func() ([]received, error), discard func(), p *params, out output) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	if err := p.checkLimits(); err != nil {
		discard()
		return err
	}
	done, err := s.admit(rid, ids, cancel)
	if err != nil {
		discard()
		return err
	}
	defer done()
	var items []received
	if err := s.encode(ctx, media, func() (err error) { items, err = read(); return err }, discard); err != nil {
		return err
	}
	p.cached = s.cache.lookup(ids, items)
	if err := s.prefill(ctx, len(ids)-p.cached); err != nil {
		return err
	}
	return s.generate(ctx, stream.Context(), ids, items, p, out)
}

// encode runs read (the reading and checking of a request's tensors)
// through Options.Encode when there is one and the request has media. A
// request cancelled while it waits for its turn fails with its context's
// status, one the runner refuses with UNAVAILABLE; discard then drops its
// tensors.
func (s *Server) encode(ctx context.Context, media bool, read func() error, discard func()) error {
	if s.opts.Encode == nil || !media {
		return read()
	}
	var err error
	if rerr := s.opts.Encode(ctx, func() { err = read() }); rerr != nil {
		discard()
		if ctx.Err() != nil {
			return status.FromContextError(ctx.Err()).Err()
		}
		return status.Errorf(codes.Unavailable, "encoder: %v", rerr)
	}
	return err
}
