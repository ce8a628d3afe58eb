package clip

import (
	"testing"

	"github.com/mmgate/mmgate/vision/planar/planartest"
)

// TestGolden compares every corpus file and synthesized size of
// testdata/golden.json (scripts/golden/clip_reference.py) bit for bit, for
// each config variant: LLaVA-1.5's, a crop larger than the resized image
// (center_crop's padding), and an exact resize without a crop.
func TestGolden(t *testing.T) {
	g := planartest.Load(t, "testdata/golden.json")
	planartest.Runner{
		Root:    "../..",
		Golden:  g,
		Decoder: planartest.NewDecoder(t),
		Proc: planartest.Procs(t, g, "testdata/llava-1.5", func(dir string) (*Processor, error) {
			return Load(dir, Options{Workers: 2})
		}),
	}.Run(t)
}
