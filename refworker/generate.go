package refworker

import (
	"context"
	"math"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
)

// Limits on what one request may ask for, as a real worker has them (vLLM's
// max_logprobs defaults to 20): without them a single request could make the
// worker build gigabytes of top-logprob lists or choices.
const (
	MaxTopLogprobs = 20
	MaxN           = 256
)

// checkLimits refuses requests over MaxTopLogprobs or MaxN.
func checkLimits(req *schedulerpb.GenerateRequest) error {
	if k := req.GetTopLogprobsNum(); k < 0 || k > MaxTopLogprobs {
		return status.Errorf(codes.InvalidArgument, "top_logprobs_num %d is outside 0..%d", k, MaxTopLogprobs)
	}
	if n := req.GetSamplingParams().GetN(); n > MaxN {
		return status.Errorf(codes.InvalidArgument, "n %d is over the limit %d", n, MaxN)
	}
	return nil
}

// choice is the state of one of the n sequences of a Generate call.
type choice struct {
	index   uint32
	out     []uint32
	done    bool
	finish  string
	stopID  *uint32
	stopStr string
	cycle   int // position in the reply tokens
	maxNew  int
	minNew  int
	stops   []string
	// stopWindow is how many trailing tokens are decoded to look for stop
	// strings: every token is at least one byte, so twice the longest stop
	// string plus a margin for a partial UTF-8 sequence covers any match
	// that ends in the newest token.
	stopWindow int
	stopIDs    map[uint32]bool
	ignoreEO   bool
}

// Generate validates and reads the request's tensors, then streams the
// description text token by token (stream=true: chunks, then one complete
// per choice) or answers once per choice (stream=false).
func (s *Server) Generate(req *schedulerpb.GenerateRequest, stream schedulerpb.TokenSpeedScheduler_GenerateServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	rid := req.GetRequestId()
	if rid == "" {
		s.discard(req.GetMmInputs().GetItems())
		return status.Error(codes.InvalidArgument, "request_id is empty")
	}
	ids := req.GetTokenized().GetInputIds()
	if len(ids) == 0 {
		s.discard(req.GetMmInputs().GetItems())
		return status.Error(codes.InvalidArgument, "tokenized input is empty")
	}
	if err := checkLimits(req); err != nil {
		s.discard(req.GetMmInputs().GetItems())
		return err
	}
	if n := s.opts.RejectEvery; n > 0 && s.calls.Add(1)%int64(n) == 0 {
		s.discard(req.GetMmInputs().GetItems())
		return status.Errorf(codes.InvalidArgument, "request %q rejected (reject-every %d)", rid, n)
	}
	if len(ids) > s.model.ContextLength {
		s.discard(req.GetMmInputs().GetItems())
		return status.Errorf(codes.InvalidArgument, "prompt of %d tokens exceeds the context length %d", len(ids), s.model.ContextLength)
	}
	if !s.track(rid, cancel) {
		s.discard(req.GetMmInputs().GetItems())
		return status.Errorf(codes.AlreadyExists, "request %q is already running", rid)
	}
	defer s.untrack(rid)

	items, err := s.encode(ctx, req)
	if err != nil {
		return err
	}
	reply := s.tok.Encode(s.reply(ids, items))
	choices := s.newChoices(req, len(ids))

	promptN := uint32(len(ids))
	for step := 0; ; step++ {
		active := false
		for _, c := range choices {
			if c.done {
				continue
			}
			active = true
			tok := s.next(c, reply)
			if c.done && tok == nil {
				continue
			}
			if req.GetStream() {
				chunk := &schedulerpb.GenerateStreamChunk{
					TokenIds:         []uint32{*tok},
					PromptTokens:     promptN,
					CompletionTokens: uint32(len(c.out)),
					Index:            c.index,
				}
				if req.GetReturnLogprob() {
					chunk.OutputLogprobs = logprobs([]uint32{*tok}, int(req.GetTopLogprobsNum()))
				}
				if err := stream.Send(&schedulerpb.GenerateResponse{RequestId: rid, Response: &schedulerpb.GenerateResponse_Chunk{Chunk: chunk}}); err != nil {
					return err
				}
			}
		}
		if !active {
			break
		}
		if s.opts.TokenDelay > 0 {
			t := time.NewTimer(s.opts.TokenDelay)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C:
			}
		}
		if ctx.Err() != nil {
			if stream.Context().Err() != nil {
				return status.FromContextError(stream.Context().Err()).Err()
			}
			for _, c := range choices {
				if !c.done {
					c.done, c.finish = true, "abort"
				}
			}
		}
	}
	for _, c := range choices {
		done := &schedulerpb.GenerateComplete{
			OutputIds:        c.out,
			FinishReason:     c.finish,
			PromptTokens:     promptN,
			CompletionTokens: uint32(len(c.out)),
			Index:            c.index,
		}
		switch {
		case c.stopID != nil:
			done.MatchedStop = &schedulerpb.GenerateComplete_MatchedTokenId{MatchedTokenId: *c.stopID}
		case c.stopStr != "":
			done.MatchedStop = &schedulerpb.GenerateComplete_MatchedStopStr{MatchedStopStr: c.stopStr}
		}
		if req.GetReturnLogprob() {
			done.OutputLogprobs = logprobs(c.out, int(req.GetTopLogprobsNum()))
		}
		if err := stream.Send(&schedulerpb.GenerateResponse{RequestId: rid, Response: &schedulerpb.GenerateResponse_Complete{Complete: done}}); err != nil {
			return err
		}
	}
	return nil
}

// reply is the text the worker answers with: the description of the request,
// or, in tool-call mode, a fixed call in the Qwen format.
func (s *Server) reply(ids []uint32, items []received) string {
	if s.opts.ToolCall != "" {
		return s.opts.ToolCall
	}
	return s.describe(ids, items)
}

func (s *Server) newChoices(req *schedulerpb.GenerateRequest, promptLen int) []*choice {
	sp := req.GetSamplingParams()
	n := int(sp.GetN())
	if n < 1 {
		n = 1
	}
	maxNew := s.model.ContextLength - promptLen
	if sp != nil && sp.MaxNewTokens != nil {
		maxNew = min(maxNew, int(sp.GetMaxNewTokens()))
	}
	stopIDs := map[uint32]bool{}
	for _, id := range sp.GetStopTokenIds() {
		stopIDs[id] = true
	}
	window := 16
	for _, st := range sp.GetStop() {
		window = max(window, 2*len(st)+16)
	}
	out := make([]*choice, n)
	for i := range out {
		out[i] = &choice{
			index:      uint32(i),
			maxNew:     maxNew,
			minNew:     int(sp.GetMinNewTokens()),
			stops:      sp.GetStop(),
			stopWindow: window,
			stopIDs:    stopIDs,
			ignoreEO:   sp.GetIgnoreEos(),
		}
	}
	return out
}

// next produces c's next token (or finishes c and returns nil). The sequence is
// the reply tokens, then EOS; with ignore_eos or min_new_tokens it cycles.
func (s *Server) next(c *choice, reply []uint32) *uint32 {
	if len(c.out) >= c.maxNew {
		c.done, c.finish = true, "length"
		return nil
	}
	var tok uint32
	switch {
	case c.cycle < len(reply):
		tok = reply[c.cycle]
		c.cycle++
	case c.ignoreEO || len(c.out) < c.minNew || len(s.model.EOS) == 0:
		if len(reply) == 0 {
			c.done, c.finish = true, "length"
			return nil
		}
		c.cycle = 1
		tok = reply[0]
	default:
		tok = uint32(s.model.EOS[0])
		c.out = append(c.out, tok)
		c.done, c.finish, c.stopID = true, "stop", &tok
		return &tok
	}
	c.out = append(c.out, tok)
	if c.stopIDs[tok] {
		c.done, c.finish, c.stopID = true, "stop", &tok
		return &tok
	}
	if len(c.stops) > 0 {
		// Only the tail can hold a stop string that this token completed:
		// decoding all of c.out at every step made long generations
		// quadratic (minutes of CPU for one request).
		text := s.tok.Decode(c.out[max(0, len(c.out)-c.stopWindow):], true)
		for _, st := range c.stops {
			if st != "" && strings.Contains(text, st) {
				c.done, c.finish, c.stopStr = true, "stop", st
				return &tok
			}
		}
	}
	return &tok
}

// logprobs are deterministic stand-ins: the chosen token has probability 0.9
// and the alternatives after it 0.05, 0.025, ... (ids above the chosen one).
func logprobs(ids []uint32, top int) *schedulerpb.OutputLogProbs {
	lp := &schedulerpb.OutputLogProbs{TokenIds: ids}
	for _, id := range ids {
		lp.TokenLogprobs = append(lp.TokenLogprobs, float32(math.Log(0.9)))
		if top > 0 {
			t := &schedulerpb.TopLogProbs{}
			p := 0.9
			for k := 0; k < top; k++ {
				t.TokenIds = append(t.TokenIds, id+uint32(k))
				t.Values = append(t.Values, float32(math.Log(p)))
				if k == 0 {
					p = 0.05
				} else {
					p /= 2
				}
			}
			lp.TopLogprobs = append(lp.TopLogprobs, t)
		}
	}
	return lp
}
