package clip

import (
	"testing"

	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// TestGolden compares every corpus file and synthesized size of
// testdata/golden.json (scripts/golden/clip_reference.py) bit for bit, for
// each config variant: LLaVA-1.5's, a crop larger than the resized image
// (center_crop's padding), and an exact resize without a crop.
func TestGolden(t *testing.T) {
	visiontest.RunGolden(t, "llava-1.5", ParseConfig, New, nil)
}
