package refworker

import (
	"context"
	"math"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Limits on what one request may ask for, as a real worker has them (vLLM's
// max_logprobs defaults to 20): without them a single request could make the
// worker build gigabytes of top-logprob lists or choices.
const (
	MaxTopLogprobs = 20
	MaxN           = 256
)

// params are a request's generation settings, whatever its protocol.
type params struct {
	stream    bool
	n         int
	maxNew    *int // nil: to the end of the context
	minNew    int
	stops     []string
	stopIDs   []uint32
	ignoreEOS bool
	logprobs  bool // log-probabilities of the output tokens
	top       int  // alternatives per position
	// cached is the prompt tokens the worker's prefix cache held (set
	// once the request's media is read, before the first token).
	cached int
}

// checkLimits refuses requests over MaxTopLogprobs or MaxN.
func (p *params) checkLimits() error {
	if p.top < 0 || p.top > MaxTopLogprobs {
		return status.Errorf(codes.InvalidArgument, "top_logprobs %d is outside 0..%d", p.top, MaxTopLogprobs)
	}
	if p.n > MaxN {
		return status.Errorf(codes.InvalidArgument, "n %d is over the limit %d", p.n, MaxN)
	}
	return nil
}

// choice is the state of one of the n sequences of a Generate call.
type choice struct {
	index   uint32
	out     []uint32
	last    []uint32 // the tokens of the latest step (none when it ended without one)
	done    bool
	finish  string
	stopID  *uint32
	eos     bool // stopped by the end-of-sequence token
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

// output is how a protocol sends a generation: its layer turns each event
// of the loop into that protocol's messages.
type output interface {
	// step: c produced the tokens c.last at this step.
	step(c *choice) error
	// finished: c ended at this step (after its step, if it had one).
	finished(c *choice) error
	// end: every choice has ended.
	end(choices []*choice) error
}

// sender is an output by one of the two stream rules the protocols have.
// TokenSpeed (lastStep false): a chunk per step when streaming, and at the
// end one complete per choice with all its tokens. vLLM and SGLang
// (lastStep true): streaming, a chunk per step and, as a choice finishes,
// a complete built from that last step; without stream, at the end one
// complete per choice with all its tokens, numbered by index (nil: the
// choice's index). chunk and complete build the protocol's messages.
type sender[R any] struct {
	send     func(*R) error
	p        *params
	lastStep bool
	index    func(*choice) uint32
	chunk    func(c *choice) *R
	complete func(c *choice, ids []uint32, index uint32) *R
}

func (o *sender[R]) step(c *choice) error {
	if !o.p.stream {
		return nil
	}
	return o.send(o.chunk(c))
}

func (o *sender[R]) finished(c *choice) error {
	if !o.p.stream || !o.lastStep {
		return nil
	}
	return o.send(o.complete(c, c.last, c.index))
}

func (o *sender[R]) end(choices []*choice) error {
	if o.p.stream && o.lastStep {
		return nil
	}
	for _, c := range choices {
		index := c.index
		if o.index != nil {
			index = o.index(c)
		}
		if err := o.send(o.complete(c, c.out, index)); err != nil {
			return err
		}
	}
	return nil
}

// generate streams the reply to ids (what the worker received, items) for
// every choice through out. ctx is the call's (cancelled by Abort), streamCtx
// the client's: when the client leaves, the call ends with its status;
// after an Abort the choices still running end with "abort".
func (s *Server) generate(ctx, streamCtx context.Context, ids []uint32, items []received, p *params, out output) error {
	reply := s.tok.Encode(s.reply(ids, items))
	choices := s.newChoices(p, len(ids))
	for {
		active := false
		for _, c := range choices {
			if c.done {
				continue
			}
			active = true
			s.next(c, reply)
			if len(c.last) > 0 {
				if err := out.step(c); err != nil {
					return err
				}
			}
			if c.done {
				if err := out.finished(c); err != nil {
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
		if ctx.Err() == nil {
			continue
		}
		if streamCtx.Err() != nil {
			return status.FromContextError(streamCtx.Err()).Err()
		}
		for _, c := range choices {
			if !c.done {
				c.done, c.finish, c.last = true, "abort", nil
				if err := out.finished(c); err != nil {
					return err
				}
			}
		}
	}
	return out.end(choices)
}

// reply is the text the worker answers with: the description of the request,
// or, in tool-call mode, a fixed call in the Qwen format.
func (s *Server) reply(ids []uint32, items []received) string {
	if s.opts.ToolCall != "" {
		return s.opts.ToolCall
	}
	return s.describe(ids, items)
}

func (s *Server) newChoices(p *params, promptLen int) []*choice {
	n := max(1, p.n)
	maxNew := s.model.ContextLength - promptLen
	if p.maxNew != nil {
		maxNew = min(maxNew, *p.maxNew)
	}
	stopIDs := map[uint32]bool{}
	for _, id := range p.stopIDs {
		stopIDs[id] = true
	}
	window := 16
	for _, st := range p.stops {
		window = max(window, 2*len(st)+16)
	}
	out := make([]*choice, n)
	for i := range out {
		out[i] = &choice{
			index:      uint32(i),
			maxNew:     maxNew,
			minNew:     p.minNew,
			stops:      p.stops,
			stopWindow: window,
			stopIDs:    stopIDs,
			ignoreEO:   p.ignoreEOS,
		}
	}
	return out
}

// next produces c's next token into c.last (or finishes c without one). The
// sequence is the reply tokens, then EOS; with ignore_eos or min_new_tokens
// it cycles. A choice that reaches its token limit finishes with its last
// token.
func (s *Server) next(c *choice, reply []uint32) {
	c.last = nil
	if len(c.out) >= c.maxNew {
		c.done, c.finish = true, "length"
		return
	}
	var tok uint32
	switch {
	case c.cycle < len(reply):
		tok = reply[c.cycle]
		c.cycle++
	case c.ignoreEO || len(c.out) < c.minNew || len(s.model.EOS) == 0:
		if len(reply) == 0 {
			c.done, c.finish = true, "length"
			return
		}
		c.cycle = 1
		tok = reply[0]
	default:
		tok = uint32(s.model.EOS[0])
		c.out, c.last = append(c.out, tok), append(c.last, tok)
		c.done, c.finish, c.stopID, c.eos = true, "stop", &tok, true
		return
	}
	c.out, c.last = append(c.out, tok), append(c.last, tok)
	switch {
	case c.stopIDs[tok]:
		c.done, c.finish, c.stopID = true, "stop", &tok
	case s.stopString(c):
	case len(c.out) >= c.maxNew:
		c.done, c.finish = true, "length"
	}
}

// stopString finishes c when its newest token completed a stop string.
func (s *Server) stopString(c *choice) bool {
	if len(c.stops) == 0 {
		return false
	}
	// Only the tail can hold a stop string that this token completed:
	// decoding all of c.out at every step made long generations quadratic
	// (minutes of CPU for one request).
	text := s.tok.Decode(c.out[max(0, len(c.out)-c.stopWindow):], true)
	for _, st := range c.stops {
		if st != "" && strings.Contains(text, st) {
			c.done, c.finish, c.stopStr = true, "stop", st
			return true
		}
	}
	return false
}

// logprobsOf fills out, an empty OutputLogProbs message of the request's
// protocol (the protocols name its fields alike), with deterministic
// stand-in log-probabilities of ids: the chosen token has probability 0.9
// and the top alternatives after it 0.05, 0.025, ... (ids above the chosen
// one).
func logprobsOf[M proto.Message](out M, ids []uint32, top int) M {
	m := out.ProtoReflect()
	f := m.Descriptor().Fields()
	idList, vals, tops := m.Mutable(f.ByName("token_ids")).List(), m.Mutable(f.ByName("token_logprobs")).List(), m.Mutable(f.ByName("top_logprobs")).List()
	for _, id := range ids {
		idList.Append(protoreflect.ValueOfUint32(id))
		vals.Append(protoreflect.ValueOfFloat32(float32(math.Log(0.9))))
		if top <= 0 {
			continue
		}
		t := tops.NewElement().Message()
		tf := t.Descriptor().Fields()
		tids, tvals := t.Mutable(tf.ByName("token_ids")).List(), t.Mutable(tf.ByName("values")).List()
		p := 0.9
		for j := range top {
			tids.Append(protoreflect.ValueOfUint32(id + uint32(j)))
			tvals.Append(protoreflect.ValueOfFloat32(float32(math.Log(p))))
			if j == 0 {
				p = 0.05
			} else {
				p /= 2
			}
		}
		tops.Append(protoreflect.ValueOfMessage(t))
	}
	return out
}

// setMatched sets a GenerateComplete's matched stop (the protocols name its
// oneof members alike): the stop string, else the stop token (an
// end-of-sequence only with eos set: vLLM reports none for it).
func setMatched(done proto.Message, c *choice, eos bool) {
	m := done.ProtoReflect()
	f := m.Descriptor().Fields()
	switch {
	case c.stopStr != "":
		m.Set(f.ByName("matched_stop_str"), protoreflect.ValueOfString(c.stopStr))
	case c.stopID != nil && (eos || !c.eos):
		m.Set(f.ByName("matched_token_id"), protoreflect.ValueOfUint32(*c.stopID))
	}
}
