package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// fakeProto is a protocol without a wire: its clients answer from fakeHost,
// keyed by the connection's target. It encodes a Request as a
// structpb.Struct and its stream rule is vLLM's: each choice's final
// message repeats the last step's tokens, which the decoder drops. The
// engine runs it exactly as it runs TokenSpeed, which is what makes the
// engine protocol-neutral.
type fakeProto struct {
	name string
	caps protocol.Capabilities
	host *fakeHost
}

// fakeHost is the fake workers, by dial target ("dns:///a:1").
type fakeHost struct {
	mu      sync.Mutex
	workers map[string]*fakeWorkerState
}

type fakeWorkerState struct {
	speaks  string // the protocol it serves
	model   string
	mods    []vision.Modality
	enc     tensor.DType
	down    bool
	aborts  []string
	sent    []*structpb.Struct
	tokens  []uint32 // each choice generates these, one per step
	unavail bool     // Generate fails with UNAVAILABLE
}

func (h *fakeHost) worker(target string) *fakeWorkerState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.workers[target]
}

func (p *fakeProto) Name() string                        { return p.name }
func (p *fakeProto) Capabilities() protocol.Capabilities { return p.caps }

func (p *fakeProto) Client(cc grpc.ClientConnInterface) protocol.Client {
	return &fakeClient{p: p, target: cc.(*grpc.ClientConn).Target()}
}

func (p *fakeProto) Encode(req *protocol.Request) (proto.Message, error) {
	if req.Sampling.Constraint.Kind == protocol.Grammar {
		return nil, fmt.Errorf("fake: grammar: %w", protocol.ErrUnsupportedParam)
	}
	return structpb.NewStruct(map[string]any{
		"id": req.ID, "n": float64(req.Choices()), "stream": req.Stream, "items": float64(len(req.Media)),
	})
}

type fakeClient struct {
	p      *fakeProto
	target string
}

func (c *fakeClient) state() (*fakeWorkerState, error) {
	w := c.p.host.worker(c.target)
	if w == nil || w.down {
		return nil, status.Error(codes.Unavailable, "fake worker down")
	}
	return w, nil
}

func (c *fakeClient) Info(context.Context) (*protocol.Info, error) {
	w, err := c.state()
	if err != nil {
		return nil, err
	}
	if w.speaks != c.p.name {
		return nil, fmt.Errorf("fake %s: %w", c.p.name, protocol.ErrNotThisProtocol)
	}
	return &protocol.Info{ServedName: w.model, Modalities: w.mods, EncoderDType: w.enc, Software: "fake"}, nil
}

func (c *fakeClient) Health(context.Context) error { _, err := c.state(); return err }

func (c *fakeClient) Loads(context.Context) (int64, error) {
	return 0, fmt.Errorf("fake: %w", protocol.ErrUnimplemented)
}

func (c *fakeClient) Generate(ctx context.Context, msg proto.Message) (protocol.EventStream, error) {
	w, err := c.state()
	if err != nil {
		return nil, err
	}
	if w.unavail {
		return nil, status.Error(codes.Unavailable, "connection refused")
	}
	st := msg.(*structpb.Struct)
	c.p.host.mu.Lock()
	w.sent = append(w.sent, st)
	c.p.host.mu.Unlock()
	n := int(st.GetFields()["n"].GetNumberValue())
	// The wire: per choice one message per step, then a final message
	// repeating the last step.
	var wire []fakeMsg
	for i := range n {
		for _, tok := range w.tokens {
			wire = append(wire, fakeMsg{index: i, ids: []uint32{tok}})
		}
		wire = append(wire, fakeMsg{index: i, ids: w.tokens[len(w.tokens)-1:], final: true})
	}
	return &fakeEvents{ctx: ctx, wire: wire}, nil
}

func (c *fakeClient) Abort(_ context.Context, id, _ string) error {
	w, err := c.state()
	if err != nil {
		return err
	}
	c.p.host.mu.Lock()
	w.aborts = append(w.aborts, id)
	c.p.host.mu.Unlock()
	return nil
}

func (c *fakeClient) Tokenizer(context.Context) (protocol.ChunkStream, error) {
	return nil, status.Error(codes.Unimplemented, "fake: no tokenizer")
}

type fakeMsg struct {
	index int
	ids   []uint32
	final bool
}

// fakeEvents decodes the fake wire: a final message adds no token.
type fakeEvents struct {
	ctx  context.Context
	wire []fakeMsg
}

func (s *fakeEvents) Recv() (protocol.Event, error) {
	if err := s.ctx.Err(); err != nil {
		return protocol.Event{}, status.FromContextError(err).Err()
	}
	if len(s.wire) == 0 {
		return protocol.Event{}, io.EOF
	}
	m := s.wire[0]
	s.wire = s.wire[1:]
	if m.final {
		return protocol.Event{Index: m.index, Done: true, Finish: "stop"}, nil
	}
	return protocol.Event{Index: m.index, Tokens: m.ids}, nil
}

// fakeSetup builds two fake protocols ("alpha": float32 only, no shared
// memory, one modality per request; "beta": anything) and their workers.
func fakeSetup(workers map[string]*fakeWorkerState) (alpha, beta *fakeProto) {
	host := &fakeHost{workers: map[string]*fakeWorkerState{}}
	for addr, w := range workers {
		host.workers["dns:///"+addr] = w
	}
	alpha = &fakeProto{name: "alpha", host: host, caps: protocol.Capabilities{DTypes: []tensor.DType{tensor.Float32}, Layout: protocol.LayoutFlat}}
	beta = &fakeProto{name: "beta", host: host, caps: protocol.Capabilities{
		DTypes: []tensor.DType{tensor.Float32, tensor.BFloat16}, Shm: true, MixModalities: true, KeepAfterRead: true}}
	return alpha, beta
}

func TestEngineIsProtocolNeutral(t *testing.T) {
	both := []vision.Modality{vision.Image, vision.Video}
	alpha, beta := fakeSetup(map[string]*fakeWorkerState{
		"a:1": {speaks: "alpha", model: "m", mods: both, enc: tensor.BFloat16, tokens: []uint32{7, 8, 9}},
		"b:1": {speaks: "beta", model: "m", mods: both, enc: tensor.BFloat16, tokens: []uint32{4, 5}},
		"c:1": {speaks: "beta", model: "m", mods: both},
	})
	dir := t.TempDir()
	pool := newPool(t, dir, nil)
	e := newEngine(t, Options{Protocols: []protocol.Protocol{alpha, beta}, Pool: pool, Policy: PolicyRoundRobin, Workers: []WorkerConfig{
		{URL: "grpc://a:1"}, {URL: "grpc://b:1", Transport: shm.ModeShm}, {URL: "grpc://c:1", Runtime: "alpha"},
	}})
	wa, wb, wc := e.Workers()[0], e.Workers()[1], e.Workers()[2]

	// Detection: a answers the first protocol, b only the second; c is
	// forced to alpha, which it does not serve, so it stays down.
	if wa.Runtime() != "alpha" || wb.Runtime() != "beta" || !wa.Healthy() || !wb.Healthy() {
		t.Fatalf("runtimes %q %q healthy %v %v", wa.Runtime(), wb.Runtime(), wa.Healthy(), wb.Healthy())
	}
	if wc.Healthy() || wc.Info() != nil {
		t.Errorf("a worker forced to a protocol it does not serve is up")
	}
	// Capabilities and placement come from the protocol and the info.
	if wa.EncoderDType() != tensor.Float32 || wb.EncoderDType() != tensor.BFloat16 {
		t.Errorf("encoder dtypes %v %v", wa.EncoderDType(), wb.EncoderDType())
	}
	if r := wa.Route(); r.Mode != shm.ModeInline || r.Runtime != "alpha" {
		t.Errorf("alpha route %+v: no shared memory in this protocol", r)
	}
	if r := wb.Route(); r.Mode != shm.ModeShm || r.Runtime != "beta" || r.Reuse {
		t.Errorf("beta route %+v (keep-after-read is the worker's, not reported here)", r)
	}
	if c := wb.Capabilities(); !c.MixModalities || len(c.Modalities) != 2 || c.KeepAfterRead {
		t.Errorf("beta capabilities %+v", c)
	}
	// A request mixing modalities goes only where the protocol carries it.
	for range 4 {
		w, err := e.Pick("m", both, nil)
		if err != nil || w != wb {
			t.Fatalf("mixed request picked %v, %v", w, err)
		}
	}

	// Events of either protocol, n = 2: every token once, per choice.
	for _, w := range []*Worker{wa, wb} {
		s, err := e.Generate(context.Background(), w, &protocol.Request{ID: "g-" + w.Runtime(), Stream: true, Sampling: protocol.Sampling{N: 2}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int][]uint32{}
		for {
			ev, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got[ev.Index] = append(got[ev.Index], ev.Tokens...)
		}
		want := e.opts.Protocols[0].(*fakeProto).host.worker("dns:///" + strings.TrimPrefix(w.URL(), "grpc://")).tokens
		if !slices.Equal(got[0], want) || !slices.Equal(got[1], want) || w.InFlight() != 0 {
			t.Errorf("%s: tokens %v, want %v per choice (in flight %d)", w.Runtime(), got, want, w.InFlight())
		}
	}

	// A parameter the protocol cannot express is refused before anything
	// is sent, and the request's segments are released.
	batch := pool.NewBatch(context.Background(), "u")
	buf, err := batch.Place(wb.Route(), 1<<16, "image")
	if err != nil || buf.Path() != shm.PathShm {
		t.Fatalf("place: %v", err)
	}
	_, err = e.Generate(context.Background(), wb, &protocol.Request{ID: "u", Sampling: protocol.Sampling{Constraint: protocol.Constraint{Kind: protocol.Grammar, Value: "root ::= x"}}}, batch)
	if !errors.Is(err, ErrUnsupportedParam) || len(dirEntries(t, dir)) != 0 {
		t.Errorf("unsupported parameter: %v, left %v", err, dirEntries(t, dir))
	}
	if sent := alpha.host.worker("dns:///b:1").sent; len(sent) != 1 {
		t.Errorf("beta worker got %d requests, want 1", len(sent))
	}
}

// Retries cross protocols only to workers that can carry the request as
// placed: alpha takes neither shared memory nor bfloat16.
func TestRetryAcrossProtocols(t *testing.T) {
	all := []vision.Modality{vision.Image}
	alpha, beta := fakeSetup(map[string]*fakeWorkerState{
		"a:1": {speaks: "alpha", model: "m", mods: all, tokens: []uint32{1}},
		"b:1": {speaks: "beta", model: "m", mods: all, tokens: []uint32{2}, unavail: true},
		"c:1": {speaks: "beta", model: "m", mods: all, tokens: []uint32{3}},
	})
	e := newEngine(t, Options{Protocols: []protocol.Protocol{alpha, beta}, Workers: []WorkerConfig{{URL: "grpc://a:1"}, {URL: "grpc://b:1"}, {URL: "grpc://c:1"}}})
	wa, wb, wc := e.Workers()[0], e.Workers()[1], e.Workers()[2]
	item := protocol.MediaItem{Modality: vision.Image, Input: protocol.InlineTensor("pixel_values", tensor.BFloat16, []int{2}, make([]byte, 4))}
	s, err := e.Generate(context.Background(), wb, &protocol.Request{ID: "r", Media: []protocol.MediaItem{item}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Worker() != wc {
		t.Errorf("retried on %s, want %s (alpha cannot take bfloat16)", s.Worker().URL(), wc.URL())
	}
	if len(alpha.host.worker("dns:///a:1").sent) != 0 || wa.InFlight() != 0 {
		t.Error("alpha worker was sent a request it cannot carry")
	}
	if wb.Healthy() {
		t.Error("unavailable worker still in the rotation")
	}
}

// Workers join and leave at run time; a removed worker's streams finish.
func TestAddRemoveWorkers(t *testing.T) {
	img := []vision.Modality{vision.Image}
	alpha, beta := fakeSetup(map[string]*fakeWorkerState{
		"a:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{1, 2}},
		"b:1": {speaks: "beta", model: "m", mods: img, tokens: []uint32{3, 4}},
	})
	e := newEngine(t, Options{Protocols: []protocol.Protocol{alpha, beta}, Workers: []WorkerConfig{{URL: "grpc://a:1"}}})
	if _, err := e.Add(WorkerConfig{URL: "grpc://a:1"}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("duplicate add: %v", err)
	}
	if _, err := e.Add(WorkerConfig{URL: "grpc://z:1", Runtime: "gamma"}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("unknown runtime: %v", err)
	}
	wb, err := e.Add(WorkerConfig{URL: "grpc://b:1"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "added worker up", wb.Healthy)
	if m := e.Models(); len(m) != 1 || m[0].Workers != 2 || m[0].Healthy != 2 {
		t.Fatalf("models %+v", m)
	}
	wa := e.Workers()[0]
	s, err := e.Generate(context.Background(), wa, &protocol.Request{ID: "in-flight", Stream: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Remove("grpc://a:1") || e.Remove("grpc://a:1") {
		t.Fatal("remove did not report the worker once")
	}
	for range 4 {
		if w, err := e.Pick("m", img, nil); err != nil || w != wb {
			t.Fatalf("picked %v, %v after removal", w, err)
		}
	}
	// The stream opened before the removal still finishes.
	if _, _, err := collect(t, s); err != nil {
		t.Errorf("stream on the removed worker: %v", err)
	}
	if wa.conn.GetState().String() != "SHUTDOWN" {
		t.Errorf("removed worker's connection %v after its last stream", wa.conn.GetState())
	}
	e.Remove("grpc://b:1")
	// The model is remembered: no worker serves it at the moment (503),
	// it is not unknown (404).
	if _, err := e.Pick("m", img, nil); !errors.Is(err, ErrNoWorker) || e.Ready() || !e.Serves("m") {
		t.Errorf("no workers left: %v", err)
	}
	if m := e.Models(); len(m) != 1 || m[0].Name != "m" || m[0].Workers != 0 || m[0].Info == nil {
		t.Errorf("models with no worker left: %+v", m)
	}
}
