package internvl

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// The goldens come from scripts/golden/internvl_reference.py, which
// re-implements GotOcr2ImageProcessorPil as InternVLProcessor calls it, in
// Pillow 9.4.0 + NumPy 1.24.2, fed by the project's reference loader.
type goldenResult struct {
	Grid       [2]int `json:"grid"`
	Size       [2]int `json:"size"`
	NumPatches int    `json:"num_patches"`
	Shape      []int  `json:"shape"`
	Tokens     int    `json:"tokens"`
	SHA256     string `json:"sha256"`
	SHA256BF16 string `json:"sha256_bfloat16"`
	SHA256F16  string `json:"sha256_float16"`
}

type goldenDoc struct {
	Configs map[string]json.RawMessage `json:"configs"`
	Files   []struct {
		File   string `json:"file"`
		Error  string `json:"error"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		goldenResult
	} `json:"files"`
	Synthetic []struct {
		Config string `json:"config"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		Seed   int    `json:"seed"`
		goldenResult
	} `json:"synthetic"`
}

func loadGolden(t *testing.T) *goldenDoc {
	t.Helper()
	var d goldenDoc
	visiontest.ReadJSON(t, "testdata/golden.json", &d)
	if len(d.Files) == 0 || len(d.Synthetic) == 0 {
		t.Fatal("golden.json has no cases")
	}
	return &d
}

// goldenConfig builds a named configuration of golden.json: the fixture
// folder, or its preprocessor_config.json with the named keys replaced and
// an image_seq_length of 16, as the reference builds it.
func goldenConfig(t *testing.T, doc *goldenDoc, name string) *Config {
	t.Helper()
	cfg, err := LoadConfig("testdata/internvl3")
	if err != nil {
		t.Fatal(err)
	}
	if name == "internvl3" {
		return cfg
	}
	var over map[string]json.RawMessage
	if err := json.Unmarshal(doc.Configs[name], &over); err != nil {
		t.Fatalf("config %s: %v", name, err)
	}
	b, err := os.ReadFile("testdata/internvl3/preprocessor_config.json")
	if err != nil {
		t.Fatal(err)
	}
	var pre map[string]json.RawMessage
	if err := json.Unmarshal(b, &pre); err != nil {
		t.Fatal(err)
	}
	maps.Copy(pre, over)
	merged, err := json.Marshal(pre)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ParseImageConfig(merged); err != nil {
		t.Fatal(err)
	}
	cfg.ImageSeqLength = 16
	return cfg
}

// check plans and processes img with p and compares everything with want.
func check(t *testing.T, p *Processor, img *imaging.RGB, want goldenResult) {
	t.Helper()
	plan, err := p.PlanImage(img.Width, img.Height, vision.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	tw, th := plan.Dims[3], plan.Dims[2]
	got := goldenResult{
		Grid: [2]int{plan.Width / tw, plan.Height / th}, Size: [2]int{plan.Width, plan.Height},
		NumPatches: p.NumPatches(plan), Shape: plan.Shape(), Tokens: plan.Tokens,
	}
	if !p.tiling() {
		got.Grid = [2]int{1, 1}
	}
	if got.Grid != want.Grid || got.Size != want.Size || got.NumPatches != want.NumPatches ||
		got.Tokens != want.Tokens || !slices.Equal(got.Shape, want.Shape) {
		t.Fatalf("plan %+v, want %+v", got, want)
	}
	visiontest.Digests(t, p, img, plan, "internvl", want.SHA256, want.SHA256BF16, want.SHA256F16)
}

// TestGoldenFiles decodes every photo and edge case of the corpora as the
// gateway does and compares the grid, shape, tokens and the float32
// pixel_values digest with the reference.
func TestGoldenFiles(t *testing.T) {
	doc := loadGolden(t)
	p, err := New(goldenConfig(t, doc, "internvl3"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Files {
		t.Run(f.File, func(t *testing.T) {
			if img := visiontest.Decode(t, "../..", f.File, f.Error, f.Width, f.Height); img != nil {
				check(t, p, img, f.goldenResult)
			}
		})
	}
}

// TestGoldenSynthetic covers every tile grid, both sides of every tie
// threshold, exact ties between neighbouring ratios, 1-pixel sides and the
// configuration branches (min_patches, non-square tiles, tiling and
// resizing off, rescale or normalize alone), in every dtype for some.
func TestGoldenSynthetic(t *testing.T) {
	doc := loadGolden(t)
	procs := map[string]*Processor{}
	for name := range doc.Configs {
		p, err := New(goldenConfig(t, doc, name), Options{Workers: 3})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		procs[name] = p
	}
	grids := map[[2]int]bool{}
	for _, s := range doc.Synthetic {
		p := procs[s.Config]
		if p == nil {
			t.Fatalf("unknown config %q", s.Config)
		}
		if s.Config == "internvl3" {
			grids[s.Grid] = true
		}
		img := visiontest.Synth(s.Width, s.Height, s.Seed)
		t.Run(s.Config, func(t *testing.T) { check(t, p, img, s.goldenResult) })
	}
	for _, g := range candidates(1, 12) {
		if !grids[[2]int{g.cols, g.rows}] {
			t.Errorf("no synthetic case reaches grid %v", g)
		}
	}
}

func TestProcessImageRefusesForeignPlans(t *testing.T) {
	p, img, plan := planned(t, 100, 60)
	cases := map[string]func() error{
		"short dst": func() error {
			_, err := p.ProcessImage(context.Background(), img, plan, tensor.Float32, make([]byte, plan.Bytes(tensor.Float32)-1))
			return err
		},
		"other size": func() error {
			_, err := p.ProcessImage(context.Background(), visiontest.Synth(60, 100, 0), plan, tensor.Float32, make([]byte, plan.Bytes(tensor.Float32)))
			return err
		},
		"edited plan": func() error {
			bad := plan
			bad.Views++
			bad.Dims[0]++
			_, err := p.ProcessImage(context.Background(), img, bad, tensor.Float32, make([]byte, bad.Bytes(tensor.Float32)))
			return err
		},
		"int dtype": func() error {
			_, err := p.ProcessImage(context.Background(), img, plan, tensor.Int64, make([]byte, plan.Bytes(tensor.Int64)))
			return err
		},
	}
	for name, f := range cases {
		if err := f(); !errors.Is(err, vision.ErrBadInput) && !errors.Is(err, vision.ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrBadInput or ErrUnsupported", name, err)
		}
	}
}
