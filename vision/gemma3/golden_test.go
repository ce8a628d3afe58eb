package gemma3

import (
	"testing"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/planar/planartest"
)

// TestGolden compares every corpus file and synthesized size of
// testdata/golden.json (scripts/golden/gemma3_reference.py) bit for bit, for
// each config variant: pan-and-scan off, on with the processor defaults,
// and on with custom values.
func TestGolden(t *testing.T) {
	g := planartest.Load(t, "testdata/golden.json")
	planartest.Runner{
		Root:    "../..",
		Golden:  g,
		Decoder: planartest.NewDecoder(t),
		Proc: planartest.Procs(t, g, "testdata/gemma3", func(dir string) (*Processor, error) {
			return Load(dir, Options{Workers: 2})
		}),
		Extras: func(t testing.TB, name string, c planartest.Case, p vision.Plan) {
			if c.NumCrops == nil || NumCrops(p) != *c.NumCrops {
				t.Errorf("%s: num_crops %d, want %v", name, NumCrops(p), c.NumCrops)
			}
		},
	}.Run(t)
}
