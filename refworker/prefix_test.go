package refworker

import (
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/prefixtree"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// cachedReq sends a prompt of text ids around one image (grid 1×8×8: 16
// pads after `before` text tokens, then `after` text tokens) whose pixels
// are filled from fill, and returns the cached tokens reported.
func (e *env) cachedReq(t *testing.T, before, after int, fill byte) (prompt, cached int) {
	t.Helper()
	var ids []uint32
	for i := range before {
		ids = append(ids, uint32(2000+i))
	}
	off := len(ids)
	for range 16 {
		ids = append(ids, 151655)
	}
	for i := range after {
		ids = append(ids, uint32(3000+i))
	}
	it, _ := e.imageItem(t, 8, 8, tensor.Float32, shm.ModeInline, fill)
	it.Placeholders = []*schedulerpb.PlaceholderRange{{Offset: uint32(off), Length: 16}}
	res, err := e.generate(t, &schedulerpb.GenerateRequest{RequestId: "c", Stream: true,
		Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
		MmInputs:  &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{it}}})
	if err != nil {
		t.Fatal(err)
	}
	return len(ids), int(res.complete[0].GetCachedTokens())
}

// The worker reports the prompt tokens its recent prompts cover, in whole
// pages, the image's positions keyed by its pixels.
func TestPrefixCache(t *testing.T) {
	e := start(t, nil)
	if _, c := e.cachedReq(t, 40, 10, 1); c != 0 {
		t.Fatalf("first prompt: %d cached", c)
	}
	// The same conversation one turn later: the first prompt's 66 tokens
	// are 4 whole pages.
	if n, c := e.cachedReq(t, 40, 50, 1); c != 64 {
		t.Fatalf("follow-up (%d tokens): %d cached, want 64", n, c)
	}
	// The same prompt again: everything but the last token, in pages.
	if n, c := e.cachedReq(t, 40, 50, 1); c != (n-1)/16*16 {
		t.Fatalf("repeat (%d tokens): %d cached, want %d", n, c, (n-1)/16*16)
	}
	// Another image in the same place: only the 40 text tokens before it
	// match, 2 whole pages.
	if _, c := e.cachedReq(t, 40, 50, 9); c != 32 {
		t.Fatalf("other image: %d cached, want 32", c)
	}
	off := start(t, func(o *Options) { o.PrefixCache = -1 })
	off.cachedReq(t, 40, 10, 1)
	if _, c := off.cachedReq(t, 40, 10, 1); c != 0 {
		t.Fatalf("cache off: %d cached", c)
	}
}

// With a prefill rate, uncached prompt tokens cost time before the first
// token.
func TestPrefillRate(t *testing.T) {
	e := start(t, func(o *Options) { o.PrefillRate = 1000 })
	t0 := time.Now()
	n, _ := e.cachedReq(t, 200, 0, 1)
	if el := time.Since(t0); el < time.Duration(n-16)*time.Millisecond {
		t.Fatalf("%d uncached tokens at 1000/s took %v", n, el)
	}
}

// Only the pad tokens inside a structural range are the item's.
func TestPromptKeys(t *testing.T) {
	pad := uint32(9)
	ids := []uint32{1, 2, 9, 9, 5, 9, 9, 9, 6}
	p := promptKeys(ids, []received{{Fingerprint: "f", ranges: []span{{1, 8}}, pad: &pad}})
	want := [][2]int{{2, 2}, {5, 3}}
	if len(p.Media) != len(want) {
		t.Fatalf("spans %+v", p.Media)
	}
	for i, s := range p.Media {
		if s.Offset != want[i][0] || s.Length != want[i][1] {
			t.Fatalf("span %d = %+v, want %v", i, s, want[i])
		}
	}
	keys, err := prefixtree.Keys(p)
	if err != nil || keys[4] != 5 || keys[2] != keys[7] || keys[2] == 9 {
		t.Fatalf("keys %v, %v", keys, err)
	}
}
