package routing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/mmgate/mmgate/internal/prefixtree"
)

// conversation builds the prompts of a multi-turn chat about one image, as
// a Qwen-VL chat template lays them out: a shared system prompt, the user
// turn with the image's pad tokens, then alternating replies and questions.
type conversation struct {
	ids   []uint32
	media []prefixtree.Span
}

const padID = 151655

func newConversation(n int) *conversation {
	c := &conversation{}
	for i := range 21 { // system prompt, identical for all conversations
		c.ids = append(c.ids, uint32(100+i))
	}
	var h [32]byte
	h[0], h[1] = byte(n), 0xAB
	c.media = append(c.media, prefixtree.Span{Offset: len(c.ids), Length: 300, Hash: h})
	for range 300 {
		c.ids = append(c.ids, padID)
	}
	c.say(n, 12) // "What is in this picture?"
	return c
}

// say appends k tokens of text (distinct per conversation and length).
func (c *conversation) say(n, k int) {
	for i := range k {
		c.ids = append(c.ids, uint32(1000+n*97+len(c.ids)+i))
	}
}

func (c *conversation) prompt() prefixtree.Prompt {
	return prefixtree.Prompt{IDs: append([]uint32(nil), c.ids...), Media: c.media}
}

// TestEightImageConversations: with two workers, every follow-up turn of
// eight image conversations lands on the worker that served the
// conversation's first turn, and both workers get conversations, with the
// turns interleaved and some requests in flight.
func TestEightImageConversations(t *testing.T) {
	p := NewCacheAware(CacheAwareOptions{})
	workers := []Worker{{URL: "grpc://127.0.0.2:50051"}, {URL: "grpc://127.0.0.3:50051"}}
	rng := rand.New(rand.NewPCG(8, 8))
	convs := make([]*conversation, 8)
	first := make([]string, 8)
	perWorker := map[string]int{}
	for turn := range 4 {
		for _, n := range rng.Perm(8) {
			if turn == 0 {
				convs[n] = newConversation(n)
			}
			for i := range workers { // a few requests in flight, well balanced
				workers[i].Load = rng.IntN(4)
			}
			d, err := p.Pick("qwen3-vl", workers, convs[n].prompt())
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case turn == 0:
				first[n] = d.URL
				perWorker[d.URL]++
				if d.Reason != ReasonMiss {
					t.Fatalf("conversation %d first turn: %+v", n, d)
				}
			case d.URL != first[n] || d.Reason != ReasonHit:
				t.Fatalf("conversation %d turn %d went to %s (%s), first turn to %s", n, turn, d.URL, d.Reason, first[n])
			}
			convs[n].say(n, 40) // the reply
			convs[n].say(n, 15) // the next question
		}
	}
	if len(perWorker) != 2 {
		t.Fatalf("conversations per worker: %v", perWorker)
	}
	sizes := p.Sizes("qwen3-vl")
	if sizes[workers[0].URL] == 0 || sizes[workers[1].URL] == 0 {
		t.Fatalf("tree sizes %v", sizes)
	}
	// A worker that leaves is forgotten; its conversations move on.
	p.Forget(workers[0].URL)
	if s := p.Sizes("qwen3-vl"); s[workers[0].URL] != 0 {
		t.Fatalf("forgotten worker still holds %d tokens", s[workers[0].URL])
	}
}

// TestNewConversationsAlternate: with equal loads, first turns alternate
// between the workers (the routed-request tie-break).
func TestNewConversationsAlternate(t *testing.T) {
	p := NewCacheAware(CacheAwareOptions{})
	workers := []Worker{{URL: "a"}, {URL: "b"}}
	got := ""
	for n := range 8 {
		d, _ := p.Pick("m", workers, newConversation(n).prompt())
		got += d.URL
	}
	if got != "abababab" {
		t.Fatalf("first turns went to %s", got)
	}
}

// TestImageIdentity: a second conversation about the same image reuses
// the worker holding it; one about another image of the same size does not
// count as a match.
func TestImageIdentity(t *testing.T) {
	p := NewCacheAware(CacheAwareOptions{})
	workers := []Worker{{URL: "a"}, {URL: "b"}}
	c0 := newConversation(0)
	d0, _ := p.Pick("m", workers, c0.prompt())
	same := newConversation(0) // same image, same question
	if d, _ := p.Pick("m", workers, same.prompt()); d.URL != d0.URL || d.Reason != ReasonHit {
		t.Fatalf("same image: %+v, first %+v", d, d0)
	}
	other := newConversation(1)
	keys, _ := prefixtree.Keys(other.prompt())
	if m := p.tree("m").Match(keys); m[d0.URL] != 16 {
		t.Fatalf("another image matched %v: only the system prompt's first page may", m)
	}
	if d, _ := p.Pick("m", workers, other.prompt()); d.Reason != ReasonMiss {
		t.Fatalf("another image: %+v", d)
	}
}

func TestCacheAwareEdges(t *testing.T) {
	p := NewCacheAware(CacheAwareOptions{})
	if d, err := p.Pick("m", nil, newConversation(0).prompt()); err != nil || d.Index != -1 {
		t.Fatalf("no workers: %+v %v", d, err)
	}
	bad := prefixtree.Prompt{IDs: []uint32{1}, Media: []prefixtree.Span{{Offset: 0, Length: 2}}}
	if _, err := p.Pick("m", []Worker{{URL: "a"}}, bad); !errors.Is(err, prefixtree.ErrBadPrompt) {
		t.Fatalf("bad prompt: %v", err)
	}
	// Imbalance overrides a match.
	ws := []Worker{{URL: "a"}, {URL: "b"}}
	c := newConversation(3)
	d, _ := p.Pick("m", ws, c.prompt())
	ws[d.Index].Load = 100
	if d2, _ := p.Pick("m", ws, c.prompt()); d2.URL == d.URL || d2.Reason != ReasonImbalanced {
		t.Fatalf("imbalanced: %+v after %+v", d2, d)
	}
	// Models have separate trees.
	if d3, _ := p.Pick("other-model", []Worker{{URL: "a"}, {URL: "b"}}, c.prompt()); d3.Reason != ReasonMiss {
		t.Fatalf("other model matched: %+v", d3)
	}
}

func TestCacheAwareConcurrent(t *testing.T) {
	p := NewCacheAware(CacheAwareOptions{Tree: prefixtree.Options{MaxTokens: 4096}})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			ws := []Worker{{URL: "a"}, {URL: "b"}, {URL: "c"}}
			for i := range 200 {
				c := newConversation(rng.IntN(5))
				c.say(i, rng.IntN(40))
				for j := range ws {
					ws[j].Load = rng.IntN(50)
				}
				if _, err := p.Pick(fmt.Sprint("m", rng.IntN(2)), ws, c.prompt()); err != nil {
					t.Error(err)
					return
				}
				if rng.IntN(20) == 0 {
					p.Forget(ws[rng.IntN(3)].URL)
				}
			}
		})
	}
	wg.Wait()
}
