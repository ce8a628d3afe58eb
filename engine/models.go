package engine

import (
	"cmp"
	"slices"
	"sync"

	"github.com/mmgate/mmgate/engine/protocol"
)

// This file answers: which models does the gateway serve, and which does
// it remember when no worker serves them at the moment?

// Model is one served model name and what its workers report.
type Model struct {
	Name string
	// Info is the info of one of its workers (a healthy one when there is
	// one; the last one seen when none serves it now).
	Info *protocol.Info
	// Workers serve the model (reached at least once); Healthy are in the
	// rotation. Both are 0 for a model remembered while no worker serves it.
	Workers, Healthy int
}

// memory holds the served model names the engine answers for: configured
// ones (Options.Models, with no info until a worker reports them) and every
// name a worker reported, with the latest info seen. Names are never
// forgotten: a model whose last worker left is still served, by no worker
// for now.
type memory struct {
	mu    sync.Mutex
	names map[string]*protocol.Info
}

func newMemory(names []string) *memory {
	m := &memory{names: make(map[string]*protocol.Info, len(names))}
	for _, n := range names {
		if n != "" {
			m.names[n] = nil
		}
	}
	return m
}

// see records a worker's latest info under its served name.
func (m *memory) see(info *protocol.Info) {
	m.mu.Lock()
	m.names[info.Name()] = info
	m.mu.Unlock()
}

// knows reports whether model is served.
func (m *memory) knows(model string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.names[model]
	return ok
}

// seen returns the remembered models with an info, sorted by name.
func (m *memory) seen() []Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Model, 0, len(m.names))
	for n, info := range m.names {
		if info != nil {
			out = append(out, Model{Name: n, Info: info})
		}
	}
	return out
}

// Models lists the served models, sorted by name: those of the workers
// reached at least once, and those remembered from workers seen before
// (with no worker now). A name configured in Options.Models that no worker
// has reported yet is not listed (nothing is known about it), but Serves
// reports it.
func (e *Engine) Models() []Model {
	byName := map[string]*Model{}
	for _, w := range e.list() {
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
	for _, m := range e.known.seen() {
		if byName[m.Name] == nil {
			byName[m.Name] = &m
		}
	}
	out := make([]Model, 0, len(byName))
	for _, m := range byName {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b Model) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Serves reports whether model is a served model name: one a worker
// serves or served before, or one of Options.Models. A request for it with
// no healthy worker is ErrNoWorker (503), not ErrModelNotFound (404).
func (e *Engine) Serves(model string) bool {
	if e.known.knows(model) {
		return true
	}
	for _, w := range e.list() {
		if info := w.Info(); info != nil && info.Name() == model {
			return true
		}
	}
	return false
}

// Ready reports whether any worker is healthy.
func (e *Engine) Ready() bool {
	for _, w := range e.list() {
		if w.Healthy() {
			return true
		}
	}
	return false
}
