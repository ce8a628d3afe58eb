// Package planartest runs the golden files of the plane-keeping image
// processors (vision/gemma3, vision/clip, vision/llavanext) in their tests:
// corpus files decoded as the gateway decodes them and synthesized images,
// each compared with the Python reference's shape, token count, sha256 of
// the pixel_values bytes (float32, and bfloat16 / float16 where recorded),
// the prompt text one anchor becomes, and the family's extras.
//
// It is test support: only _test.go files import it.
package planartest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Case is one expected result; the extras are set by the families that
// have them.
type Case struct {
	Variant        string   `json:"variant"`
	Shape          []int    `json:"shape"`
	Tokens         int      `json:"tokens"`
	SHA256         string   `json:"sha256"`
	SHA256BFloat16 string   `json:"sha256_bfloat16"`
	SHA256Float16  string   `json:"sha256_float16"`
	TextSHA256     string   `json:"text_sha256"`
	NumCrops       *int     `json:"num_crops"`
	ImageSizes     [][2]int `json:"image_sizes"`
	Error          string   `json:"error"`
}

// File is a corpus file (a path relative to the repository root) and its
// cases, or the error kind the reference loader gave.
type File struct {
	File          string `json:"file"`
	Error         string `json:"error"`
	Width         int    `json:"width"`
	Height        int    `json:"height"`
	DecodedSHA256 string `json:"decoded_sha256"`
	Cases         []Case `json:"cases"`
}

// Synth is a synthesized image (SynthImage) and its cases.
type Synth struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Seed   int    `json:"seed"`
	Cases  []Case `json:"cases"`
}

// Golden is a reference script's output.
type Golden struct {
	Variants map[string]json.RawMessage `json:"variants"`
	Files    []File                     `json:"files"`
	Synth    []Synth                    `json:"synth"`
}

// Load reads a golden file.
func Load(t testing.TB, path string) *Golden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g Golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Files) == 0 || len(g.Synth) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	return &g
}

// SynthImage is the synthesized image of the references:
// (7x + 13y + 101c + (x·y mod 31) + seed) mod 256.
func SynthImage(w, h, seed int) *imaging.RGB {
	img := imaging.NewRGB(w, h)
	for y := range h {
		row := img.Row(y)
		for x := range w {
			for c := range 3 {
				row[3*x+c] = uint8((x*7 + y*13 + c*101 + (x*y)%31 + seed) % 256)
			}
		}
	}
	return img
}

// Hash is the lower-case hex sha256 of b.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Family is what the runner needs from a processor.
type Family interface {
	vision.Processor
	// Expansion is the anchor's replacement with each pad run written once.
	Expansion(plan vision.Plan) (text string, runs []int)
	// PadToken is the token Expansion writes once per run.
	PadToken() string
}

// Runner compares a family's processors with a golden file.
type Runner struct {
	Root    string                                                 // the repository root, relative to the test
	Proc    func(t testing.TB, variant string) Family              // the processor of a config variant
	Extras  func(t testing.TB, name string, c Case, p vision.Plan) // checks num_crops, image_sizes, …
	Golden  *Golden
	Decoder *media.Decoder
}

// Run checks every file and synthesized case.
func (r Runner) Run(t *testing.T) {
	for _, f := range r.Golden.Files {
		t.Run(f.File, func(t *testing.T) { r.file(t, f) })
	}
	for _, s := range r.Golden.Synth {
		t.Run(fmt.Sprintf("synth_%dx%d", s.Width, s.Height), func(t *testing.T) {
			img := SynthImage(s.Width, s.Height, s.Seed)
			for _, c := range s.Cases {
				r.check(t, img, c)
			}
		})
	}
}

func (r Runner) file(t *testing.T, f File) {
	data, err := os.ReadFile(filepath.Join(r.Root, filepath.FromSlash(f.File)))
	if err != nil {
		t.Fatal(err)
	}
	img, err := r.Decoder.Decode(context.Background(), data)
	if f.Error != "" {
		if err == nil {
			t.Fatalf("decoded, want error kind %q", f.Error)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !img.Exact {
		t.Skipf("%s: the decoder in this build is not Pillow-exact", img.Format)
	}
	if got := Hash(img.RGB.Pix); img.RGB.Width != f.Width || img.RGB.Height != f.Height || got != f.DecodedSHA256 {
		t.Fatalf("decoded %dx%d %s, want %dx%d %s", img.RGB.Width, img.RGB.Height, got, f.Width, f.Height, f.DecodedSHA256)
	}
	for _, c := range f.Cases {
		r.check(t, img.RGB, c)
	}
}

func (r Runner) check(t *testing.T, img *imaging.RGB, c Case) {
	t.Helper()
	p := r.Proc(t, c.Variant)
	plan, err := p.PlanImage(img.Width, img.Height, vision.Overrides{})
	if err != nil {
		t.Errorf("%s: plan: %v", c.Variant, err)
		return
	}
	if !slices.Equal(plan.Shape(), c.Shape) || plan.Tokens != c.Tokens {
		t.Errorf("%s: shape %v tokens %d, want %v %d", c.Variant, plan.Shape(), plan.Tokens, c.Shape, c.Tokens)
		return
	}
	if r.Extras != nil {
		r.Extras(t, c.Variant, c, plan)
	}
	if got := widenHash(p, plan); got != c.TextSHA256 {
		t.Errorf("%s: expansion text sha256 %s, want %s", c.Variant, got, c.TextSHA256)
	}
	for _, d := range []struct {
		dt   tensor.DType
		want string
	}{{tensor.Float32, c.SHA256}, {tensor.BFloat16, c.SHA256BFloat16}, {tensor.Float16, c.SHA256Float16}} {
		if d.want == "" {
			continue
		}
		dst := make([]byte, plan.Bytes(d.dt))
		if _, err := p.ProcessImage(context.Background(), img, plan, d.dt, dst); err != nil {
			t.Errorf("%s %v: %v", c.Variant, d.dt, err)
			continue
		}
		if got := Hash(dst); got != d.want {
			t.Errorf("%s %v: sha256 %s, want %s", c.Variant, d.dt, got, d.want)
		}
	}
}

// widenHash widens every pad of the expansion to its run and hashes the
// text; a pad count that differs from the runs yields a marker that no
// golden holds.
func widenHash(p Family, plan vision.Plan) string {
	text, runs := p.Expansion(plan)
	pad := p.PadToken()
	parts := strings.Split(text, pad)
	if len(parts) != len(runs)+1 {
		return fmt.Sprintf("%d pads for %d runs", len(parts)-1, len(runs))
	}
	var b strings.Builder
	for i, part := range parts {
		b.WriteString(part)
		if i < len(runs) {
			b.WriteString(strings.Repeat(pad, runs[i]))
		}
	}
	return Hash([]byte(b.String()))
}

// VariantDir copies the model folder src into a temporary directory with
// the variant's overrides merged into preprocessor_config.json, as the
// reference scripts apply them, and returns the directory.
func VariantDir(t testing.TB, src string, overrides json.RawMessage) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "preprocessor_config.json" && len(overrides) > 0 {
			var m, o map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(overrides, &o); err != nil {
				t.Fatal(err)
			}
			for k, v := range o {
				m[k] = v
			}
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Procs builds one processor per variant of g with load, from the model
// folder src, and returns the lookup a Runner takes.
func Procs[P Family](t testing.TB, g *Golden, src string, load func(dir string) (P, error)) func(testing.TB, string) Family {
	t.Helper()
	procs := map[string]Family{}
	for name, ov := range g.Variants {
		p, err := load(VariantDir(t, src, ov))
		if err != nil {
			t.Fatalf("variant %s: %v", name, err)
		}
		procs[name] = p
	}
	return func(t testing.TB, variant string) Family {
		p, ok := procs[variant]
		if !ok {
			t.Fatalf("unknown variant %q", variant)
		}
		return p
	}
}

// NewDecoder is the gateway's decoder with its defaults.
func NewDecoder(t testing.TB) *media.Decoder {
	t.Helper()
	d, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
