package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/routing"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: which worker takes a request?

// Routing is what a policy may read about a request besides its model and
// modalities. A nil *Routing, or a field left empty, means that part is not
// known: a policy that needs it chooses as least_loaded does.
type Routing struct {
	// IDs are the prompt's token ids, media placeholders expanded
	// (cache_aware).
	IDs []uint32
	// Media are the prompt's items: cache_aware keys the positions of each
	// item's Placeholders by its content Hash, so that two different images
	// never share a prefix (nothing else of an item is read).
	Media []protocol.MediaItem
	// Key is consistent_hash's key: a session header's value, else the
	// first user message's text.
	Key string
}

// Pick chooses a healthy worker serving model that can take a request
// carrying the modalities in need (each once), by the policy; r is what
// the policy may read about the request (nil: nothing). Errors:
// ErrModelNotFound (no worker reached so far serves it and it is not a
// served model name; when some workers were never reached, ErrNoWorker
// instead, as the model may be theirs), ErrModality (no worker of the
// model takes need: a modality it lacks, or several modalities its
// protocol cannot carry in one request), ErrNoWorker (none of its capable
// workers is healthy, or none serves the model at the moment).
func (e *Engine) Pick(model string, need []vision.Modality, r *Routing) (*Worker, error) {
	cands, err := e.candidates(model, need)
	if err != nil {
		return nil, err
	}
	return e.choose(model, cands, r), nil
}

// Candidates are the healthy workers of model that can take a request
// carrying the modalities in need: the workers Pick chooses from, for a
// caller that plans for them before picking (their encoder dtypes and
// routes). It fails as Pick does when there is none.
func (e *Engine) Candidates(model string, need []vision.Modality) ([]*Worker, error) {
	return e.candidates(model, need)
}

// candidates are the healthy workers of model that take need.
func (e *Engine) candidates(model string, need []vision.Modality) ([]*Worker, error) {
	var known, capable, unknown int
	var healthy []*Worker
	var takes []string // what the model's workers take, for the refusal
	for _, w := range e.list() {
		w.mu.RLock()
		info, ok, caps := w.info, w.healthy, w.caps
		w.mu.RUnlock()
		if info == nil {
			unknown++
			continue
		}
		if info.Name() != model {
			continue
		}
		known++
		if !caps.Takes(need) {
			if d := describeTakes(w.Runtime(), caps); !slices.Contains(takes, d) {
				takes = append(takes, d)
			}
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
	case known == 0 && e.known.knows(model):
		return nil, fmt.Errorf("engine: model %q: no worker serves it at the moment: %w", model, ErrNoWorker)
	case known == 0:
		return nil, fmt.Errorf("engine: model %q: %w", model, ErrModelNotFound)
	case capable == 0:
		return nil, fmt.Errorf("engine: model %q: no worker takes %v%s (%s): %w", model, need, mixNote(need), strings.Join(takes, "; "), ErrModality)
	case len(healthy) == 0:
		return nil, fmt.Errorf("engine: model %q: %d workers, none healthy: %w", model, known, ErrNoWorker)
	}
	return healthy, nil
}

// describeTakes says what a worker of that runtime and capabilities takes.
func describeTakes(runtime string, c protocol.Capabilities) string {
	if runtime == "" {
		runtime = "a worker"
	}
	if len(c.Modalities) == 0 {
		return runtime + ": text only"
	}
	s := fmt.Sprintf("%s: %v", runtime, c.Modalities)
	if !c.MixModalities && len(c.Modalities) > 1 {
		s += ", one modality per request"
	}
	return s
}

// mixNote explains a refusal of several modalities.
func mixNote(need []vision.Modality) string {
	if len(need) > 1 {
		return " (in one request)"
	}
	return ""
}

// choose applies the policy to a non-empty candidate list of model's
// workers.
func (e *Engine) choose(model string, c []*Worker, r *Routing) *Worker {
	switch e.opts.Policy {
	case PolicyRoundRobin:
		return c[int(e.rr.Add(1)-1)%len(c)]
	case PolicyPowerOfTwo:
		loads := make([]int, len(c))
		for i, w := range c {
			loads[i] = int(w.load())
		}
		return c[powerOfTwo(loads)]
	case PolicyConsistentHash:
		if r != nil && r.Key != "" {
			if w := e.route.byKey(c, r.Key); w != nil {
				return w
			}
		}
	case PolicyCacheAware:
		if r != nil && len(r.IDs) > 0 {
			if w := e.route.byPrompt(e, model, c, r); w != nil {
				return w
			}
		}
	}
	return e.leastLoaded(c)
}

// leastLoaded takes the smallest load, ties broken by rotation.
func (e *Engine) leastLoaded(c []*Worker) *Worker {
	start := int(e.rr.Add(1)-1) % len(c)
	best, bestLoad := c[start], c[start].load()
	for k := 1; k < len(c); k++ {
		w := c[(start+k)%len(c)]
		if l := w.load(); l < bestLoad {
			best, bestLoad = w, l
		}
	}
	return best
}

// powerOfTwo is power_of_two's draw over loads (math/rand/v2's generator
// is safe for concurrent use).
func powerOfTwo(loads []int) int { return routing.PowerOfTwo(loads, rand.IntN) }
