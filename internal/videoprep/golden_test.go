package videoprep

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// clipDir holds the synthesized test clips (scripts/golden/video_reference.py
// --make-videos).
const clipDir = "../../media/video/testdata"

type goldenCase struct {
	Model           string    `json:"model"`
	Override        string    `json:"override"`
	Error           string    `json:"error"`
	Indices         []int     `json:"indices"`
	Size            []int     `json:"size"`
	FirstSize       []int     `json:"first_size"`
	GridTHW         []int64   `json:"grid_thw"`
	Tokens          int       `json:"tokens"`
	Shape           []int     `json:"shape"`
	Timestamps      []float64 `json:"timestamps"`
	SecondPerGridTS *float64  `json:"second_per_grid_ts"`
	SampleFPS       *float64  `json:"sample_fps"`
	SHA256          string    `json:"sha256"`
}

type goldenFile struct {
	File   string       `json:"file"`
	Width  int          `json:"width"`
	Height int          `json:"height"`
	Frames int          `json:"frames"`
	FPS    float64      `json:"fps"`
	Cases  []goldenCase `json:"cases"`
}

type goldenDoc struct {
	Overrides map[string]struct {
		FPS         float64 `json:"fps"`
		NumFrames   int     `json:"num_frames"`
		MinPixels   int     `json:"min_pixels"`
		MaxPixels   int     `json:"max_pixels"`
		TotalPixels float64 `json:"total_pixels"`
	} `json:"overrides"`
	Files []goldenFile `json:"files"`
}

func needFFmpeg(t testing.TB) {
	t.Helper()
	for _, b := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed (Debian package ffmpeg): video tests skipped", b)
		}
	}
}

func loadGolden(t *testing.T) goldenDoc {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc goldenDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func newPre(t testing.TB, model string) *Preprocessor {
	t.Helper()
	proc, err := qwenvl.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := video.New(video.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Frames run on idle-priority threads, as in the gateway by default.
	pool, err := cpupool.New(cpupool.Options{Idle: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	pp, err := New(Options{Decoder: dec, Processor: proc, Run: pool.Run})
	if err != nil {
		t.Fatal(err)
	}
	return pp
}

// TestGolden runs every clip × model × override of testdata/golden.json
// through the whole pipeline and compares everything, the pixel_values hash
// included, exactly.
func TestGolden(t *testing.T) {
	needFFmpeg(t)
	doc := loadGolden(t)
	pre := map[string]*Preprocessor{"qwen2.5-vl": newPre(t, "qwen2.5-vl"), "qwen3-vl": newPre(t, "qwen3-vl")}
	for _, f := range doc.Files {
		data, err := os.ReadFile(filepath.Join(clipDir, f.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range f.Cases {
			t.Run(f.File+"/"+c.Model+"/"+c.Override, func(t *testing.T) {
				t.Parallel() // the time goes mostly to starting FFmpeg
				pp := pre[c.Model]
				if pp == nil {
					t.Fatalf("no preprocessor for %s", c.Model)
				}
				o := doc.Overrides[c.Override]
				ov := vision.VideoOverrides{FPS: o.FPS, NumFrames: o.NumFrames, MinPixels: o.MinPixels, MaxPixels: o.MaxPixels, TotalPixels: o.TotalPixels}
				res, err := pp.Video(context.Background(), Request{Data: data, Overrides: ov})
				if c.Error != "" {
					if err == nil {
						t.Fatalf("want error %q, got none", c.Error)
					}
					if StageOf(err) != StagePlan || !errors.Is(err, vision.ErrTooSmall) {
						t.Fatalf("want a plan-stage ErrTooSmall, got %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Info.Width != f.Width || res.Info.Height != f.Height || res.Info.Frames != f.Frames || res.Info.FPS != f.FPS {
					t.Errorf("info %+v, want %dx%d %d frames @ %v", res.Info, f.Width, f.Height, f.Frames, f.FPS)
				}
				p := res.Plan
				if !slices.Equal(p.Indices, c.Indices) {
					t.Errorf("indices %v, want %v", p.Indices, c.Indices)
				}
				if p.Width != c.Size[0] || p.Height != c.Size[1] {
					t.Errorf("size %dx%d, want %v", p.Width, p.Height, c.Size)
				}
				first := []int{p.FirstWidth, p.FirstHeight}
				if c.FirstSize == nil {
					c.FirstSize = []int{0, 0}
				}
				if !slices.Equal(first, c.FirstSize) {
					t.Errorf("first size %v, want %v", first, c.FirstSize)
				}
				g := res.GridTHW()
				if !slices.Equal(g[:], c.GridTHW) || res.Tokens() != c.Tokens || !slices.Equal(res.Shape(), c.Shape) {
					t.Errorf("grid %v tokens %d shape %v, want %v %d %v", g, res.Tokens(), res.Shape(), c.GridTHW, c.Tokens, c.Shape)
				}
				if !slices.Equal(p.Timestamps, c.Timestamps) {
					t.Errorf("timestamps %v, want %v", p.Timestamps, c.Timestamps)
				}
				if c.SecondPerGridTS != nil && p.SecondPerGridTS != *c.SecondPerGridTS || c.SecondPerGridTS == nil && p.SecondPerGridTS != 0 {
					t.Errorf("second_per_grid_ts %v, want %v", p.SecondPerGridTS, c.SecondPerGridTS)
				}
				if c.SampleFPS != nil && p.SampleFPS != *c.SampleFPS {
					t.Errorf("sample fps %v, want %v", p.SampleFPS, *c.SampleFPS)
				}
				sum := sha256.Sum256(res.Data)
				if got := hex.EncodeToString(sum[:]); got != c.SHA256 {
					t.Errorf("pixel_values sha256 %s, want %s", got, c.SHA256)
				}
			})
		}
	}
}

// TestDTypes checks that bfloat16 and float16 outputs are the float32
// output converted element by element.
func TestDTypes(t *testing.T) {
	needFFmpeg(t)
	data, err := os.ReadFile(filepath.Join(clipDir, "vp9.webm"))
	if err != nil {
		t.Fatal(err)
	}
	pp := newPre(t, "qwen3-vl")
	ctx := context.Background()
	f32, err := pp.Video(ctx, Request{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []tensor.DType{tensor.BFloat16, tensor.Float16} {
		r, err := pp.Video(ctx, Request{Data: data, DType: dt})
		if err != nil {
			t.Fatal(err)
		}
		n := len(f32.Data) / 4
		if len(r.Data) != 2*n {
			t.Fatalf("%v: %d bytes, want %d", dt, len(r.Data), 2*n)
		}
		for i := range n {
			v := math.Float32frombits(binary.LittleEndian.Uint32(f32.Data[4*i:]))
			var want uint16
			if dt == tensor.BFloat16 {
				want = tensor.BFloat16FromFloat32(v)
			} else {
				want = tensor.Float16FromFloat32(v)
			}
			if got := uint16(r.Data[2*i]) | uint16(r.Data[2*i+1])<<8; got != want {
				t.Fatalf("%v element %d: %#04x, want %#04x", dt, i, got, want)
			}
		}
	}
}

// TestProbedPlan: a call given the stream Plan probed (Request.Probed)
// decodes once and writes the reference bytes, for the first case of every
// clip.
func TestProbedPlan(t *testing.T) {
	needFFmpeg(t)
	doc := loadGolden(t)
	pre := map[string]*Preprocessor{"qwen2.5-vl": newPre(t, "qwen2.5-vl"), "qwen3-vl": newPre(t, "qwen3-vl")}
	for _, f := range doc.Files {
		c := f.Cases[0]
		if c.Error != "" {
			continue
		}
		t.Run(f.File, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(clipDir, f.File))
			if err != nil {
				t.Fatal(err)
			}
			o := doc.Overrides[c.Override]
			ov := vision.VideoOverrides{FPS: o.FPS, NumFrames: o.NumFrames, MinPixels: o.MinPixels, MaxPixels: o.MaxPixels, TotalPixels: o.TotalPixels}
			pp := pre[c.Model]
			info, plan, err := pp.Plan(context.Background(), data, ov)
			if err != nil {
				t.Fatal(err)
			}
			res, err := pp.Video(context.Background(), Request{Data: data, Overrides: ov, Probed: &info})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Plan.Indices, plan.Indices) || res.Plan.Plan != plan.Plan {
				t.Errorf("plan %+v, probed plan %+v", res.Plan.Plan, plan.Plan)
			}
			sum := sha256.Sum256(res.Data)
			if got := hex.EncodeToString(sum[:]); got != c.SHA256 {
				t.Errorf("pixel_values sha256 %s, want %s", got, c.SHA256)
			}
		})
	}
}
