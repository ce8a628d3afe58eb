package pipeline

import (
	"fmt"
	"testing"

	"github.com/mmgate/mmgate/vision"
)

func TestTensorCache(t *testing.T) {
	c := newTensorCache(100, nil)
	val := func(n int) cached { return cached{plan: vision.Plan{Rows: n}, data: make([]byte, n)} }
	if c.admit("a") {
		t.Fatal("admitted on first sight")
	}
	if !c.admit("a") {
		t.Fatal("not admitted on second sight")
	}
	c.put("a", val(40))
	c.put("b", val(40))
	if _, ok := c.get("a"); !ok {
		t.Fatal("a missing")
	}
	c.put("c", val(40)) // evicts b, the least recently used
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	if got, ok := c.get("a"); !ok || got.plan.Rows != 40 {
		t.Error("a evicted")
	}
	if used, n := c.usage(); used != 80 || n != 2 {
		t.Errorf("usage %d bytes %d entries", used, n)
	}
	if c.put("huge", val(101)) {
		t.Error("stored an entry over the whole budget")
	}
	// The record of keys seen once is bounded.
	for i := 0; i < seenKeys+10; i++ {
		c.admit(fmt.Sprint(i))
	}
	if len(c.seen) > seenKeys || len(c.order) > seenKeys {
		t.Errorf("seen grew to %d", len(c.seen))
	}
	var off *tensorCache
	if off.admit("x") || off.put("x", val(1)) {
		t.Error("nil cache stored")
	}
}
