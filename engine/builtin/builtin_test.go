package builtin

import (
	"slices"
	"testing"
)

// TestOrder pins the detection order: a change is a decision to make on
// purpose (see the package documentation).
func TestOrder(t *testing.T) {
	var names []string
	for _, p := range Protocols() {
		names = append(names, p.Name())
	}
	if !slices.Equal(names, []string{"tokenspeed", "vllm", "sglang"}) {
		t.Errorf("protocols %v", names)
	}
}
