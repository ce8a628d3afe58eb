package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/vision"
)

// Engine is the gateway's registry of workers: connections, health, model
// info, selection and the Generate client. It is safe for concurrent use.
type Engine struct {
	opts    Options
	log     *slog.Logger
	m       *metrics
	workers []*Worker
	rr      atomic.Uint64

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
	if len(o.Workers) == 0 {
		return nil, fmt.Errorf("engine: no workers: %w", ErrBadOptions)
	}
	switch o.Policy {
	case "":
		o.Policy = PolicyLeastLoaded
	case PolicyLeastLoaded, PolicyRoundRobin:
	default:
		return nil, fmt.Errorf("engine: policy %q (want least_loaded or round_robin): %w", o.Policy, ErrBadOptions)
	}
	if o.HealthInterval < 0 || o.HealthTimeout < 0 || o.AbortTimeout < 0 || o.MaxBundleBytes < 0 {
		return nil, fmt.Errorf("engine: negative interval, timeout or size: %w", ErrBadOptions)
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
	m, err := newMetrics(o.Registerer)
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: o, log: o.Logger, m: m}
	seen := map[string]bool{}
	for _, c := range o.Workers {
		s, err := c.settings()
		if err != nil {
			e.closeConns()
			return nil, err
		}
		if seen[s.target] {
			e.closeConns()
			return nil, fmt.Errorf("engine: worker %s listed twice: %w", c.URL, ErrBadOptions)
		}
		seen[s.target] = true
		conn, err := grpc.NewClient(s.target, e.dialOptions(s)...)
		if err != nil {
			e.closeConns()
			return nil, fmt.Errorf("engine: worker %s: %v: %w", c.URL, err, ErrBadURL)
		}
		w := &Worker{cfg: s, conn: conn, client: schedulerpb.NewTokenSpeedSchedulerClient(conn), pool: o.Pool, m: m}
		m.healthy.WithLabelValues(s.url).Set(0)
		m.inflight.WithLabelValues(s.url).Set(0)
		e.workers = append(e.workers, w)
	}
	return e, nil
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

func (e *Engine) closeConns() {
	for _, w := range e.workers {
		_ = w.conn.Close()
	}
}

// Workers returns the configured workers, in configuration order.
func (e *Engine) Workers() []*Worker { return append([]*Worker(nil), e.workers...) }

// Start reaches every worker once (info, server info, health; in parallel,
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
	e.mu.Unlock()

	var g errgroup.Group
	for _, w := range e.workers {
		g.Go(func() error { e.refresh(e.base, w); return nil })
	}
	_ = g.Wait()
	for _, w := range e.workers {
		e.goBackground(func() { e.watch(e.base, w) })
	}
	return nil
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
		e.closeConns()
	})
	return nil
}

// watch is a worker's health loop.
func (e *Engine) watch(ctx context.Context, w *Worker) {
	t := time.NewTicker(e.opts.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if w.Healthy() {
			e.check(ctx, w)
		} else {
			e.refresh(ctx, w)
		}
	}
}

// check runs HealthCheck (and GetLoads) on a healthy worker.
func (e *Engine) check(ctx context.Context, w *Worker) {
	cctx, cancel := context.WithTimeout(ctx, e.opts.HealthTimeout)
	defer cancel()
	hc, err := w.client.HealthCheck(cctx, &schedulerpb.HealthCheckRequest{})
	if ctx.Err() != nil {
		return
	}
	if err != nil || !hc.GetHealthy() {
		reason := fmt.Sprint(err)
		if err == nil {
			reason = "unhealthy: " + hc.GetMessage()
		}
		e.markDown(w, reason)
		return
	}
	e.pollLoads(cctx, w)
}

// pollLoads reads the worker's queue lengths; a worker without GetLoads is
// balanced on local in-flight counts only.
func (e *Engine) pollLoads(ctx context.Context, w *Worker) {
	w.mu.RLock()
	skip := w.noLoads
	w.mu.RUnlock()
	if skip || e.opts.Policy != PolicyLeastLoaded {
		return
	}
	local := w.inflight.Load()
	lr, err := w.client.GetLoads(ctx, &schedulerpb.GetLoadsRequest{})
	if err != nil {
		if isUnimplemented(err) {
			w.mu.Lock()
			w.noLoads = true
			w.mu.Unlock()
		}
		return
	}
	var n int64
	if a := lr.GetAggregate(); a != nil && (a.GetTotalRunningReqs() != 0 || a.GetTotalWaitingReqs() != 0) {
		n = int64(a.GetTotalRunningReqs()) + int64(a.GetTotalWaitingReqs())
	} else {
		for _, l := range lr.GetLoads() {
			n += int64(l.GetNumRunningReqs()) + int64(l.GetNumWaitingReqs())
		}
	}
	w.setLoads(n, local)
}

// refresh (re)reads a worker's info and, when it answers and is healthy,
// puts it (back) in the rotation.
func (e *Engine) refresh(ctx context.Context, w *Worker) {
	cctx, cancel := context.WithTimeout(ctx, e.opts.HealthTimeout)
	defer cancel()
	info, err := e.fetchInfo(cctx, w)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		e.markDown(w, err.Error())
		return
	}
	if w.setInfo(info) {
		e.log.Info("worker up", "worker", w.URL(), "model", info.Name(), "model_type", info.Model.GetModelType(),
			"namespace_match", info.NamespaceMatch, "shm_reuse", w.Route().Reuse, "encoder_dtype", w.EncoderDType().String(), "transport", w.Route().Mode.String())
	}
	e.pollLoads(cctx, w)
}

func (e *Engine) fetchInfo(ctx context.Context, w *Worker) (*Info, error) {
	mi, err := w.client.GetModelInfo(ctx, &schedulerpb.GetModelInfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("get_model_info: %w", err)
	}
	if mi.GetServedModelName() == "" {
		return nil, fmt.Errorf("get_model_info: empty served_model_name")
	}
	info := &Info{Model: mi, Modalities: modalitiesOf(mi), Runtime: "tokenspeed", Fetched: time.Now()}
	si, err := w.client.GetServerInfo(ctx, &schedulerpb.GetServerInfoRequest{})
	switch {
	case err == nil:
		info.Server = si
		f := si.GetSchedulerInfo().GetFields()
		info.NamespaceID = f["shm_namespace_id"].GetStringValue()
		info.KeepsShm = f["shm_keep_after_read"].GetBoolValue()
		if r := f["worker"].GetStringValue(); r != "" {
			info.Runtime = r
		}
	case !isUnimplemented(err):
		return nil, fmt.Errorf("get_server_info: %w", err)
	}
	if p := e.opts.Pool; p != nil && info.NamespaceID != "" && info.NamespaceID == p.NamespaceID() {
		info.NamespaceMatch = true
	}
	hc, err := w.client.HealthCheck(ctx, &schedulerpb.HealthCheckRequest{})
	if err != nil {
		return nil, fmt.Errorf("health_check: %w", err)
	}
	if !hc.GetHealthy() {
		return nil, fmt.Errorf("health_check: unhealthy: %s", hc.GetMessage())
	}
	return info, nil
}

// markDown takes w out of the rotation until its health loop finds it again.
func (e *Engine) markDown(w *Worker, reason string) {
	if w.setDown(reason) {
		e.log.Warn("worker down", "worker", w.URL(), "reason", reason)
	}
}

// Model is one served model name and what its workers report.
type Model struct {
	Name string
	// Info is the info of one of its workers (a healthy one when there is
	// one).
	Info *Info
	// Workers serve the model (reached at least once); Healthy are in the
	// rotation.
	Workers, Healthy int
}

// Models lists the served models known from workers reached at least once,
// sorted by name.
func (e *Engine) Models() []Model {
	byName := map[string]*Model{}
	for _, w := range e.workers {
		w.mu.RLock()
		info, healthy := w.info, w.healthy
		w.mu.RUnlock()
		if info == nil {
			continue
		}
		m := byName[info.Name()]
		if m == nil {
			m = &Model{Name: info.Name(), Info: info}
			byName[m.Name] = m
		}
		m.Workers++
		if healthy {
			if m.Healthy == 0 {
				m.Info = info
			}
			m.Healthy++
		}
	}
	out := make([]Model, 0, len(byName))
	for _, m := range byName {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Ready reports whether any worker is healthy.
func (e *Engine) Ready() bool {
	for _, w := range e.workers {
		if w.Healthy() {
			return true
		}
	}
	return false
}

// Pick chooses a healthy worker serving model that takes every modality in
// need, by the policy. Errors: ErrModelNotFound (no worker reached so far
// serves it; when some workers were never reached, ErrNoWorker instead, as
// the model may be theirs), ErrModality (the model does not take one of
// need), ErrNoWorker (none of its workers is healthy).
func (e *Engine) Pick(model string, need []vision.Modality) (*Worker, error) {
	cands, err := e.candidates(model, need)
	if err != nil {
		return nil, err
	}
	return e.choose(cands), nil
}

// candidates are the healthy workers of model that take need.
func (e *Engine) candidates(model string, need []vision.Modality) ([]*Worker, error) {
	var known, capable, unknown int
	var healthy []*Worker
	for _, w := range e.workers {
		w.mu.RLock()
		info, ok := w.info, w.healthy
		w.mu.RUnlock()
		if info == nil {
			unknown++
			continue
		}
		if info.Name() != model {
			continue
		}
		known++
		if !info.Supports(need) {
			continue
		}
		capable++
		if ok {
			healthy = append(healthy, w)
		}
	}
	switch {
	case known == 0 && unknown > 0:
		return nil, fmt.Errorf("engine: model %q: not served by any worker reached so far (%d not reached): %w", model, unknown, ErrNoWorker)
	case known == 0:
		return nil, fmt.Errorf("engine: model %q: %w", model, ErrModelNotFound)
	case capable == 0:
		return nil, fmt.Errorf("engine: model %q does not take %v: %w", model, need, ErrModality)
	case len(healthy) == 0:
		return nil, fmt.Errorf("engine: model %q: %d workers, none healthy: %w", model, known, ErrNoWorker)
	}
	return healthy, nil
}

// choose applies the policy to a non-empty candidate list. Round robin
// rotates; least loaded takes the smallest load, ties broken by rotation.
func (e *Engine) choose(c []*Worker) *Worker {
	start := int(e.rr.Add(1)-1) % len(c)
	if e.opts.Policy == PolicyRoundRobin {
		return c[start]
	}
	best, bestLoad := c[start], c[start].load()
	for k := 1; k < len(c); k++ {
		w := c[(start+k)%len(c)]
		if l := w.load(); l < bestLoad {
			best, bestLoad = w, l
		}
	}
	return best
}
