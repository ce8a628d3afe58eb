package preprocess

import (
	"bytes"
	"os"
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
	buf := make([]byte, headBytes+estimateTail)
	// 1600×1200 → 1596×1204: decoded + horizontal-pass rows + resized.
	want := 1600*1200*3 + 1596*1200*3 + 1596*1204*3
	if got := heapEstimate(pp, filepath.Join(photos, "Spring.png"), vision.Overrides{}, buf); got != want {
		t.Errorf("Spring.png: %d, want %d", got, want)
	}
	// A JPEG that streams holds no decoded image; without cgo it does
	// not stream.
	want = 0
	if !media.Exact() {
		want = 2560*1600*3 + 2548*1600*3 + 2548*1596*3
	}
	if got := heapEstimate(pp, filepath.Join(photos, "Garden.jpg"), vision.Overrides{}, buf); got != want {
		t.Errorf("Garden.jpg: %d, want %d", got, want)
	}
	// Past the head read whole, a JPEG's end decides: with its EOI it
	// streams, cut short it does not.
	if media.Exact() {
		big := padJPEG(t, filepath.Join(photos, "Garden.jpg"), headBytes+estimateTail)
		dir := t.TempDir()
		whole, cut := filepath.Join(dir, "whole.jpg"), filepath.Join(dir, "cut.jpg")
		if err := os.WriteFile(whole, big, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cut, big[:len(big)-estimateTail/2], 0o600); err != nil {
			t.Fatal(err)
		}
		if got := heapEstimate(pp, whole, vision.Overrides{}, buf); got != 0 {
			t.Errorf("padded Garden.jpg: %d, want 0", got)
		}
		want = 2560*1600*3 + 2548*1600*3 + 2548*1596*3
		if got := heapEstimate(pp, cut, vision.Overrides{}, buf); got != want {
			t.Errorf("padded Garden.jpg cut short: %d, want %d", got, want)
		}
	}
	// 448×448 needs no resize: the decoded image only.
	if got := heapEstimate(pp, filepath.Join(photos, "synth", "aligned_448x448.png"), vision.Overrides{}, buf); got != 448*448*3 {
		t.Errorf("aligned: %d", got)
	}
	for _, f := range []string{"not_an_image.jpg", "ratio_201x1.png", "missing.png"} {
		if got := heapEstimate(pp, filepath.Join(photos, "synth", f), vision.Overrides{}, buf); got != 0 {
			t.Errorf("%s: %d, want 0", f, got)
		}
	}
	tensormem.WarmHeap(0)
	tensormem.WarmHeap(8 << 20)
}

// padJPEG returns the JPEG file at path with comment segments after its
// SOI marker that make it at least n bytes long.
func padJPEG(t *testing.T, path string, n int) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.Write(data[:2])
	com := bytes.Repeat([]byte{'x'}, 65533)
	for b.Len()+len(data) < n {
		b.Write([]byte{0xff, 0xfe, 0xff, 0xff})
		b.Write(com)
	}
	b.Write(data[2:])
	return b.Bytes()
}
