package refworker

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	sglangpb "github.com/mmgate/mmgate/proto/sglang"
)

// SGLangServer serves the worker with SGLang's gateway protocol
// (sglang.grpc.scheduler.SglangScheduler) and the rules of SMG's SGLang
// servicer, strictly: a tokenized prompt; media only with pixel_values,
// inline, float32 or int64; one multimodal item of the whole batch with
// every model-specific tensor, whose images the reference divides by the
// model family's layout to describe them one by one (one pad run each, one
// raw image each); no stop strings (the workers run without a tokenizer)
// and explicit sampling values (zeros would reach the sampler). It answers
// with a chunk per step (running completion count) and, for the last step,
// a chunk and a complete with the same tokens; without stream, completes
// that all say index 0.
type SGLangServer struct {
	sglangBase
	rpcs
}

type sglangBase struct {
	sglangpb.UnimplementedSglangSchedulerServer
}

func registerSGLang(g *grpc.Server, s *Server) {
	sglangpb.RegisterSglangSchedulerServer(g, &SGLangServer{rpcs: rpcs{s}})
}

// Generate checks and reads the request's images, then streams the
// description.
func (x *SGLangServer) Generate(req *sglangpb.GenerateRequest, stream sglangpb.SglangScheduler_GenerateServer) error {
	sp := req.GetSamplingParams()
	p := &params{
		stream: req.GetStream(), n: int(sp.GetN()), minNew: int(sp.GetMinNewTokens()),
		stopIDs: sp.GetStopTokenIds(), ignoreEOS: sp.GetIgnoreEos(), logprobs: req.GetReturnLogprob(), top: int(req.GetTopLogprobsNum()),
	}
	if sp != nil && sp.MaxNewTokens != nil {
		m := int(sp.GetMaxNewTokens())
		p.maxNew = &m
	}
	if err := checkSGLang(req); err != nil {
		return err
	}
	ids := req.GetTokenized().GetInputIds()
	out := sglangOut(stream, req.GetRequestId(), p, uint32(len(ids)))
	// Inline tensors only: nothing to discard on a refusal.
	return x.s.run(stream, req.GetRequestId(), ids, req.GetMmInputs() != nil, func() ([]received, error) { return x.readMM(req.GetMmInputs(), ids) }, func() {}, p, out)
}

// checkSGLang refuses what SGLang's gRPC path would mishandle.
func checkSGLang(req *sglangpb.GenerateRequest) error {
	sp := req.GetSamplingParams()
	switch {
	case req.GetTokenized() == nil:
		return status.Error(codes.InvalidArgument, "tokenized input is required")
	case sp == nil:
		return status.Error(codes.InvalidArgument, "sampling_params are required: zeros would reach the sampler")
	case sp.GetTopP() <= 0 || sp.GetTopP() > 1:
		return status.Errorf(codes.InvalidArgument, "top_p %g is outside (0, 1]: the gRPC path skips the sampling checks", sp.GetTopP())
	case sp.GetTopK() == 0 || sp.GetTopK() < -1:
		return status.Errorf(codes.InvalidArgument, "top_k %d is neither -1 nor positive: the gRPC path skips the sampling checks", sp.GetTopK())
	case sp.GetRepetitionPenalty() <= 0 || sp.GetRepetitionPenalty() > 2:
		return status.Errorf(codes.InvalidArgument, "repetition_penalty %g is outside (0, 2]: the gRPC path skips the sampling checks", sp.GetRepetitionPenalty())
	case len(sp.GetStop()) > 0:
		return status.Error(codes.InvalidArgument, "stop strings: the worker runs without a tokenizer and cannot match them")
	case req.GetMmInputs() != nil && req.GetMmInputs().GetPixelValues() == nil:
		return status.Error(codes.InvalidArgument, "mm_inputs without pixel_values: SGLang would ignore the images")
	}
	return nil
}

// sglangOut sends a generation as SGLang's servicer does: chunks with each
// step's tokens and the running count; a chunk and then a complete with the
// same tokens for the last step; without stream, completes that all say
// index 0.
func sglangOut(stream sglangpb.SglangScheduler_GenerateServer, rid string, p *params, prompt uint32) output {
	return &sender[sglangpb.GenerateResponse]{send: stream.Send, p: p, lastStep: true,
		index: func(*choice) uint32 { return 0 },
		chunk: func(c *choice) *sglangpb.GenerateResponse {
			chunk := &sglangpb.GenerateStreamChunk{TokenIds: c.last, PromptTokens: prompt, CachedTokens: uint32(p.cached), CompletionTokens: uint32(len(c.out)), Index: c.index}
			if p.logprobs {
				chunk.OutputLogprobs = logprobsOf(&sglangpb.OutputLogProbs{}, c.last, p.top)
			}
			return &sglangpb.GenerateResponse{RequestId: rid, Response: &sglangpb.GenerateResponse_Chunk{Chunk: chunk}}
		},
		complete: func(c *choice, ids []uint32, index uint32) *sglangpb.GenerateResponse {
			done := &sglangpb.GenerateComplete{OutputIds: ids, FinishReason: c.finish, PromptTokens: prompt, CachedTokens: uint32(p.cached), CompletionTokens: uint32(len(c.out)), Index: index}
			setMatched(done, c, true)
			if p.logprobs {
				done.OutputLogprobs = logprobsOf(&sglangpb.OutputLogProbs{}, ids, p.top)
			}
			return &sglangpb.GenerateResponse{RequestId: rid, Response: &sglangpb.GenerateResponse_Complete{Complete: done}}
		}}
}

// Abort cancels the request.
func (x *SGLangServer) Abort(_ context.Context, req *sglangpb.AbortRequest) (*sglangpb.AbortResponse, error) {
	found := x.s.abort(req.GetRequestId(), "-", req.GetReason()) > 0
	msg := "Request " + req.GetRequestId() + " aborted"
	if !found {
		msg = "Request " + req.GetRequestId() + " not found"
	}
	return &sglangpb.AbortResponse{Success: found, Message: msg}, nil
}

// HealthCheck answers at once (the real one runs a one-token generation).
func (x *SGLangServer) HealthCheck(context.Context, *sglangpb.HealthCheckRequest) (*sglangpb.HealthCheckResponse, error) {
	return &sglangpb.HealthCheckResponse{Healthy: true, Message: "Health check passed"}, nil
}

// GetModelInfo describes the model as the servicer does.
func (x *SGLangServer) GetModelInfo(context.Context, *sglangpb.GetModelInfoRequest) (*sglangpb.GetModelInfoResponse, error) {
	s, m := x.s, x.s.model
	return &sglangpb.GetModelInfoResponse{
		ModelPath: s.opts.ModelDir, TokenizerPath: s.opts.ModelDir, IsGeneration: true, WeightVersion: "reference",
		ServedModelName: s.opts.ServedModelName, MaxContextLength: int32(m.ContextLength), VocabSize: int32(m.VocabSize),
		SupportsVision: m.SupportsVision, ModelType: m.ModelType, EosTokenIds: m.EOS, PadTokenId: m.Pad, BosTokenId: m.BOS,
		MaxReqInputLen: int32(m.ContextLength), Architectures: m.Architectures, DefaultSamplingParamsJson: m.SamplingDefaults,
	}, nil
}

// GetServerInfo reports the server's arguments and scheduler info (the
// worker's name there), and its state.
func (x *SGLangServer) GetServerInfo(context.Context, *sglangpb.GetServerInfoRequest) (*sglangpb.GetServerInfoResponse, error) {
	s := x.s
	args, err := s.serverArgs()
	if err != nil {
		return nil, err
	}
	sched, err := structpb.NewStruct(map[string]any{"worker": workerName, "max_total_num_tokens": s.model.ContextLength, "status": "ready"})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &sglangpb.GetServerInfoResponse{
		ServerArgs: args, SchedulerInfo: sched, ActiveRequests: int32(s.InFlight()), UptimeSeconds: s.uptime(),
		SglangVersion: s.opts.Version, ServerType: "grpc", StartTime: timestamppb.New(s.started), MaxTotalNumTokens: int32(s.model.ContextLength),
	}, nil
}

// GetLoads reports the running requests.
func (x *SGLangServer) GetLoads(context.Context, *sglangpb.GetLoadsRequest) (*sglangpb.GetLoadsResponse, error) {
	out := &sglangpb.GetLoadsResponse{}
	x.s.loads(out)
	return out, nil
}
