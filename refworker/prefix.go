package refworker

import (
	"context"
	"crypto/sha256"
	"time"

	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/internal/prefixtree"
)

// This file answers: how many of a prompt's tokens would a real worker
// have found in its prefix (KV) cache, and what does computing the others
// cost?

// DefaultPrefixCache is the default of Options.PrefixCache.
const DefaultPrefixCache = 1 << 16

// prefixCache models an engine's prefix cache as vLLM's and SGLang's work:
// the longest beginning a prompt shares with the worker's recent prompts,
// in whole pages of 16 tokens, where the positions of a media item's
// embeddings are keyed by what the worker received for it (the fingerprint
// of its encoder input), so two different images never share a prefix.
// As vLLM does, the last prompt token is always computed (at most
// (len-1)/16 whole pages are cached). The recent prompts are a prefix tree
// bounded to the configured tokens, least recently used first out.
type prefixCache struct {
	tree *prefixtree.Tree
}

// self is the one tenant of the worker's own tree.
const self = "self"

func newPrefixCache(tokens int) *prefixCache {
	switch {
	case tokens < 0:
		return nil
	case tokens == 0:
		tokens = DefaultPrefixCache
	}
	return &prefixCache{tree: prefixtree.New(prefixtree.Options{MaxTokens: tokens})}
}

// lookup returns the prompt tokens held for ids with items, and records
// the prompt. A nil cache holds nothing.
func (c *prefixCache) lookup(ids []uint32, items []received) int {
	if c == nil || len(ids) == 0 {
		return 0
	}
	keys, err := prefixtree.Keys(promptKeys(ids, items))
	if err != nil { // the checks refused overlapping ranges already
		return 0
	}
	matched := 0
	c.tree.MatchInsert(keys, func(m, _ map[string]int) (string, bool) {
		matched = m[self]
		return self, true
	})
	limit := (len(ids) - 1) / prefixtree.PageSize * prefixtree.PageSize
	return min(matched, limit)
}

// promptKeys is the prompt with each item's embedding positions (its pad
// tokens inside its ranges, or the whole ranges without a pad token) keyed
// by the item's fingerprint.
func promptKeys(ids []uint32, items []received) prefixtree.Prompt {
	p := prefixtree.Prompt{IDs: ids}
	for _, it := range items {
		h := sha256.Sum256([]byte(it.Fingerprint))
		for _, r := range it.ranges {
			start := -1
			for k := r.off; k <= r.off+r.n; k++ {
				embed := k < r.off+r.n && (it.pad == nil || ids[k] == *it.pad)
				switch {
				case embed && start < 0:
					start = k
				case !embed && start >= 0:
					p.Media = append(p.Media, prefixtree.Span{Offset: start, Length: k - start, Hash: h})
					start = -1
				}
			}
		}
	}
	return p
}

// prefill waits for the uncached prompt tokens at Options.PrefillRate (no
// wait without one); it ends early, with the context's status, when the
// call is cancelled.
func (s *Server) prefill(ctx context.Context, uncached int) error {
	if s.opts.PrefillRate <= 0 || uncached <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(float64(uncached) / s.opts.PrefillRate * float64(time.Second)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	case <-t.C:
		return nil
	}
}
