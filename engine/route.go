package engine

import (
	"sync/atomic"

	"github.com/mmgate/mmgate/internal/prefixtree"
	"github.com/mmgate/mmgate/internal/routing"
)

// This file answers: what state do the policies keep between requests?

// router is the state of the policies that keep some: cache_aware's prefix
// trees (one per model, forgetting removed workers) and consistent_hash's
// ring over the current workers' URLs.
type router struct {
	cache *routing.CacheAware          // cache_aware; nil otherwise
	ring  atomic.Pointer[routing.Ring] // consistent_hash; nil otherwise
}

func newRouter(o Options) *router {
	r := &router{}
	if o.Policy == PolicyCacheAware {
		c := o.CacheAware
		r.cache = routing.NewCacheAware(routing.CacheAwareOptions{
			Thresholds: routing.Thresholds{Cache: c.Threshold, BalanceAbs: c.BalanceAbs, BalanceRel: c.BalanceRel},
			Tree:       prefixtree.Options{MaxTokens: c.MaxTreeTokens, MaxAge: c.MaxTreeAge},
		})
	}
	return r
}

// workersChanged follows a new worker list: the ring is rebuilt over its
// URLs.
func (r *router) workersChanged(policy string, list []*Worker) {
	if policy != PolicyConsistentHash {
		return
	}
	urls := make([]string, len(list))
	for i, w := range list {
		urls[i] = w.URL()
	}
	r.ring.Store(routing.NewRing(urls))
}

// forget drops what the policies recorded for a removed worker.
func (r *router) forget(url string) {
	if r.cache != nil {
		r.cache.Forget(url)
	}
}

// byKey is consistent_hash's choice among c for key: the first of them
// clockwise from the key on the ring; nil when there is no ring.
func (r *router) byKey(c []*Worker, key string) *Worker {
	ring := r.ring.Load()
	if ring == nil {
		return nil
	}
	byURL := make(map[string]*Worker, len(c))
	for _, w := range c {
		byURL[w.URL()] = w
	}
	url, ok := ring.Find(key, func(u string) bool { return byURL[u] != nil })
	if !ok {
		return nil
	}
	return byURL[url]
}

// byPrompt is cache_aware's choice among c (model's workers) for the
// prompt of in; the chosen worker's tree learns the prompt. It returns nil
// when the prompt cannot be keyed (bad placeholder runs).
func (r *router) byPrompt(e *Engine, model string, c []*Worker, in *Routing) *Worker {
	if r.cache == nil {
		return nil
	}
	ws := make([]routing.Worker, len(c))
	for i, w := range c {
		ws[i] = routing.Worker{URL: w.URL(), Load: int(w.load())}
	}
	d, err := r.cache.Pick(model, ws, promptOf(in))
	if err != nil || d.Index < 0 {
		e.log.Debug("cache_aware: prompt not keyed; least loaded instead", "err", err)
		return nil
	}
	e.log.Debug("cache_aware", "model", model, "worker", d.URL, "reason", string(d.Reason),
		"matched_tokens", d.Matched, "prompt_tokens", d.Tokens)
	return c[d.Index]
}

// promptOf is the prefix-tree form of a routing input: ids, and each
// item's placeholder runs keyed by its content hash.
func promptOf(in *Routing) prefixtree.Prompt {
	p := prefixtree.Prompt{IDs: in.IDs}
	for _, it := range in.Media {
		var h [32]byte
		copy(h[:], it.Hash)
		for _, run := range it.Placeholders {
			p.Media = append(p.Media, prefixtree.Span{Offset: run.Offset, Length: run.Length, Hash: h})
		}
	}
	return p
}
