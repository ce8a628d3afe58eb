package preprocess

import (
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/tensormem"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

var photos = filepath.Join("..", "..", "testdata", "photos")

func TestHeapEstimate(t *testing.T) {
	proc, err := qwenvl.Load("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := newImageDecoder(&[3]uint8{255, 255, 255})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := imageprep.New(imageprep.Options{Decoder: dec, Processor: proc})
	if err != nil {
		t.Fatal(err)
	}
	// 1600×1200 → 1596×1204: decoded + horizontal-pass rows + resized.
	want := 1600*1200*3 + 1596*1200*3 + 1596*1204*3
	if got := heapEstimate(pp, filepath.Join(photos, "Spring.png"), vision.Overrides{}); got != want {
		t.Errorf("Spring.png: %d, want %d", got, want)
	}
	// A JPEG that streams holds no decoded image; without cgo it does
	// not stream.
	want = 0
	if !media.Exact() {
		want = 2560*1600*3 + 2548*1600*3 + 2548*1596*3
	}
	if got := heapEstimate(pp, filepath.Join(photos, "Garden.jpg"), vision.Overrides{}); got != want {
		t.Errorf("Garden.jpg: %d, want %d", got, want)
	}
	// 448×448 needs no resize: the decoded image only.
	if got := heapEstimate(pp, filepath.Join(photos, "synth", "aligned_448x448.png"), vision.Overrides{}); got != 448*448*3 {
		t.Errorf("aligned: %d", got)
	}
	for _, f := range []string{"not_an_image.jpg", "ratio_201x1.png", "missing.png"} {
		if got := heapEstimate(pp, filepath.Join(photos, "synth", f), vision.Overrides{}); got != 0 {
			t.Errorf("%s: %d, want 0", f, got)
		}
	}
	tensormem.WarmHeap(0)
	tensormem.WarmHeap(8 << 20)
}
