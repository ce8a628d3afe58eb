package refworker

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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
	vllmBase
	rpcs
}

type vllmBase struct {
	vllmpb.UnimplementedVllmEngineServer
}

func registerVLLM(g *grpc.Server, s *Server) {
	vllmpb.RegisterVllmEngineServer(g, &VLLMServer{rpcs: rpcs{s}})
}

// Generate checks and reads the request's media, then streams the
// description.
func (v *VLLMServer) Generate(req *vllmpb.GenerateRequest, stream vllmpb.VllmEngine_GenerateServer) error {
	s := v.s
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
	if err := checkMM(req); err != nil {
		v.discard(mm)
		return err
	}
	out := vllmOut(stream, p, uint32(len(ids)))
	return s.run(stream, req.GetRequestId(), ids, mm != nil, func() ([]received, error) { return v.readMM(mm, ids) }, func() { v.discard(mm) }, p, out)
}

// checkMM refuses what the real servicer would silently ignore: media
// without pixel_values, or with a text prompt.
func checkMM(req *vllmpb.GenerateRequest) error {
	if mm := req.GetMmInputs(); mm != nil {
		switch {
		case mm.GetPixelValues() == nil:
			return status.Error(codes.InvalidArgument, "mm_inputs without pixel_values: vLLM would ignore the media")
		case req.GetTokenized() == nil:
			return status.Error(codes.InvalidArgument, "mm_inputs with a text prompt: vLLM takes preprocessed media only with a tokenized prompt")
		}
	}
	return nil
}

// vllmOut sends a generation as vLLM's servicer does: chunks with each
// step's tokens and count; a complete built from the step that ended the
// sequence (no matched stop for an end-of-sequence).
func vllmOut(stream vllmpb.VllmEngine_GenerateServer, p *params, prompt uint32) output {
	return &sender[vllmpb.GenerateResponse]{send: stream.Send, p: p, lastStep: true,
		chunk: func(c *choice) *vllmpb.GenerateResponse {
			chunk := &vllmpb.GenerateStreamChunk{TokenIds: c.last, PromptTokens: prompt, CachedTokens: uint32(p.cached), CompletionTokens: uint32(len(c.last)), Index: c.index}
			if p.logprobs {
				chunk.OutputLogprobs = logprobsOf(&vllmpb.OutputLogProbs{}, c.last, p.top)
			}
			return &vllmpb.GenerateResponse{Response: &vllmpb.GenerateResponse_Chunk{Chunk: chunk}}
		},
		complete: func(c *choice, ids []uint32, index uint32) *vllmpb.GenerateResponse {
			done := &vllmpb.GenerateComplete{OutputIds: ids, FinishReason: c.finish, PromptTokens: prompt, CachedTokens: uint32(p.cached), CompletionTokens: uint32(len(ids)), Index: index}
			setMatched(done, c, false)
			if p.logprobs {
				done.OutputLogprobs = logprobsOf(&vllmpb.OutputLogProbs{}, ids, p.top)
			}
			return &vllmpb.GenerateResponse{Response: &vllmpb.GenerateResponse_Complete{Complete: done}}
		}}
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

// GetLoads reports the running requests.
func (v *VLLMServer) GetLoads(context.Context, *vllmpb.GetLoadsRequest) (*vllmpb.GetLoadsResponse, error) {
	out := &vllmpb.GetLoadsResponse{}
	v.s.loads(out)
	return out, nil
}
