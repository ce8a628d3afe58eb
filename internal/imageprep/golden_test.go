package imageprep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// corpusDir holds the photos, synth/ and golden.json (written by
// scripts/golden/reference_preprocess.py --write-golden).
var corpusDir = filepath.Join("..", "..", "testdata", "photos")

type goldenDoc struct {
	Versions map[string]string         `json:"versions"`
	RawOver  map[string]map[string]int `json:"overrides"`
	Files    []goldenFile              `json:"files"`
	// Background cases: transparent files on a non-white background.
	Background []struct {
		File          string   `json:"file"`
		Preset        string   `json:"preset"`
		Background    [3]uint8 `json:"background"`
		DecodedSHA256 string   `json:"decoded_sha256"`
		SHA256        string   `json:"sha256"`
	} `json:"background_cases"`
}

type goldenFile struct {
	File          string       `json:"file"`
	Error         string       `json:"error"`
	Width         int          `json:"width"`
	Height        int          `json:"height"`
	DecodedSHA256 string       `json:"decoded_sha256"`
	Cases         []goldenCase `json:"cases"`
}

type goldenCase struct {
	Preset        string   `json:"preset"`
	Override      string   `json:"override"`
	Error         string   `json:"error"`
	GridTHW       [3]int64 `json:"grid_thw"`
	Tokens        int      `json:"tokens"`
	Shape         []int    `json:"shape"`
	ResizedSHA256 string   `json:"resized_sha256"`
	SHA256        string   `json:"sha256"`
}

func loadGolden(t testing.TB) *goldenDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d goldenDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Files) == 0 || len(d.RawOver) == 0 {
		t.Fatal("golden.json has no cases")
	}
	return &d
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// recordingResizer hashes every image the processor resizes into, so that a
// mismatch can be located at the resize stage rather than only in the
// final tensor.
type recordingResizer struct {
	r    *resample.Resizer
	mu   sync.Mutex
	last string
}

func (rr *recordingResizer) ResizeInto(ctx context.Context, dst, src *imaging.RGB, f resample.Filter) error {
	if err := rr.r.ResizeInto(ctx, dst, src, f); err != nil {
		return err
	}
	rr.mu.Lock()
	rr.last = hexSum(dst.Pix)
	rr.mu.Unlock()
	return nil
}

func (rr *recordingResizer) take() string {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	s := rr.last
	rr.last = ""
	return s
}

// TestGolden runs every case of golden.json through the whole pipeline and
// compares every stage hash bit for bit: decoded RGB, resized RGB and
// pixel_values (float32), plus grid, tokens, shape, and the expected errors.
func TestGolden(t *testing.T) {
	doc := loadGolden(t)
	dec := newGoldenDecoder(t)
	ctx := context.Background()

	rs, err := resample.New(resample.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingResizer{r: rs}
	preps := map[string]*Preprocessor{}
	for _, preset := range []string{"qwen2.5-vl", "qwen3-vl"} {
		proc, err := qwenvl.Load(preset, qwenvl.Options{Resizer: rec})
		if err != nil {
			t.Fatal(err)
		}
		// Concurrency 1: the cases run one after another, so the recorder
		// sees one resize at a time.
		p, err := New(Options{Decoder: dec, Processor: proc, Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		preps[preset] = p
	}

	for _, gf := range doc.Files {
		t.Run(gf.File, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(gf.File)))
			if err != nil {
				t.Fatal(err)
			}
			// Stage S1–S3: decoded RGB.
			d, derr := dec.DecodeRGB(ctx, data)
			if gf.Error != "" {
				if derr == nil {
					t.Fatalf("decoded, want error kind %q", gf.Error)
				}
				// The whole pipeline must refuse it at the decode stage too.
				p := preps["qwen2.5-vl"]
				if _, err := p.Image(ctx, Request{Data: data}); StageOf(err) != StageDecode {
					t.Fatalf("pipeline error %v, want a decode-stage error", err)
				}
				return
			}
			if derr != nil {
				t.Fatalf("decode: %v", derr)
			}
			if d.Release != nil {
				defer d.Release()
			}
			if !d.Exact {
				// Only a build without cgo decodes lossy formats with
				// decoders that say they are not Pillow-exact.
				t.Skipf("%s: the decoder in this build is not Pillow-exact", d.Format)
			}
			decodedSum := hexSum(d.RGB.Pix)
			if d.RGB.Width != gf.Width || d.RGB.Height != gf.Height || decodedSum != gf.DecodedSHA256 {
				t.Errorf("decoded %dx%d sha256 %s, want %dx%d %s (exact=%v)",
					d.RGB.Width, d.RGB.Height, decodedSum, gf.Width, gf.Height, gf.DecodedSHA256, d.Exact)
			}
			d = Decoded{}
			for _, gc := range gf.Cases {
				ov := doc.RawOver[gc.Override]
				o := vision.Overrides{MinPixels: ov["min_pixels"], MaxPixels: ov["max_pixels"]}
				p := preps[gc.Preset]
				if p == nil {
					t.Fatalf("unknown preset %q", gc.Preset)
				}
				rec.take()
				res, err := p.Image(ctx, Request{Data: data, Overrides: o, DType: tensor.Float32})
				name := gc.Preset + "/" + gc.Override
				if !caseSucceeded(t, name, gc.Error, err) {
					continue
				}
				resized := rec.take()
				if resized == "" { // no resize: the resized stage is the decoded image
					resized = decodedSum
				}
				got := goldenCase{
					Preset: gc.Preset, Override: gc.Override,
					GridTHW: res.GridTHW(), Tokens: res.Tokens(), Shape: res.Shape(),
					ResizedSHA256: resized, SHA256: hexSum(res.Data),
				}
				if got.GridTHW != gc.GridTHW || got.Tokens != gc.Tokens || !equalInts(got.Shape, gc.Shape) {
					t.Errorf("%s: grid %v tokens %d shape %v, want %v %d %v", name,
						got.GridTHW, got.Tokens, got.Shape, gc.GridTHW, gc.Tokens, gc.Shape)
					continue
				}
				if got.ResizedSHA256 != gc.ResizedSHA256 {
					t.Errorf("%s: resized RGB %dx%d differs from the reference (sha256 %s, want %s)",
						name, res.Plan.Width, res.Plan.Height, got.ResizedSHA256, gc.ResizedSHA256)
				}
				if got.SHA256 != gc.SHA256 {
					t.Errorf("%s: pixel_values sha256 %s, want %s", name, got.SHA256, gc.SHA256)
				}
			}
		})
	}
}

// caseSucceeded checks a golden case's outcome before its values: an
// error must be of the reference's kind (wantKind), and a case the
// reference accepts must not fail. It reports whether the case succeeded,
// so that the caller goes on to compare its values.
func caseSucceeded(t *testing.T, name, wantKind string, err error) bool {
	t.Helper()
	if wantKind != "" {
		if !matchesKind(err, wantKind) {
			t.Errorf("%s: err = %v, want kind %q", name, err, wantKind)
		}
		return false
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	return true
}

// matchesKind maps the reference's error kinds onto the pipeline's errors.
func matchesKind(err error, kind string) bool {
	switch kind {
	case "decode":
		return StageOf(err) == StageDecode
	case "aspect_ratio":
		return StageOf(err) == StagePlan && errors.Is(err, vision.ErrAspectRatio)
	case "size":
		return StageOf(err) == StagePlan && errors.Is(err, vision.ErrTooSmall)
	}
	return false
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Planning from the headers alone gives the plan of the decoded image, for
// every golden case (the prompt is built from such plans before decoding).
func TestGoldenPlanFromHeaders(t *testing.T) {
	doc := loadGolden(t)
	dec := newGoldenDecoder(t)
	preps := map[string]*Preprocessor{}
	for _, preset := range []string{"qwen2.5-vl", "qwen3-vl"} {
		proc, err := qwenvl.Load(preset)
		if err != nil {
			t.Fatal(err)
		}
		if preps[preset], err = New(Options{Decoder: dec, Processor: proc}); err != nil {
			t.Fatal(err)
		}
	}
	for _, gf := range doc.Files {
		data, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(gf.File)))
		if err != nil {
			t.Fatal(err)
		}
		for _, gc := range gf.Cases {
			ov := doc.RawOver[gc.Override]
			plan, err := preps[gc.Preset].Plan(data, vision.Overrides{MinPixels: ov["min_pixels"], MaxPixels: ov["max_pixels"]})
			name := gf.File + " " + gc.Preset + "/" + gc.Override
			if !caseSucceeded(t, name, gc.Error, err) {
				continue
			}
			if plan.GridTHW() != gc.GridTHW || plan.Tokens != gc.Tokens || !equalInts(plan.Shape(), gc.Shape) {
				t.Errorf("%s: planned grid %v tokens %d shape %v, want %v %d %v", name,
					plan.GridTHW(), plan.Tokens, plan.Shape(), gc.GridTHW, gc.Tokens, gc.Shape)
			}
		}
	}
}

// Transparent images composited on a non-white background.
func TestGoldenBackground(t *testing.T) {
	doc := loadGolden(t)
	if len(doc.Background) == 0 {
		t.Fatal("golden.json has no background cases")
	}
	ctx := context.Background()
	for _, bc := range doc.Background {
		bg := bc.Background
		d, err := media.New(media.Options{Background: &bg})
		if err != nil {
			t.Fatal(err)
		}
		proc, err := qwenvl.Load(bc.Preset)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(Options{Decoder: MediaDecoder(d), Processor: proc})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(bc.File)))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := p.dec.DecodeRGB(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if !dec.Exact {
			// Only a build without cgo decodes lossy formats with decoders
			// that say they are not Pillow-exact.
			t.Logf("%s: skipped, the %s decoder in this build is not Pillow-exact", bc.File, dec.Format)
			continue
		}
		if got := hexSum(dec.RGB.Pix); got != bc.DecodedSHA256 {
			t.Errorf("%s on %v: decoded sha256 %s, want %s", bc.File, bg, got, bc.DecodedSHA256)
		}
		res, err := p.Image(ctx, Request{Data: data})
		if err != nil {
			t.Fatal(err)
		}
		if got := hexSum(res.Data); got != bc.SHA256 {
			t.Errorf("%s on %v: pixel_values sha256 %s, want %s", bc.File, bg, got, bc.SHA256)
		}
	}
}
