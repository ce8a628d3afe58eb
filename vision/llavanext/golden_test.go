package llavanext

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// TestGolden compares every corpus file and synthesized size of
// testdata/golden.json (scripts/golden/llavanext_reference.py) bit for bit,
// for LLaVA-NeXT's config and for pinpoints that are not multiples of the
// tile (edge tiles resized and cropped by the CLIP steps).
func TestGolden(t *testing.T) {
	visiontest.RunGolden(t, "llava-next", ParseConfig, New, func(t testing.TB, name string, c visiontest.Case, p vision.Plan) {
		if len(c.ImageSizes) != 1 || ImageSizes(p) != c.ImageSizes[0] {
			t.Errorf("%s: image_sizes %v, want %v", name, ImageSizes(p), c.ImageSizes)
		}
	})
}

// Round7 equals Python's int(round(x, 7)) on the reference's values.
func TestRound7Golden(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Round7 [][2]float64 `json:"round7"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Round7) == 0 {
		t.Fatal("no round7 cases")
	}
	for _, c := range g.Round7 {
		if got := Round7(c[0]); float64(got) != c[1] {
			t.Errorf("Round7(%v) = %d, want %v", c[0], got, c[1])
		}
	}
}
