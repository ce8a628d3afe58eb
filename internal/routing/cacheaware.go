package routing

import (
	"fmt"
	"sync"

	"github.com/mmgate/mmgate/internal/prefixtree"
)

// CacheAwareOptions configure a CacheAware; the zero value means SMG's
// defaults.
type CacheAwareOptions struct {
	Thresholds Thresholds
	Tree       prefixtree.Options
}

// Worker is a candidate for CacheAware.Pick.
type Worker struct {
	URL  string
	Load int // requests in flight
}

// Decision is what CacheAware.Pick chose and why.
type Decision struct {
	Index   int // into the workers given; -1 when there were none
	URL     string
	Reason  Reason
	Matched int // the chosen worker's matched prompt tokens
	Tokens  int // the prompt's tokens
}

// CacheAware is cache_aware's state: a prefix tree per model and the
// routed-request count per worker. It is safe for concurrent use.
type CacheAware struct {
	opts CacheAwareOptions

	mu     sync.Mutex
	trees  map[string]*prefixtree.Tree // by model
	routed map[string]uint64           // by worker URL
}

// NewCacheAware returns an empty CacheAware.
func NewCacheAware(o CacheAwareOptions) *CacheAware {
	return &CacheAware{opts: o, trees: map[string]*prefixtree.Tree{}, routed: map[string]uint64{}}
}

// Pick chooses among workers (the usable workers of model) for prompt by
// CachePick, and the chosen worker's tree learns the prompt, in one atomic
// step per model. Errors: a prompt whose media spans are bad
// (prefixtree.ErrBadPrompt).
func (p *CacheAware) Pick(model string, workers []Worker, prompt prefixtree.Prompt) (Decision, error) {
	keys, err := prefixtree.Keys(prompt)
	if err != nil {
		return Decision{Index: -1}, fmt.Errorf("routing: cache_aware: %w", err)
	}
	d := Decision{Index: -1, Tokens: len(keys)}
	if len(workers) == 0 {
		return d, nil
	}
	p.tree(model).MatchInsert(keys, func(matches, sizes map[string]int) (string, bool) {
		c := make([]Candidate, len(workers))
		p.mu.Lock()
		for i, w := range workers {
			c[i] = Candidate{Load: w.Load, Cached: sizes[w.URL], Routed: p.routed[w.URL], Match: matches[w.URL]}
		}
		p.mu.Unlock()
		d.Index, d.Reason = CachePick(c, len(keys), p.opts.Thresholds)
		d.URL, d.Matched = workers[d.Index].URL, c[d.Index].Match
		return d.URL, true
	})
	p.mu.Lock()
	p.routed[d.URL]++
	p.mu.Unlock()
	return d, nil
}

// Forget drops a removed worker from every model's tree and its count.
func (p *CacheAware) Forget(url string) {
	p.mu.Lock()
	delete(p.routed, url)
	trees := make([]*prefixtree.Tree, 0, len(p.trees))
	for _, t := range p.trees {
		trees = append(trees, t)
	}
	p.mu.Unlock()
	for _, t := range trees {
		t.Forget(url)
	}
}

// Sizes returns the prompt tokens each worker holds in model's tree.
func (p *CacheAware) Sizes(model string) map[string]int {
	return p.tree(model).Sizes()
}

func (p *CacheAware) tree(model string) *prefixtree.Tree {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.trees[model]
	if !ok {
		t = prefixtree.New(p.opts.Tree)
		p.trees[model] = t
	}
	return t
}
