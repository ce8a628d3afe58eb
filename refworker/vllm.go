package refworker

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	commonpb "github.com/mmgate/mmgate/proto/common"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
)

// VLLMServer serves the worker with vLLM's gateway protocol
// (vllm.grpc.engine.VllmEngine) and the rules of SMG's vLLM servicer: the
// preprocessed media path only for a tokenized prompt with pixel_values;
// tensor dtypes float32, int64 or uint32 (checked before a tensor is read,
// so a refused tensor's file stays); the flat, batched and shared split of
// every tensor by flat_keys (whose sizes tensor must exist and sum to the
// rows) and batched_keys; one item per mm_placeholders range, whose
// embedding positions are the im_token_id tokens in it; shm payloads read
// once and unlinked. It answers with a chunk per step and sequence (that
// step's tokens) and, when a sequence ends, a complete repeating that step.
type VLLMServer struct {
	vllmpb.UnimplementedVllmEngineServer
	s *Server
}

func registerVLLM(g *grpc.Server, s *Server) { vllmpb.RegisterVllmEngineServer(g, &VLLMServer{s: s}) }

// Generate checks and reads the request's media, then streams the
// description.
func (v *VLLMServer) Generate(req *vllmpb.GenerateRequest, stream vllmpb.VllmEngine_GenerateServer) error {
	s := v.s
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	mm := req.GetMmInputs()
	ids := req.GetTokenized().GetInputIds()
	if req.GetTokenized() == nil {
		ids = s.tok.Encode(req.GetText())
	}
	sp := req.GetSamplingParams()
	p := &params{
		stream: req.GetStream(), n: int(sp.GetN()), minNew: int(sp.GetMinTokens()), stops: sp.GetStop(),
		stopIDs: sp.GetStopTokenIds(), ignoreEOS: sp.GetIgnoreEos(), logprobs: sp.Logprobs != nil, top: int(sp.GetLogprobs()),
	}
	if sp != nil && sp.MaxTokens != nil {
		m := int(sp.GetMaxTokens())
		p.maxNew = &m
	}
	if err := v.checkMM(req, p); err != nil {
		v.discard(mm)
		return err
	}
	done, err := s.admit(req.GetRequestId(), ids, cancel)
	if err != nil {
		v.discard(mm)
		return err
	}
	defer done()
	var items []received
	read := func() (err error) { items, err = v.readMM(mm, ids); return err }
	if err := s.encode(ctx, mm != nil, read, func() { v.discard(mm) }); err != nil {
		return err
	}
	return s.generate(ctx, stream.Context(), ids, items, p, &vllmOut{stream: stream, p: p, prompt: uint32(len(ids))})
}

// checkMM refuses what the real servicer would silently ignore (media
// without pixel_values, or with a text prompt) and requests over the limits.
func (v *VLLMServer) checkMM(req *vllmpb.GenerateRequest, p *params) error {
	if mm := req.GetMmInputs(); mm != nil {
		switch {
		case mm.GetPixelValues() == nil:
			return status.Error(codes.InvalidArgument, "mm_inputs without pixel_values: vLLM would ignore the media")
		case req.GetTokenized() == nil:
			return status.Error(codes.InvalidArgument, "mm_inputs with a text prompt: vLLM takes preprocessed media only with a tokenized prompt")
		}
	}
	return p.checkLimits()
}

// vllmOut sends a generation as vLLM's servicer does.
type vllmOut struct {
	stream vllmpb.VllmEngine_GenerateServer
	p      *params
	prompt uint32
}

func (o *vllmOut) step(c *choice) error {
	if !o.p.stream {
		return nil
	}
	chunk := &vllmpb.GenerateStreamChunk{TokenIds: c.last, PromptTokens: o.prompt, CompletionTokens: uint32(len(c.last)), Index: c.index}
	if o.p.logprobs {
		chunk.OutputLogprobs = vllmLogprobs(c.last, o.p.top)
	}
	return o.stream.Send(&vllmpb.GenerateResponse{Response: &vllmpb.GenerateResponse_Chunk{Chunk: chunk}})
}

// finished: streaming, the complete is built from the last step's output.
func (o *vllmOut) finished(c *choice) error {
	if !o.p.stream {
		return nil
	}
	return o.complete(c, c.last)
}

func (o *vllmOut) end(choices []*choice) error {
	if o.p.stream {
		return nil
	}
	for _, c := range choices {
		if err := o.complete(c, c.out); err != nil {
			return err
		}
	}
	return nil
}

func (o *vllmOut) complete(c *choice, ids []uint32) error {
	done := &vllmpb.GenerateComplete{OutputIds: ids, FinishReason: c.finish, PromptTokens: o.prompt, CompletionTokens: uint32(len(ids)), Index: c.index}
	switch {
	case c.stopStr != "":
		done.MatchedStop = &vllmpb.GenerateComplete_MatchedStopStr{MatchedStopStr: c.stopStr}
	case c.stopID != nil && !c.eos: // vLLM reports no stop reason for EOS
		done.MatchedStop = &vllmpb.GenerateComplete_MatchedTokenId{MatchedTokenId: *c.stopID}
	}
	if o.p.logprobs {
		done.OutputLogprobs = vllmLogprobs(ids, o.p.top)
	}
	return o.stream.Send(&vllmpb.GenerateResponse{Response: &vllmpb.GenerateResponse_Complete{Complete: done}})
}

func vllmLogprobs(ids []uint32, top int) *vllmpb.OutputLogProbs {
	return buildLogprobs(ids, top,
		func(ids []uint32, vals []float32) *vllmpb.TopLogProbs {
			return &vllmpb.TopLogProbs{TokenIds: ids, Values: vals}
		},
		func(ids []uint32, vals []float32, tops []*vllmpb.TopLogProbs) *vllmpb.OutputLogProbs {
			return &vllmpb.OutputLogProbs{TokenIds: ids, TokenLogprobs: vals, TopLogprobs: tops}
		})
}

// Abort cancels each listed request.
func (v *VLLMServer) Abort(_ context.Context, req *vllmpb.AbortRequest) (*vllmpb.AbortResponse, error) {
	for _, rid := range req.GetRequestIds() {
		v.s.abort(rid, "", "")
	}
	return &vllmpb.AbortResponse{}, nil
}

// HealthCheck always reports healthy while the process serves.
func (v *VLLMServer) HealthCheck(context.Context, *vllmpb.HealthCheckRequest) (*vllmpb.HealthCheckResponse, error) {
	return &vllmpb.HealthCheckResponse{Healthy: true, Message: "Health"}, nil
}

// GetModelInfo describes the model as the servicer does.
func (v *VLLMServer) GetModelInfo(context.Context, *vllmpb.GetModelInfoRequest) (*vllmpb.GetModelInfoResponse, error) {
	s, m := v.s, v.s.model
	return &vllmpb.GetModelInfoResponse{
		ModelPath: s.opts.ModelDir, IsGeneration: true, MaxContextLength: uint32(m.ContextLength), VocabSize: uint32(m.VocabSize),
		SupportsVision: m.SupportsVision, ServedModelName: s.opts.ServedModelName, TokenizerPath: s.opts.ModelDir,
		ModelType: m.ModelType, Architectures: m.Architectures, EosTokenIds: m.EOS, PadTokenId: m.Pad, BosTokenId: m.BOS,
		MaxReqInputLen: int32(m.ContextLength), DefaultSamplingParamsJson: m.SamplingDefaults,
	}, nil
}

// GetServerInfo fills what the servicer fills: the data-parallel size and
// the shared-memory namespace id.
func (v *VLLMServer) GetServerInfo(context.Context, *vllmpb.GetServerInfoRequest) (*vllmpb.GetServerInfoResponse, error) {
	return &vllmpb.GetServerInfoResponse{DataParallelSize: 1, ShmNamespaceId: v.s.reader.NamespaceID()}, nil
}

// GetLoads reports the running requests on one rank.
func (v *VLLMServer) GetLoads(context.Context, *vllmpb.GetLoadsRequest) (*vllmpb.GetLoadsResponse, error) {
	n := int32(v.s.InFlight())
	return &vllmpb.GetLoadsResponse{Timestamp: v.s.now(), Version: v.s.opts.Version, DpRankCount: 1,
		Loads: []*vllmpb.SchedulerLoad{{NumRunningReqs: n, NumTotalReqs: n}}}, nil
}

// GetTokenizer streams the model folder's bundle.
func (v *VLLMServer) GetTokenizer(_ *commonpb.GetTokenizerRequest, stream vllmpb.VllmEngine_GetTokenizerServer) error {
	return v.s.sendBundle(stream)
}

// SubscribeKvEvents: see kvEvents.
func (v *VLLMServer) SubscribeKvEvents(_ *commonpb.SubscribeKvEventsRequest, stream vllmpb.VllmEngine_SubscribeKvEventsServer) error {
	return kvEvents(stream)
}
