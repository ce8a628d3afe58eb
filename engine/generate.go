package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/vision"
)

// Generate encodes req with w's protocol, sends it and waits for the
// worker's first response, then returns the stream positioned before it.
//
// Lease rule for batch (may be nil): every failure before the first
// response — an encoding error, an error status from the worker included —
// releases the batch (its segments are unlinked, or pooled for reuse with a
// worker that keeps segments); once the first response arrives the worker
// has read its tensors and the batch is committed. When the connection to w
// fails (UNAVAILABLE) before the first response, the request is sent again
// to another healthy worker of the same model whose protocol and route can
// carry the tensors as they were placed (dtypes, shared memory, inline and
// message limits); without one, the error is returned.
//
// When ctx ends (client gone, deadline) while the stream is open, an Abort
// for the request id is sent to the worker in the background (bounded by
// AbortTimeout) and segments not yet committed are released.
//
// Errors: ErrBadRequest, ErrUnsupportedParam, ErrTooLarge, ErrClosed,
// ErrNoWorker, a *WorkerError (unwrapping to ErrWorkerRejected, ErrTimeout,
// ErrOverloaded or ErrWorker), or the context's error (also ErrTimeout for a
// deadline).
func (e *Engine) Generate(ctx context.Context, w *Worker, req *protocol.Request, batch *shm.Batch) (*Stream, error) {
	s, err := e.generate(ctx, w, req)
	if err != nil {
		if batch != nil {
			batch.Release()
		}
		return nil, err
	}
	if batch != nil {
		batch.Commit()
	}
	return s, nil
}

func (e *Engine) generate(ctx context.Context, w *Worker, req *protocol.Request) (*Stream, error) {
	if req.ID == "" {
		return nil, fmt.Errorf("engine: generate: empty request id: %w", ErrBadRequest)
	}
	if w == nil {
		return nil, fmt.Errorf("engine: generate %s: no worker: %w", req.ID, ErrBadRequest)
	}
	e.mu.Lock()
	started := e.state == stateStarted
	e.mu.Unlock()
	if !started {
		return nil, fmt.Errorf("engine: generate %s: %w", req.ID, ErrClosed)
	}
	enc := encodings{req: req}
	tried := map[*Worker]bool{}
	for {
		tried[w] = true
		s, err := e.attempt(ctx, w, &enc)
		if err == nil {
			return s, nil
		}
		var we *WorkerError
		if ctx.Err() != nil || !errors.As(err, &we) || we.Code != codes.Unavailable {
			return nil, err
		}
		e.markDown(w, we.Message)
		next := e.retryTarget(w, &enc, tried)
		if next == nil {
			return nil, err
		}
		e.m.retries.Inc()
		e.log.Warn("generate: worker unavailable, sending the request to another worker",
			"request_id", req.ID, "from", w.URL(), "to", next.URL(), "err", we.Message)
		w = next
	}
}

// encodings are a request's messages, encoded once per protocol.
type encodings struct {
	req  *protocol.Request
	msgs []encoded // one per protocol seen; usually one
}

type encoded struct {
	proto string // the protocol's name
	msg   proto.Message
	size  int
	err   error
}

// of returns the request encoded for p.
func (x *encodings) of(p protocol.Protocol) encoded {
	for _, m := range x.msgs {
		if m.proto == p.Name() {
			return m
		}
	}
	m := encoded{proto: p.Name()}
	m.msg, m.err = p.Encode(x.req)
	if m.err == nil {
		m.size = proto.Size(m.msg)
	}
	x.msgs = append(x.msgs, m)
	return m
}

// attempt sends the request to w and waits for its first response.
func (e *Engine) attempt(ctx context.Context, w *Worker, enc *encodings) (*Stream, error) {
	req := enc.req
	rid := req.ID
	p, c := w.protocol()
	if c == nil {
		return nil, fmt.Errorf("engine: generate %s: %s was never reached: %w", rid, w.URL(), ErrNoWorker)
	}
	m := enc.of(p)
	if m.err != nil {
		// A request this protocol cannot carry: the client's error, told
		// without the worker's address.
		return nil, fmt.Errorf("engine: %w", m.err)
	}
	if m.size > w.cfg.maxMsg {
		e.m.requests.WithLabelValues(w.URL(), "too_large").Inc()
		return nil, fmt.Errorf("engine: generate %s: %d-byte request over the %d-byte message limit of %s: %w",
			rid, m.size, w.cfg.maxMsg, w.URL(), ErrTooLarge)
	}
	if w.removed.Load() {
		return nil, errRemoved(w)
	}
	w.begin()
	if w.removed.Load() {
		// Removed between the pick and now (Remove's comment): the
		// connection may be closing, so the request goes elsewhere.
		w.end()
		return nil, errRemoved(w)
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &Stream{e: e, w: w, c: c, rid: rid, ctx: ctx, cancel: cancel, choices: req.Choices()}
	s.stopAbort = context.AfterFunc(ctx, s.abort)
	if d := e.opts.StallTimeout; d > 0 {
		s.stall = time.AfterFunc(d, func() {
			s.stalled.Store(true)
			s.abort()
			cancel()
		})
	}
	es, err := c.Generate(sctx, m.msg)
	if err == nil {
		s.es = es
		s.first, err = es.Recv()
		s.hasFirst = err == nil
		if errors.Is(err, io.EOF) {
			err = &WorkerError{Op: "generate", Worker: w.URL(), Code: codes.Internal, Message: "stream ended without a response", Kind: ErrWorker}
		}
	}
	if err != nil {
		var we *WorkerError
		if !errors.As(err, &we) || s.ctx.Err() != nil {
			err = s.mapErr(err)
		}
		s.finish(err)
		return nil, err
	}
	return s, nil
}

// errRemoved is the failure of a request sent to a worker removed since it
// was picked: like a failed connection, it is retried on another worker.
func errRemoved(w *Worker) error {
	return &WorkerError{Op: "generate", Worker: w.URL(), Code: codes.Unavailable, Message: "worker removed from the registry", Kind: ErrWorker}
}

// retryTarget picks another healthy worker of the same model whose
// protocol and route can carry the request's tensors as placed, or nil.
func (e *Engine) retryTarget(from *Worker, enc *encodings, tried map[*Worker]bool) *Worker {
	info := from.Info()
	if info == nil {
		return nil
	}
	cands, err := e.candidates(info.Name(), requestModalities(enc.req))
	if err != nil {
		return nil
	}
	var ok []*Worker
	for _, c := range cands {
		if !tried[c] && compatible(c, enc) {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	return e.choose(info.Name(), ok, nil)
}

// requestModalities are the distinct modalities of req's media.
func requestModalities(req *protocol.Request) []vision.Modality {
	var need []vision.Modality
	for _, it := range req.Media {
		if !protocol.HasModality(need, it.Modality) {
			need = append(need, it.Modality)
		}
	}
	return need
}

// compatible reports whether w can take the request as built: its protocol
// encodes it within w's message limit and accepts the encoder dtypes and
// layout (Request.Placement, for several items); shared-memory tensors need a route that uses shared memory (mode
// shm, or auto with the same namespace), inline tensors must stay within
// w's inline limit.
func compatible(w *Worker, enc *encodings) bool {
	p, _ := w.protocol()
	if p == nil {
		return false
	}
	if m := enc.of(p); m.err != nil || m.size > w.cfg.maxMsg {
		return false
	}
	caps, r := w.Capabilities(), w.Route()
	fits := func(t protocol.Tensor) bool {
		if t.Payload.Shm != nil {
			return caps.Shm && usesShm(r)
		}
		return len(t.Payload.Inline) <= w.cfg.maxInline
	}
	for _, it := range enc.req.Media {
		if !caps.AcceptsDType(it.Input.DType) || !fits(it.Input) || (caps.RawMedia && it.Raw == nil) {
			return false
		}
		for _, t := range it.Side {
			if !fits(t) {
				return false
			}
		}
	}
	// Several items' inputs placed for one layout (back to back in one
	// segment, or one segment each) cannot travel by the other.
	return len(enc.req.Media) < 2 || caps.Layout == enc.req.Placement
}

// Stream is one Generate call in progress. Recv must be called from one
// goroutine at a time; Close may be called from any goroutine, any number of
// times, and must be called when the caller is done (it releases the call).
type Stream struct {
	e      *Engine
	w      *Worker
	rid    string
	ctx    context.Context
	cancel context.CancelFunc
	c      protocol.Client      // the worker's protocol client (aborts)
	es     protocol.EventStream // nil until the call is made
	first  protocol.Event       // the first event, read by attempt
	// hasFirst: first is not yet returned by Recv.
	hasFirst bool

	stopAbort func() bool
	closed    atomic.Bool
	// stall fires after StallTimeout without a message (nil without one).
	stall     *time.Timer
	stalled   atomic.Bool
	abortOnce sync.Once
	doneOnce  sync.Once
	// Recv's goroutine only:
	done     bool // the stream ended
	choices  int  // final events expected (n)
	complete int  // final events seen
}

// Worker is the worker serving the stream (after any retry).
func (s *Stream) Worker() *Worker { return s.w }

// Recv returns the next event, io.EOF after the last one, or an error
// mapped as Generate's. The stream counts as finished (in-flight count,
// metrics; Close then sends no Abort) once the worker has ended each of the
// request's choices (an event with Done).
func (s *Stream) Recv() (protocol.Event, error) {
	if s.done {
		return protocol.Event{}, io.EOF
	}
	var ev protocol.Event
	var err error
	if s.hasFirst {
		ev, s.hasFirst = s.first, false
		s.first = protocol.Event{}
	} else {
		ev, err = s.es.Recv()
	}
	if err == nil && s.stall != nil && !s.stall.Reset(s.e.opts.StallTimeout) {
		// The timer fired while this message arrived: the stream is being
		// cancelled; report the stall rather than a half-read stream.
		err = status.Error(codes.DeadlineExceeded, "stalled")
	}
	if err == nil {
		if ev.Done {
			if s.complete++; s.complete >= s.choices {
				s.done = true
				s.finish(nil)
			}
		}
		return ev, nil
	}
	s.done = true
	if errors.Is(err, io.EOF) {
		s.finish(nil)
		return protocol.Event{}, io.EOF
	}
	err = s.mapErr(err)
	s.finish(err)
	return protocol.Event{}, err
}

// Close ends the stream. If the worker has not finished, the request is
// aborted on the worker (in the background).
func (s *Stream) Close() {
	finished := true
	s.doneOnce.Do(func() { finished = false })
	if finished {
		return
	}
	s.closed.Store(true)
	if s.stall != nil {
		s.stall.Stop()
	}
	s.stopAbort()
	s.abort()
	s.cancel()
	s.w.end()
	s.e.m.requests.WithLabelValues(s.w.URL(), "cancelled").Inc()
}

// finish accounts for the end of the call (once) and frees its context.
func (s *Stream) finish(err error) {
	s.doneOnce.Do(func() {
		if s.stall != nil {
			s.stall.Stop()
		}
		s.stopAbort()
		s.cancel()
		s.w.end()
		out := outcomeOf(err)
		var we *WorkerError
		switch {
		case s.ctx.Err() != nil:
			out = "cancelled"
			// Registered here, before the caller sees the end of the
			// stream, rather than only from the context's AfterFunc
			// goroutine: that one may start after the caller has
			// returned and the engine is closing, and Close waits only
			// for aborts already registered.
			s.abort()
		case errors.As(err, &we) && we.Code == codes.Unavailable:
			out = "unavailable"
		}
		s.e.m.requests.WithLabelValues(s.w.URL(), out).Inc()
	})
}

// abort tells the worker to stop the request (once), in the background.
func (s *Stream) abort() {
	s.abortOnce.Do(func() {
		e, w, c, rid := s.e, s.w, s.c, s.rid
		e.goBackground(func() {
			// Not cancelled by Close: Close waits for pending aborts,
			// each bounded by AbortTimeout, so that a shutdown that cuts
			// requests still tells their workers.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(e.base), e.opts.AbortTimeout)
			defer cancel()
			reason := "client gone"
			if s.stalled.Load() {
				reason = "no response within the stall timeout"
			}
			if err := s.ctx.Err(); err != nil {
				reason = err.Error()
			}
			err := c.Abort(ctx, rid, reason)
			e.log.Debug("abort", "worker", w.URL(), "request_id", rid, "err", err)
		})
	})
}

// mapErr turns a stream error into the package's errors.
func (s *Stream) mapErr(err error) error {
	if cerr := s.ctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) {
			return fmt.Errorf("engine: generate %s on %s: %w: %w", s.rid, s.w.URL(), ErrTimeout, cerr)
		}
		return fmt.Errorf("engine: generate %s on %s: %w", s.rid, s.w.URL(), cerr)
	}
	if s.closed.Load() {
		return fmt.Errorf("engine: generate %s on %s: stream closed: %w", s.rid, s.w.URL(), context.Canceled)
	}
	if s.stalled.Load() {
		return &WorkerError{Op: "generate", Worker: s.w.URL(), Code: codes.DeadlineExceeded,
			Message: fmt.Sprintf("no response from the worker for %v", s.e.opts.StallTimeout), Kind: ErrTimeout}
	}
	st, _ := status.FromError(err)
	return &WorkerError{Op: "generate", Worker: s.w.URL(), Code: st.Code(), Message: st.Message(), Kind: kindOf(st.Code())}
}
