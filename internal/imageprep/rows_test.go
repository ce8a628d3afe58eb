package imageprep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

func newStreamingPreprocessors(t *testing.T) map[string]*Preprocessor {
	t.Helper()
	d, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	preps := map[string]*Preprocessor{}
	for _, preset := range []string{"qwen2.5-vl", "qwen3-vl"} {
		proc, err := qwenvl.Load(preset)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(Options{Decoder: StreamingDecoder(d), Processor: proc})
		if err != nil {
			t.Fatal(err)
		}
		preps[preset] = p
	}
	return preps
}

// The streaming path gives the reference's pixel_values and refusals for
// every golden file and override that streams, and refuses the files the
// reference refuses.
func TestGoldenStreaming(t *testing.T) {
	doc := loadGolden(t)
	preps := newStreamingPreprocessors(t)
	ctx := context.Background()
	streamed, sunk := 0, 0
	for _, gf := range doc.Files {
		data, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(gf.File)))
		if err != nil {
			t.Fatal(err)
		}
		if gf.Error != "" {
			if _, err := preps["qwen2.5-vl"].Image(ctx, Request{Data: data}); StageOf(err) != StageDecode {
				t.Errorf("%s: err %v, want a decode-stage error", gf.File, err)
			}
			continue
		}
		for _, gc := range gf.Cases {
			ov := doc.RawOver[gc.Override]
			o := vision.Overrides{MinPixels: ov["min_pixels"], MaxPixels: ov["max_pixels"]}
			p := preps[gc.Preset]
			if !p.Streams(data, o) {
				continue // the whole-image path, which TestGolden covers
			}
			streamed++
			res, err := p.Image(ctx, Request{Data: data, Overrides: o, DType: tensor.Float32})
			name := gf.File + " " + gc.Preset + "/" + gc.Override
			if !caseSucceeded(t, name, gc.Error, err) {
				continue
			}
			if !res.Exact {
				continue
			}
			if got := hexSum(res.Data); got != gc.SHA256 {
				t.Errorf("%s: pixel_values sha256 %s, want %s", name, got, gc.SHA256)
			}
			if gc.Override != "default" {
				continue // one budget through a Sink is enough: the bytes are the same
			}
			sunk++
			sum := sha256.New()
			res, err = p.Image(ctx, Request{Data: data, Overrides: o, DType: tensor.Float32, Sink: sinkTo(sum)})
			if err != nil || res.Data != nil {
				t.Errorf("%s with a Sink: err %v, Data held: %v", name, err, res != nil && res.Data != nil)
				continue
			}
			if got := hex.EncodeToString(sum.Sum(nil)); got != gc.SHA256 {
				t.Errorf("%s: streamed pixel_values sha256 %s, want %s", name, got, gc.SHA256)
			}
		}
	}
	if (streamed == 0 || sunk == 0) && media.Exact() {
		t.Errorf("%d golden cases streamed, %d of them to a Sink", streamed, sunk)
	}
}

// A JPEG that fails after its rows start coming out (a frame header in the
// middle of its scan, which Pillow refuses) is refused at the decode stage
// by both paths, with the same error, and the streamed tensor comes back
// for the caller to release.
func TestStreamingCorruptRows(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "media", "testdata", "corpus", "jpeg_sof_in_scan.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	p := newStreamingPreprocessors(t)["qwen2.5-vl"]
	if !p.Streams(data, vision.Overrides{}) {
		t.Skip("this build does not stream JPEG rows")
	}
	ctx := context.Background()
	_, werr := newGoldenPreprocessor(t).Image(ctx, Request{Data: data})
	res, err := p.Image(ctx, Request{Data: data})
	if werr == nil || StageOf(werr) != StageDecode {
		t.Fatalf("whole-image path: err = %v, want a decode-stage error", werr)
	}
	if StageOf(err) != StageDecode || err.Error() != werr.Error() {
		t.Errorf("err = %v, want the whole-image path's %v", err, werr)
	}
	if !errors.Is(err, media.ErrCorrupt) {
		t.Errorf("err = %v, want media.ErrCorrupt", err)
	}
	if res == nil || res.Data == nil {
		t.Error("no Result to release the tensor of")
	}
}

// sinkTo is a Request.Sink that writes every tensor to w.
func sinkTo(w io.Writer) func(vision.Plan, tensor.DType) (io.Writer, error) {
	return func(vision.Plan, tensor.DType) (io.Writer, error) { return w, nil }
}

// failingWriter refuses every write.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// A Sink that fails, or whose writer does, fails the image at the process
// stage with its error; a corrupt file streamed to a Sink is refused as
// without one. The Sink sees the plan and dtype the Result reports.
func TestStreamingSink(t *testing.T) {
	p := newStreamingPreprocessors(t)["qwen2.5-vl"]
	ctx := context.Background()
	img, err := os.ReadFile(filepath.Join("..", "..", "media", "testdata", "corpus", "jpeg_420.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Streams(img, vision.Overrides{}) {
		t.Skip("this build does not stream JPEG rows")
	}
	var gotPlan vision.Plan
	var gotDT tensor.DType
	var n countWriter
	res, err := p.Image(ctx, Request{Data: img, DType: tensor.BFloat16, Sink: func(pl vision.Plan, dt tensor.DType) (io.Writer, error) {
		gotPlan, gotDT = pl, dt
		return &n, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if gotPlan != res.Plan || gotDT != tensor.BFloat16 || int(n) != res.Plan.Bytes(tensor.BFloat16) || res.Data != nil {
		t.Errorf("Sink saw %v %v and took %d bytes; Result %v, %d bytes held", gotPlan, gotDT, n, res.Plan, len(res.Data))
	}
	boom := errors.New("boom")
	_, err = p.Image(ctx, Request{Data: img, Sink: func(vision.Plan, tensor.DType) (io.Writer, error) { return nil, boom }})
	if StageOf(err) != StageProcess || !errors.Is(err, boom) {
		t.Errorf("failing Sink: err = %v, want a process-stage error wrapping it", err)
	}
	_, err = p.Image(ctx, Request{Data: img, Sink: sinkTo(failingWriter{boom})})
	if StageOf(err) != StageProcess || !errors.Is(err, boom) {
		t.Errorf("failing writer: err = %v, want a process-stage error wrapping it", err)
	}
	corrupt, err := os.ReadFile(filepath.Join("..", "..", "media", "testdata", "corpus", "jpeg_sof_in_scan.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	res, err = p.Image(ctx, Request{Data: corrupt, Sink: sinkTo(io.Discard)})
	if StageOf(err) != StageDecode || !errors.Is(err, media.ErrCorrupt) || res == nil || res.Data != nil {
		t.Errorf("corrupt file with a Sink: err = %v, want a decode-stage media.ErrCorrupt and a Result holding nothing", err)
	}
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(b []byte) (int, error) {
	*c += countWriter(len(b))
	return len(b), nil
}

func newGoldenPreprocessor(t *testing.T) *Preprocessor {
	t.Helper()
	proc, err := qwenvl.Load("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Decoder: newGoldenDecoder(t), Processor: proc})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
