package fleet

import (
	"cmp"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/discovery"
)

// Worker states, as mmgate_workers{state} and the health details name
// them.
const (
	StateHealthy    = "healthy"    // in the rotation
	StateConnecting = "connecting" // registered, never reached yet
	StateUnhealthy  = "unhealthy"  // reached before, failing now
	StateWaiting    = "waiting"    // discovered, registration delayed by backoff
	StateDraining   = "draining"   // removed, requests in flight finishing
	StateStatic     = "static"     // discovered on a static worker's URL
)

// WorkerStates lists the states of mmgate_workers, in a fixed order.
func WorkerStates() []string {
	return []string{StateHealthy, StateConnecting, StateUnhealthy, StateWaiting, StateDraining}
}

// WorkerStatus is one discovered worker in the health details.
type WorkerStatus struct {
	discovery.Worker
	State string `json:"state"`
	// DialInMS is how long a waiting worker still waits (0 otherwise).
	DialInMS int64 `json:"dial_in_ms"`
}

// Details is the "discovery" section of /health and /health/ready.
type Details struct {
	Source string `json:"source"`
	discovery.Status
	// Workers are the discovered workers with their state (this field
	// replaces Status.Workers in JSON).
	Workers []WorkerStatus `json:"workers"`
}

// Details returns the discovery state, or nil when no provider is
// attached.
func (f *Fleet) Details() *Details {
	f.mu.Lock()
	source, status := f.source, f.status
	now := f.now()
	ws := make([]WorkerStatus, 0, len(f.owned))
	for _, e := range f.owned {
		ws = append(ws, WorkerStatus{Worker: e.w, State: e.state(), DialInMS: max(0, e.dialAt.Sub(now).Milliseconds())})
	}
	f.mu.Unlock()
	if status == nil {
		return nil
	}
	slices.SortFunc(ws, func(a, b WorkerStatus) int { return cmp.Compare(a.URL, b.URL) })
	return &Details{Source: source, Status: status(), Workers: ws}
}

func (e *entry) state() string {
	switch {
	case e.static:
		return StateStatic
	case e.worker == nil:
		return StateWaiting
	}
	return workerState(e.worker)
}

func workerState(w *engine.Worker) string {
	switch {
	case w.Healthy():
		return StateHealthy
	case w.Info() == nil:
		return StateConnecting
	}
	return StateUnhealthy
}

// counts are the workers per state: the engine's (static and discovered),
// the waiting ones, and the draining ones (which it prunes when idle).
func (f *Fleet) counts() map[string]int {
	n := make(map[string]int, 5)
	for _, s := range WorkerStates() {
		n[s] = 0
	}
	for _, w := range f.eng.Workers() {
		n[workerState(w)]++
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.owned {
		if !e.static && e.worker == nil {
			n[StateWaiting]++
		}
	}
	f.draining = slices.DeleteFunc(f.draining, func(w *engine.Worker) bool { return w.InFlight() == 0 })
	n[StateDraining] = len(f.draining)
	return n
}

// Collector returns the Fleet's metrics: mmgate_workers{state} always,
// mmgate_discovery_pods{state} and mmgate_discovery_synced once a provider
// is attached. They are computed at each scrape.
func (f *Fleet) Collector() prometheus.Collector { return collector{f} }

var (
	workersDesc = prometheus.NewDesc("mmgate_workers",
		"Workers by state: healthy (in the rotation), connecting (never reached yet), unhealthy (failing), waiting (discovered, registration delayed after failures), draining (removed, requests in flight finishing).",
		[]string{"state"}, nil)
	podsDesc = prometheus.NewDesc("mmgate_discovery_pods",
		"Pods matching the discovery selector, by state (ready, not_ready, terminating, invalid).",
		[]string{"state"}, nil)
	syncedDesc = prometheus.NewDesc("mmgate_discovery_synced",
		"1 once discovery has listed the cluster's pods, else 0.", nil, nil)
	errorsDesc = prometheus.NewDesc("mmgate_discovery_errors_total",
		"Failed lists and watches of pods (discovery retries them).", nil, nil)
)

type collector struct{ f *Fleet }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- workersDesc
	ch <- podsDesc
	ch <- syncedDesc
	ch <- errorsDesc
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for state, n := range c.f.counts() {
		ch <- prometheus.MustNewConstMetric(workersDesc, prometheus.GaugeValue, float64(n), state)
	}
	c.f.mu.Lock()
	status := c.f.status
	c.f.mu.Unlock()
	if status == nil {
		return
	}
	st := status()
	for state, n := range st.Pods {
		ch <- prometheus.MustNewConstMetric(podsDesc, prometheus.GaugeValue, float64(n), string(state))
	}
	synced := 0.0
	if st.Synced {
		synced = 1
	}
	ch <- prometheus.MustNewConstMetric(syncedDesc, prometheus.GaugeValue, synced)
	ch <- prometheus.MustNewConstMetric(errorsDesc, prometheus.CounterValue, float64(st.Errors))
}
