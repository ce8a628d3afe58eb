package discovery

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"
)

// ErrBadOptions: a TrackerOptions field has an invalid value.
var ErrBadOptions = errors.New("bad options")

// Sink receives the worker set. The gateway implements it; see the package
// documentation for what each call obliges it to do.
type Sink interface {
	// AddWorker: w is usable from now on.
	AddWorker(w Worker)
	// UpdateWorker: a worker already added (same URL and pod UID) changed
	// its other fields.
	UpdateWorker(w Worker)
	// RemoveWorker: w (as last added or updated) must get no new requests.
	RemoveWorker(w Worker)
}

// TrackerOptions configure a Tracker. Sink is required; the zero value of
// every other field means its default.
type TrackerOptions struct {
	Sink Sink
	// Source names the provider in log lines ("kubernetes").
	Source string
	// Logger receives one line per change; nil discards.
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Status is the discovery state for /health/ready details and metrics.
type Status struct {
	// Synced: the provider has seen the whole cluster state once, so the
	// worker set means something. Until then no worker is reported.
	Synced bool `json:"synced"`
	// Workers are the reported workers, sorted by URL.
	Workers []Worker `json:"workers"`
	// Pods counts the matching pods by State (every State is present).
	Pods map[State]int `json:"pods"`
	// Passes counts reconcile passes; LastPass is the last one's time.
	Passes   int       `json:"passes"`
	LastPass time.Time `json:"last_pass"`
	// Errors counts list and watch failures the provider reported;
	// LastError is the latest one's text.
	Errors    int    `json:"errors"`
	LastError string `json:"last_error"`
}

// Tracker holds the reported worker set and turns desired sets into Sink
// calls and log lines.
type Tracker struct {
	sink   Sink
	log    *slog.Logger
	now    func() time.Time
	source string

	mu      sync.Mutex
	current map[string]Worker
	status  Status
}

// NewTracker checks o and returns an empty, unsynced Tracker.
func NewTracker(o TrackerOptions) (*Tracker, error) {
	if o.Sink == nil {
		return nil, fmt.Errorf("discovery: tracker needs a sink: %w", ErrBadOptions)
	}
	t := &Tracker{sink: o.Sink, log: o.Logger, now: o.Now, source: o.Source, current: map[string]Worker{}}
	if t.log == nil {
		t.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if t.now == nil {
		t.now = time.Now
	}
	t.status.Pods = countStates(nil)
	return t, nil
}

// Apply is one reconcile pass over every matching pod: it reports the
// changes between the workers reported so far and the ready pods' workers
// to the Sink (removals, then updates, then additions), logs each, marks
// the Tracker synced and returns the changes.
func (t *Tracker) Apply(pods []PodState) Changes {
	t.mu.Lock()
	defer t.mu.Unlock()
	desired, losers := Desired(pods, t.current)
	for _, w := range losers {
		t.log.Warn("discovery: two ready pods claim one worker URL; ignoring one",
			"source", t.source, "url", w.URL, "ignored_pod", w.Pod(), "ignored_uid", w.PodUID,
			"kept_pod", desired[w.URL].Pod())
	}
	ch := Diff(t.current, desired)
	why := reasons(pods)
	for _, w := range ch.Remove {
		reason, ok := why[w.PodUID]
		if !ok {
			reason = "pod gone"
		}
		if next, ok := desired[w.URL]; ok {
			reason = "replaced by pod " + next.Pod() + " uid " + next.PodUID
		}
		t.log.Info("discovery: worker removed", "source", t.source, "url", w.URL,
			"pod", w.Pod(), "uid", w.PodUID, "reason", reason)
		t.sink.RemoveWorker(w)
	}
	for _, w := range ch.Update {
		t.log.Info("discovery: worker updated", workerAttrs(t.source, w)...)
		t.sink.UpdateWorker(w)
	}
	for _, w := range ch.Add {
		t.log.Info("discovery: worker added", workerAttrs(t.source, w)...)
		t.sink.AddWorker(w)
	}
	t.current = desired
	t.status.Synced = true
	t.status.Pods = countStates(pods)
	t.status.Passes++
	t.status.LastPass = t.now()
	return ch
}

// NoteError records a list or watch failure for Status (the provider keeps
// retrying; the reported set stays as it is).
func (t *Tracker) NoteError(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.status.Errors++
	t.status.LastError = err.Error()
}

// Status returns a copy of the current state.
func (t *Tracker) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.status
	s.Pods = maps.Clone(t.status.Pods)
	s.Workers = slices.SortedFunc(maps.Values(t.current), func(a, b Worker) int {
		return cmp.Compare(a.URL, b.URL)
	})
	if s.Workers == nil {
		s.Workers = []Worker{}
	}
	return s
}

func workerAttrs(source string, w Worker) []any {
	return []any{"source", source, "url", w.URL, "pod", w.Pod(), "uid", w.PodUID,
		"node", w.Node, "runtime", string(w.Runtime), "model", w.Model}
}

// reasons maps each classified pod's UID to why it is not (or no longer)
// a worker; a UID absent from the map belongs to a pod that is gone.
func reasons(pods []PodState) map[string]string {
	why := make(map[string]string, len(pods))
	for _, p := range pods {
		r := string(p.State)
		if p.Reason != "" {
			r += ": " + p.Reason
		}
		why[p.Worker.PodUID] = r
	}
	return why
}

func countStates(pods []PodState) map[State]int {
	n := make(map[State]int, 4)
	for _, s := range States() {
		n[s] = 0
	}
	for _, p := range pods {
		n[p.State]++
	}
	return n
}
