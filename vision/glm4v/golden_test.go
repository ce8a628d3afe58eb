package glm4v

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// The goldens come from scripts/golden/glm4v_reference.py (Pillow 9.4.0 +
// NumPy 1.24.2 re-implementing Glm4vImageProcessorPil, the video sampling of
// Glm4vVideoProcessor and the prompt of Glm4vProcessor; FFmpeg 5.1 frames
// for the real clips).
type goldenImage struct {
	Error   string   `json:"error"`
	Size    [2]int   `json:"size"`
	GridTHW [3]int64 `json:"grid_thw"`
	Tokens  int      `json:"tokens"`
	Shape   []int    `json:"shape"`
	SHA256  string   `json:"sha256"`
}

type goldenVideo struct {
	Frames       int                   `json:"frames"`
	FPS          float64               `json:"fps"`
	Width        int                   `json:"width"`
	Height       int                   `json:"height"`
	Override     vision.VideoOverrides `json:"-"`
	RawOverride  map[string]float64    `json:"override"`
	SampleFrames *bool                 `json:"do_sample_frames"`
	File         string                `json:"file"`
	Indices      []int                 `json:"indices"`
	Seconds      []int                 `json:"seconds"`
	Prompt       string                `json:"prompt"`
	Runs         []int                 `json:"runs"`
	goldenImage
}

type goldenDoc struct {
	Overrides map[string]map[string]int `json:"image_overrides"`
	Configs   map[string]json.RawMessage
	Files     []struct {
		File   string `json:"file"`
		Error  string `json:"error"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		Cases  []struct {
			Override string `json:"override"`
			goldenImage
		} `json:"cases"`
	} `json:"files"`
	Synthetic []struct {
		Config string `json:"config"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		Seed   int    `json:"seed"`
		goldenImage
	} `json:"synthetic"`
	Videos []goldenVideo `json:"videos"`
	Clips  []goldenVideo `json:"clips"`
}

func loadGolden(t *testing.T) *goldenDoc {
	t.Helper()
	var d goldenDoc
	visiontest.ReadJSON(t, "testdata/golden.json", &d)
	if len(d.Files) == 0 || len(d.Synthetic) == 0 || len(d.Videos) == 0 || len(d.Clips) == 0 {
		t.Fatal("golden.json lacks cases")
	}
	for _, vs := range [][]goldenVideo{d.Videos, d.Clips} {
		for i := range vs {
			o := vs[i].RawOverride
			vs[i].Override = vision.VideoOverrides{FPS: o["fps"], MinPixels: int(o["min_pixels"]), MaxPixels: int(o["max_pixels"])}
		}
	}
	return &d
}

// refused reports whether planning failed as the reference did (kind
// wantErr); it fails the test on any other outcome than success.
func refused(t *testing.T, err error, wantErr string) bool {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Fatal(err)
	case wantErr != "" && (err == nil || errorKind(err) != wantErr):
		t.Fatalf("err %v; want error %q", err, wantErr)
	}
	return wantErr != ""
}

// errorKind maps a planning error to the reference's kind.
func errorKind(err error) string {
	switch {
	case errors.Is(err, vision.ErrAspectRatio):
		return "aspect_ratio"
	case errors.Is(err, vision.ErrTooSmall):
		return "frames"
	case errors.Is(err, vision.ErrUnsupported):
		return "fps"
	}
	return err.Error()
}

func fixtureConfig(t testing.TB) *Config {
	t.Helper()
	c, err := LoadConfig("testdata/glm-4.1v")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func loadFixture(t testing.TB, o Options) *Processor {
	t.Helper()
	p, err := Load("testdata/glm-4.1v", o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkImage plans and processes img and compares with want.
func checkImage(t *testing.T, p *Processor, img *imaging.RGB, o vision.Overrides, want goldenImage) {
	t.Helper()
	plan, err := p.PlanImage(img.Width, img.Height, o)
	if refused(t, err, want.Error) {
		return
	}
	if [2]int{plan.Width, plan.Height} != want.Size || plan.GridTHW() != want.GridTHW ||
		plan.Tokens != want.Tokens || !slices.Equal(plan.Shape(), want.Shape) {
		t.Fatalf("plan %+v, want %+v", plan, want)
	}
	if pr := p.ImagePrompt(plan); pr.Text != p.ImageAnchor() || len(pr.Runs) != 1 || pr.Runs[0] != want.Tokens {
		t.Errorf("prompt %+v", pr)
	}
	checkDigest(t, plan.Bytes(tensor.Float32), want.SHA256, func(dst []byte) error {
		_, err := p.ProcessImage(context.Background(), img, plan, tensor.Float32, dst)
		return err
	})
}

// checkDigest runs process on an n-byte buffer and compares its sha256.
func checkDigest(t *testing.T, n int, want string, process func(dst []byte) error) {
	t.Helper()
	dst := make([]byte, n)
	if err := process(dst); err != nil {
		t.Fatal(err)
	}
	if h := visiontest.SHA256(dst); h != want {
		t.Errorf("sha256 %s, want %s", h, want)
	}
}

// TestGoldenFiles: every photo and edge case of the corpora, decoded as the
// gateway does, with the fixture's bounds and two overrides.
func TestGoldenFiles(t *testing.T) {
	doc := loadGolden(t)
	p := loadFixture(t, Options{})
	for _, f := range doc.Files {
		t.Run(f.File, func(t *testing.T) {
			img := visiontest.Decode(t, "../..", f.File, f.Error, f.Width, f.Height)
			if img == nil {
				return
			}
			for _, c := range f.Cases {
				o := doc.Overrides[c.Override]
				ov := vision.Overrides{MinPixels: o["min_pixels"], MaxPixels: o["max_pixels"]}
				t.Run(c.Override, func(t *testing.T) { checkImage(t, p, img, ov, c.goldenImage) })
			}
		})
	}
}

// TestGoldenSynthetic: every smart_resize branch (sides under the factor,
// truncation after scaling, ratio 200 and over, ties rounding to even,
// growing and shrinking) on synthesized images.
func TestGoldenSynthetic(t *testing.T) {
	doc := loadGolden(t)
	procs := map[string]*Processor{"glm-4.1v": loadFixture(t, Options{Options: qwenvl.Options{Workers: 2}})}
	small := fixtureConfig(t)
	small.Image.MinPixels, small.Image.MaxPixels = 3136, 100352
	p, err := New(small, Options{Options: qwenvl.Options{Workers: 3}})
	if err != nil {
		t.Fatal(err)
	}
	procs["bounds_small"] = p
	for _, s := range doc.Synthetic {
		p := procs[s.Config]
		if p == nil {
			t.Fatalf("unknown config %q", s.Config)
		}
		t.Run(s.Config, func(t *testing.T) {
			checkImage(t, p, visiontest.Synth(s.Width, s.Height, s.Seed), vision.Overrides{}, s.goldenImage)
		})
	}
}

// checkVideo plans a video, gets its sampled frames from frame and compares
// the plan, the prompt and pixel_values_videos with want.
func checkVideo(t *testing.T, p *Processor, want goldenVideo, frames func(idx []int) []*imaging.RGB) {
	t.Helper()
	info := vision.VideoInfo{Width: want.Width, Height: want.Height, Frames: want.Frames, FPS: want.FPS}
	plan, err := p.PlanVideo(info, want.Override)
	if refused(t, err, want.Error) {
		return
	}
	if !slices.Equal(plan.Indices, want.Indices) || [2]int{plan.Width, plan.Height} != want.Size ||
		plan.GridTHW() != want.GridTHW || plan.Tokens != want.Tokens || !slices.Equal(plan.Shape(), want.Shape) {
		t.Fatalf("plan %+v (indices %v), want %+v", plan.Plan, plan.Indices, want)
	}
	if s := GroupSeconds(plan.Indices, plan.SourceFPS, plan.GridT); !slices.Equal(s, want.Seconds) {
		t.Errorf("seconds %v, want %v", s, want.Seconds)
	}
	pr := p.VideoPrompt(plan)
	if pr.Text != want.Prompt || !slices.Equal(pr.Runs, want.Runs) || pr.Pad != "<|image|>" {
		t.Errorf("prompt %q runs %v, want %q %v", pr.Text, pr.Runs, want.Prompt, want.Runs)
	}
	checkDigest(t, plan.Bytes(tensor.Float32), want.SHA256, func(dst []byte) error {
		_, err := p.ProcessVideo(context.Background(), frames(plan.Indices), plan, tensor.Float32, dst)
		return err
	})
}

// TestGoldenVideos: synthesized clips whose frame k is visiontest.Synth(w, h, k):
// short and long (the 300 s linspace branch) durations, odd counts, too few
// frames, fps overrides, bounds overrides and do_sample_frames off.
func TestGoldenVideos(t *testing.T) {
	doc := loadGolden(t)
	p := loadFixture(t, Options{})
	all := fixtureConfig(t)
	all.SampleFrames = false
	pAll, err := New(all, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range doc.Videos {
		proc := p
		if v.SampleFrames != nil && !*v.SampleFrames {
			proc = pAll
		}
		t.Run("", func(t *testing.T) {
			checkVideo(t, proc, v, func(idx []int) []*imaging.RGB {
				out := make([]*imaging.RGB, len(idx))
				for k, i := range idx {
					out[k] = visiontest.Synth(v.Width, v.Height, i)
				}
				return out
			})
		})
	}
}
