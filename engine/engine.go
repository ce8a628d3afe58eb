package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mmgate/mmgate/engine/protocol"
)

// Engine is the gateway's registry of workers: connections, protocol
// detection, health, model info, selection and the Generate client. It is
// safe for concurrent use.
type Engine struct {
	opts   Options
	log    *slog.Logger
	m      *metrics
	protos map[string]protocol.Protocol // by name; Options.Protocols keeps the order
	rr     atomic.Uint64
	route  *router
	known  *memory
	// workers is the current worker list, replaced (never modified in
	// place) under mu by Add and Remove, read without a lock.
	workers atomic.Pointer[[]*Worker]

	mu      sync.Mutex
	state   int // 0 new, 1 started, 2 closed
	cancel  context.CancelFunc
	base    context.Context // lives until Close; parent of background calls
	bg      sync.WaitGroup  // health loops and abort calls
	closeMu sync.Once
}

const (
	stateNew = iota
	stateStarted
	stateClosed
)

// New validates the options and creates the workers' gRPC clients (no
// connection is made until Start).
func New(o Options) (*Engine, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	m, err := newMetrics(o.Registerer)
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: o, log: o.Logger, m: m, protos: map[string]protocol.Protocol{}, route: newRouter(o), known: newMemory(o.Models)}
	for _, p := range o.Protocols {
		if p == nil || p.Name() == "" || e.protos[p.Name()] != nil {
			return nil, fmt.Errorf("engine: protocols must be non-nil with distinct names: %w", ErrBadOptions)
		}
		e.protos[p.Name()] = p
	}
	var list []*Worker
	for _, c := range o.Workers {
		w, err := e.newWorker(c, list)
		if err != nil {
			for _, w := range list {
				w.closeConn()
			}
			return nil, err
		}
		list = append(list, w)
	}
	e.setList(list)
	return e, nil
}

// defaults checks the engine-wide options and fills in their defaults.
func (o *Options) defaults() error {
	if len(o.Protocols) == 0 {
		return fmt.Errorf("engine: no protocols: %w", ErrBadOptions)
	}
	if o.Policy == "" {
		o.Policy = PolicyLeastLoaded
	}
	if !slices.Contains(Policies(), o.Policy) {
		return fmt.Errorf("engine: policy %q (want one of %s): %w", o.Policy, strings.Join(Policies(), ", "), ErrBadOptions)
	}
	if c := o.CacheAware; c.Threshold > 1 || c.MaxTreeTokens < 0 || c.MaxTreeAge < 0 {
		return fmt.Errorf("engine: cache_aware threshold %v (want at most 1), tree size %d or age %v: %w", c.Threshold, c.MaxTreeTokens, c.MaxTreeAge, ErrBadOptions)
	}
	if o.HealthInterval < 0 || o.HealthTimeout < 0 || o.AbortTimeout < 0 || o.MaxBundleBytes < 0 {
		return fmt.Errorf("engine: negative interval, timeout or size: %w", ErrBadOptions)
	}
	if o.HealthInterval == 0 {
		o.HealthInterval = DefaultHealthInterval
	}
	if o.HealthTimeout == 0 {
		o.HealthTimeout = DefaultHealthTimeout
	}
	if o.AbortTimeout == 0 {
		o.AbortTimeout = DefaultAbortTimeout
	}
	if o.MaxBundleBytes == 0 {
		o.MaxBundleBytes = DefaultMaxBundleBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// newWorker validates c against the engine's protocols and the workers in
// list and creates its (idle) connection.
func (e *Engine) newWorker(c WorkerConfig, list []*Worker) (*Worker, error) {
	s, err := c.settings()
	if err != nil {
		return nil, err
	}
	if s.runtime != "" && e.protos[s.runtime] == nil {
		return nil, fmt.Errorf("engine: worker %s: runtime %q is not one of the protocols %v: %w", c.URL, s.runtime, e.protocolNames(), ErrBadOptions)
	}
	for _, w := range list {
		if w.cfg.target == s.target {
			return nil, fmt.Errorf("engine: worker %s listed twice: %w", c.URL, ErrBadOptions)
		}
	}
	conn, err := grpc.NewClient(s.target, e.dialOptions(s)...)
	if err != nil {
		return nil, fmt.Errorf("engine: worker %s: %v: %w", c.URL, err, ErrBadURL)
	}
	w := &Worker{cfg: s, conn: conn, pool: e.opts.Pool, m: e.m, e: e}
	e.m.healthy.WithLabelValues(s.url).Set(0)
	e.m.inflight.WithLabelValues(s.url).Set(0)
	return w, nil
}

func (e *Engine) protocolNames() []string {
	var out []string
	for _, p := range e.opts.Protocols {
		out = append(out, p.Name())
	}
	return out
}

func (e *Engine) dialOptions(s workerSettings) []grpc.DialOption {
	// Reconnect attempts at most every health interval (at least every
	// second at first), so a worker that comes back is found quickly.
	base := min(time.Second, e.opts.HealthInterval)
	bc := backoff.Config{BaseDelay: base, Multiplier: 1.6, Jitter: 0.2, MaxDelay: max(base, e.opts.HealthInterval)}
	creds := insecure.NewCredentials()
	if s.tls != nil {
		creds = credentials.NewTLS(s.tls)
	}
	d := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(s.maxMsg), grpc.MaxCallSendMsgSize(s.maxMsg)),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bc, MinConnectTimeout: e.opts.HealthTimeout}),
	}
	return append(d, e.opts.DialOptions...)
}

// list is the current worker list; never modify it.
func (e *Engine) list() []*Worker { return *e.workers.Load() }

// setList installs the next worker list (under e.mu once the engine runs).
func (e *Engine) setList(next []*Worker) {
	e.workers.Store(&next)
	e.route.workersChanged(e.opts.Policy, next)
}

// Has reports whether a worker with that URL is registered.
func (e *Engine) Has(url string) bool { return e.byURL(url) != nil }

// byURL is the registered worker with that URL, or nil.
func (e *Engine) byURL(url string) *Worker {
	for _, w := range e.list() {
		if w.cfg.url == url {
			return w
		}
	}
	return nil
}

// Workers returns the current workers, in the order they were configured
// or added.
func (e *Engine) Workers() []*Worker { return slices.Clone(e.list()) }

// Start reaches every worker once (protocol, info, health; in parallel,
// each bounded by HealthTimeout), then runs one health loop per worker until
// ctx ends or Close is called. Workers that cannot be reached yet are not an
// error: their loop keeps trying. Start may be called once.
func (e *Engine) Start(ctx context.Context) error {
	e.mu.Lock()
	if e.state != stateNew {
		e.mu.Unlock()
		return fmt.Errorf("engine: start: %w", ErrClosed)
	}
	e.base, e.cancel = context.WithCancel(ctx)
	e.state = stateStarted
	ws := e.list()
	for _, w := range ws {
		e.bindLoop(w)
	}
	e.mu.Unlock()

	var g errgroup.Group
	for _, w := range ws {
		g.Go(func() error { e.refresh(w.loopCtx, w); return nil })
	}
	_ = g.Wait()
	for _, w := range ws {
		e.goBackground(func() { e.watch(w) })
	}
	return nil
}

// bindLoop gives w the context of its health loop; e.mu is held and the
// engine is started.
func (e *Engine) bindLoop(w *Worker) {
	ctx, cancel := context.WithCancel(e.base)
	w.loopCtx, w.stop = ctx, cancel
}

// Add registers a worker while the engine runs (or before Start). Once
// started, the worker is reached at once in the background and joins the
// rotation when it answers. Errors: those of New for one worker, ErrClosed.
func (e *Engine) Add(c WorkerConfig) (*Worker, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state == stateClosed {
		return nil, fmt.Errorf("engine: add %s: %w", c.URL, ErrClosed)
	}
	cur := e.list()
	w, err := e.newWorker(c, cur)
	if err != nil {
		return nil, err
	}
	e.setList(append(slices.Clone(cur), w))
	if e.state == stateStarted {
		e.bindLoop(w)
		e.bg.Add(1)
		go func() {
			defer e.bg.Done()
			e.refresh(w.loopCtx, w)
			e.watch(w)
		}()
	}
	return w, nil
}

// Remove takes the worker with that URL out of the registry at once: no new
// request goes to it, streams in flight finish, and its connection closes
// when the last one ends. It reports whether such a worker was registered.
func (e *Engine) Remove(url string) bool {
	e.mu.Lock()
	cur := e.list()
	i := slices.IndexFunc(cur, func(w *Worker) bool { return w.cfg.url == url })
	if i < 0 {
		e.mu.Unlock()
		return false
	}
	w := cur[i]
	e.setList(slices.Delete(slices.Clone(cur), i, i+1))
	if w.stop != nil {
		w.stop()
	}
	e.mu.Unlock()
	e.route.forget(url)
	w.setDown("removed")
	// A request that picked w before this line either sees removed set
	// after counting itself in flight (and goes elsewhere), or is counted
	// here and finishes before the connection closes.
	w.removed.Store(true)
	if w.inflight.Load() == 0 {
		w.retire()
	}
	e.log.Info("worker removed", "worker", url, "in_flight", w.InFlight())
	return true
}

// goBackground runs f in a goroutine that Close waits for; it does nothing
// once the engine is closed.
func (e *Engine) goBackground(f func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != stateStarted {
		return false
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		f()
	}()
	return true
}

// Close stops the health loops, waits for pending abort calls and closes the
// connections. Streams still open fail. Close is idempotent.
func (e *Engine) Close() error {
	e.closeMu.Do(func() {
		e.mu.Lock()
		e.state = stateClosed
		cancel := e.cancel
		e.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		e.bg.Wait()
		for _, w := range e.list() {
			w.closeConn()
		}
	})
	return nil
}
