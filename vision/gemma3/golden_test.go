package gemma3

import (
	"testing"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// TestGolden compares every corpus file and synthesized size of
// testdata/golden.json (scripts/golden/gemma3_reference.py) bit for bit, for
// each config variant: pan-and-scan off, on with the processor defaults,
// and on with custom values.
func TestGolden(t *testing.T) {
	visiontest.RunGolden(t, "gemma3", ParseConfig, New, func(t testing.TB, name string, c visiontest.Case, p vision.Plan) {
		if c.NumCrops == nil || NumCrops(p) != *c.NumCrops {
			t.Errorf("%s: num_crops %d, want %v", name, NumCrops(p), c.NumCrops)
		}
	})
}
