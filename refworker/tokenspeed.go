package refworker

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mmgate/mmgate/engine/tokenspeed/tensordata"
	"github.com/mmgate/mmgate/family"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

// TokenSpeedServer serves the worker with the TokenSpeed scheduler protocol
// (tokenspeed.grpc.scheduler.TokenSpeedScheduler): one MultimodalItem per
// media item, pads only in its placeholder ranges, one pad id per
// modality, and for each choice a complete repeating every token it
// streamed.
type TokenSpeedServer struct {
	tokenSpeedBase
	rpcs
}

type tokenSpeedBase struct {
	schedulerpb.UnimplementedTokenSpeedSchedulerServer
}

// TokenSpeed returns the worker's TokenSpeed service (to register or wrap).
func (s *Server) TokenSpeed() *TokenSpeedServer { return &TokenSpeedServer{rpcs: rpcs{s}} }

func registerTokenSpeed(g *grpc.Server, s *Server) {
	schedulerpb.RegisterTokenSpeedSchedulerServer(g, s.TokenSpeed())
}

// Generate validates and reads the request's tensors, then streams the
// description text token by token (stream=true: chunks, then one complete
// per choice) or answers once per choice (stream=false).
func (t *TokenSpeedServer) Generate(req *schedulerpb.GenerateRequest, stream schedulerpb.TokenSpeedScheduler_GenerateServer) error {
	mm := req.GetMmInputs().GetItems()
	ids := req.GetTokenized().GetInputIds()
	sp := req.GetSamplingParams()
	p := &params{
		stream: req.GetStream(), n: int(sp.GetN()), minNew: int(sp.GetMinNewTokens()), stops: sp.GetStop(),
		stopIDs: sp.GetStopTokenIds(), ignoreEOS: sp.GetIgnoreEos(),
		logprobs: req.GetReturnLogprob(), top: int(req.GetTopLogprobsNum()),
	}
	if sp != nil && sp.MaxNewTokens != nil {
		m := int(sp.GetMaxNewTokens())
		p.maxNew = &m
	}
	out := tokenSpeedOut(stream, req.GetRequestId(), p, uint32(len(ids)))
	return t.s.run(stream, req.GetRequestId(), ids, len(mm) > 0, func() ([]received, error) { return t.readItems(mm, ids) }, func() { t.discard(mm) }, p, out)
}

// tokenSpeedOut sends a generation as TokenSpeed does: a chunk per token
// when streaming, and at the end one complete per choice with all its
// tokens.
func tokenSpeedOut(stream schedulerpb.TokenSpeedScheduler_GenerateServer, rid string, p *params, prompt uint32) output {
	return &sender[schedulerpb.GenerateResponse]{send: stream.Send, p: p,
		chunk: func(c *choice) *schedulerpb.GenerateResponse {
			chunk := &schedulerpb.GenerateStreamChunk{TokenIds: c.last, PromptTokens: prompt, CachedTokens: uint32(p.cached), CompletionTokens: uint32(len(c.out)), Index: c.index}
			if p.logprobs {
				chunk.OutputLogprobs = logprobsOf(&schedulerpb.OutputLogProbs{}, c.last, p.top)
			}
			return &schedulerpb.GenerateResponse{RequestId: rid, Response: &schedulerpb.GenerateResponse_Chunk{Chunk: chunk}}
		},
		complete: func(c *choice, ids []uint32, index uint32) *schedulerpb.GenerateResponse {
			done := &schedulerpb.GenerateComplete{OutputIds: ids, FinishReason: c.finish, PromptTokens: prompt, CachedTokens: uint32(p.cached), CompletionTokens: uint32(len(ids)), Index: index}
			setMatched(done, c, true)
			if p.logprobs {
				done.OutputLogprobs = logprobsOf(&schedulerpb.OutputLogProbs{}, ids, p.top)
			}
			return &schedulerpb.GenerateResponse{RequestId: rid, Response: &schedulerpb.GenerateResponse_Complete{Complete: done}}
		}}
}

// readItems reads every multimodal item (which unlinks shm segments) and
// checks it. On a refusal it still reads and drops the tensors it did not
// get to, so that their segments do not outlive the request on this side.
func (t *TokenSpeedServer) readItems(mm []*schedulerpb.MultimodalItem, ids []uint32) ([]received, error) {
	items := make([]item, 0, len(mm))
	pads := map[commonpb.Modality]uint32{}
	for i, it := range mm {
		r, closeItem, err := t.readItem(i, it, pads)
		if err != nil {
			t.discard(mm[i+1:])
			return nil, err
		}
		defer closeItem()
		items = append(items, r)
	}
	return t.s.checkAll(items, ids)
}

// readItem reads one item's tensors; closeItem releases its pixels' view.
func (t *TokenSpeedServer) readItem(i int, it *schedulerpb.MultimodalItem, pads map[commonpb.Modality]uint32) (item, func(), error) {
	s := t.s
	r := item{}
	mod, ok := s.model.media(it.GetModality())
	if !ok {
		t.discardItem(it)
		return r, nil, invalid("item %d: modality %v is not supported by this model", i, it.GetModality())
	}
	r.modality, r.pad = mod, it.PlaceholderTokenId
	if r.pad != nil {
		if prev, ok := pads[it.GetModality()]; ok && prev != *r.pad {
			t.discardItem(it)
			return r, nil, invalid("item %d: placeholder_token_id %d conflicts with %d for %v", i, *r.pad, prev, it.GetModality())
		}
		pads[it.GetModality()] = *r.pad
	}
	for _, p := range it.GetPlaceholders() {
		r.ranges = append(r.ranges, span{int(p.GetOffset()), int(p.GetLength())})
	}
	side, err := t.readSide(it)
	if err != nil {
		t.discardItem(it)
		return r, nil, invalid("item %d: %v", i, err)
	}
	r.side = side
	enc := it.GetEncoderInput()
	if enc == nil {
		return r, nil, invalid("item %d: missing encoder_input", i)
	}
	view, err := s.readTensor("encoder_input", tensordata.Wire(enc))
	if err != nil {
		return r, nil, invalid("item %d: %v", i, err)
	}
	r.primary, r.path = view.Tensor, view.Path
	return r, func() { view.Close() }, nil
}

// readSide reads every side tensor of an item (which unlinks shm
// segments), in name order, copied out of their mappings.
func (t *TokenSpeedServer) readSide(it *schedulerpb.MultimodalItem) ([]family.NamedTensor, error) {
	m := it.GetModelSpecificTensors()
	var first error
	var out []family.NamedTensor
	for _, name := range sortedKeys(m) {
		v, err := t.s.readTensor(name, tensordata.Wire(m[name]))
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		out = append(out, copied(name, v))
	}
	return out, first
}

// discard reads and drops every tensor of items.
func (t *TokenSpeedServer) discard(items []*schedulerpb.MultimodalItem) {
	for _, it := range items {
		t.discardItem(it)
	}
}

func (t *TokenSpeedServer) discardItem(it *schedulerpb.MultimodalItem) {
	t.s.drop(tensordata.Wire(it.GetEncoderInput()))
	for _, name := range sortedKeys(it.GetModelSpecificTensors()) {
		t.s.drop(tensordata.Wire(it.GetModelSpecificTensors()[name]))
	}
}

// Abort cancels the request with that id, and the "-n<i>" sub-requests of
// an n>1 request.
func (t *TokenSpeedServer) Abort(_ context.Context, req *schedulerpb.AbortRequest) (*schedulerpb.AbortResponse, error) {
	if t.s.abort(req.GetRequestId(), "-n", req.GetReason()) == 0 {
		return &schedulerpb.AbortResponse{Success: false, Message: "no such request"}, nil
	}
	return &schedulerpb.AbortResponse{Success: true}, nil
}

// HealthCheck always reports healthy while the process serves.
func (t *TokenSpeedServer) HealthCheck(context.Context, *schedulerpb.HealthCheckRequest) (*schedulerpb.HealthCheckResponse, error) {
	return &schedulerpb.HealthCheckResponse{Healthy: true, Message: "ok"}, nil
}

// GetModelInfo describes the model folder.
func (t *TokenSpeedServer) GetModelInfo(context.Context, *schedulerpb.GetModelInfoRequest) (*schedulerpb.GetModelInfoResponse, error) {
	s, m := t.s, t.s.model
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
func (t *TokenSpeedServer) GetServerInfo(context.Context, *schedulerpb.GetServerInfoRequest) (*schedulerpb.GetServerInfoResponse, error) {
	s := t.s
	fields := map[string]any{"shm_namespace_id": s.reader.NamespaceID(), "worker": workerName}
	if s.reader.KeepsFiles() {
		fields["shm_keep_after_read"] = true
	}
	sched, err := structpb.NewStruct(fields)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	args, err := s.serverArgs()
	if err != nil {
		return nil, err
	}
	return &schedulerpb.GetServerInfoResponse{
		ServerArgs:        args,
		SchedulerInfo:     sched,
		ActiveRequests:    int32(s.InFlight()),
		UptimeSeconds:     s.uptime(),
		MaxTotalNumTokens: int32(s.model.ContextLength),
		TokenspeedVersion: s.opts.Version,
		StartTime:         timestamppb.New(s.started),
	}, nil
}

// GetLoads reports the running requests.
func (t *TokenSpeedServer) GetLoads(context.Context, *schedulerpb.GetLoadsRequest) (*schedulerpb.GetLoadsResponse, error) {
	out := &schedulerpb.GetLoadsResponse{}
	t.s.loads(out)
	return out, nil
}
