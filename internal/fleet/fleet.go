package fleet

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/discovery"
)

// DefaultFlapWindow is the default of Options.FlapWindow.
const DefaultFlapWindow = 30 * time.Second

// ErrBadOptions: a required Options field is missing.
var ErrBadOptions = errors.New("bad options")

// Options configure a Fleet. Engine is required; the zero value of every
// other field means its default.
type Options struct {
	Engine *engine.Engine
	// Worker is the configuration of every discovered worker (transport,
	// shared-memory threshold, message limit, TLS); its URL, Runtime and
	// Model come from discovery.
	Worker engine.WorkerConfig
	// Backoff damps the re-registration of URLs that failed.
	Backoff discovery.BackoffOptions
	// FlapWindow: a worker removed within this time of its registration
	// counts as a failure of its URL. Default 30 s.
	FlapWindow time.Duration
	// Logger receives a line per change; nil discards.
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Fleet is the engine as a discovery.Sink, and the gateway's view of its
// workers.
type Fleet struct {
	eng     *engine.Engine
	tmpl    engine.WorkerConfig
	backoff *discovery.Backoff
	flap    time.Duration
	log     *slog.Logger
	now     func() time.Time

	mu       sync.Mutex
	owned    map[string]*entry // discovered workers by URL
	draining []*engine.Worker  // removed, with requests in flight
	source   string            // the provider attached (Attach)
	status   func() discovery.Status
	closed   bool
}

// entry is one discovered worker.
type entry struct {
	w      discovery.Worker
	worker *engine.Worker // nil while waiting or when static owns the URL
	added  time.Time      // when it was registered
	timer  *time.Timer    // the delayed registration, while waiting
	dialAt time.Time      // when the delayed registration runs
	static bool           // a static worker has the URL
}

var _ discovery.Sink = (*Fleet)(nil)

// New returns a Fleet over o.Engine.
func New(o Options) (*Fleet, error) {
	if o.Engine == nil {
		return nil, fmt.Errorf("fleet: an engine is required: %w", ErrBadOptions)
	}
	f := &Fleet{eng: o.Engine, tmpl: o.Worker, backoff: discovery.NewBackoff(o.Backoff), flap: o.FlapWindow,
		log: o.Logger, now: o.Now, owned: map[string]*entry{}}
	if f.flap <= 0 {
		f.flap = DefaultFlapWindow
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if f.now == nil {
		f.now = time.Now
	}
	return f, nil
}

// Attach names the discovery provider feeding the Fleet and how to read
// its state (for health details and metrics). Call it once, before the
// provider runs.
func (f *Fleet) Attach(source string, status func() discovery.Status) {
	f.mu.Lock()
	f.source, f.status = source, status
	f.mu.Unlock()
}

// AddWorker registers w now, or when its URL's backoff allows.
func (f *Fleet) AddWorker(w discovery.Worker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if old := f.owned[w.URL]; old != nil { // the Tracker removes first; be safe
		f.drop(old)
	}
	e := &entry{w: w}
	f.owned[w.URL] = e
	now := f.now()
	wait := f.backoff.Wait(w.URL, now)
	if wait <= 0 {
		f.register(e)
		return
	}
	e.dialAt = now.Add(wait)
	f.log.Info("discovery: worker registration delayed", "url", w.URL, "pod", w.Pod(),
		"wait", wait.Round(time.Millisecond), "failures", f.backoff.Failures(w.URL, now))
	e.timer = time.AfterFunc(wait, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.closed && f.owned[w.URL] == e && e.timer != nil {
			e.timer = nil
			f.register(e)
		}
	})
}

// RemoveWorker takes w out of the rotation at once.
func (f *Fleet) RemoveWorker(w discovery.Worker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.owned[w.URL]; e != nil {
		f.drop(e)
	}
}

// UpdateWorker re-registers w when its runtime or model changed.
func (f *Fleet) UpdateWorker(w discovery.Worker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.owned[w.URL]
	if e == nil || f.closed {
		return
	}
	old := e.w
	e.w = w
	if e.worker == nil || old.Runtime == w.Runtime && old.Model == w.Model {
		return
	}
	f.log.Info("discovery: worker re-registered", "url", w.URL, "pod", w.Pod(),
		"runtime", string(w.Runtime), "model", w.Model)
	f.retire(e, false)
	f.register(e)
}

// Close stops the registrations still waiting; later Sink calls do
// nothing.
func (f *Fleet) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for _, e := range f.owned {
		if e.timer != nil {
			e.timer.Stop()
			e.timer = nil
		}
	}
}

// register adds e's worker to the engine (f.mu held).
func (f *Fleet) register(e *entry) {
	c := f.tmpl
	c.URL, c.Runtime, c.Model = e.w.URL, string(e.w.Runtime), e.w.Model
	w, err := f.eng.Add(c)
	switch {
	case err == nil:
		e.worker, e.added, e.static = w, f.now(), false
	case errors.Is(err, engine.ErrBadOptions) && f.eng.Has(c.URL):
		e.static = true
		f.log.Warn("discovery: worker URL is also a static worker; the static configuration keeps it",
			"url", c.URL, "pod", e.w.Pod())
	default:
		f.log.Error("discovery: worker not registered", "url", c.URL, "pod", e.w.Pod(), "err", err)
	}
}

// drop forgets e: a waiting registration is cancelled, a registered worker
// removed from the engine (f.mu held).
func (f *Fleet) drop(e *entry) {
	delete(f.owned, e.w.URL)
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	f.retire(e, true)
}

// retire removes e's worker from the engine; with judge, a worker never
// reached or removed soon after its registration counts as a failure of its
// URL (f.mu held).
func (f *Fleet) retire(e *entry, judge bool) {
	w := e.worker
	if w == nil {
		return
	}
	e.worker = nil
	now := f.now()
	if judge && (w.Info() == nil || now.Sub(e.added) < f.flap) {
		wait := f.backoff.Failed(e.w.URL, now)
		f.log.Debug("discovery: worker left soon after it came; its URL waits before its next registration",
			"url", e.w.URL, "pod", e.w.Pod(), "reached", w.Info() != nil, "wait", wait)
	}
	if f.eng.Remove(e.w.URL) && w.InFlight() > 0 {
		f.draining = append(f.draining, w)
	}
}
