package visiontest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/mmgate/mmgate/vision/hfconfig"
	"github.com/mmgate/mmgate/vision/planar"
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

// SynthCase is a synthesized image (Synth) and its cases.
type SynthCase struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Seed   int    `json:"seed"`
	Cases  []Case `json:"cases"`
}

// Golden is a reference script's output.
type Golden struct {
	Variants map[string]json.RawMessage `json:"variants"`
	Files    []File                     `json:"files"`
	Synth    []SynthCase                `json:"synth"`
}

// Load reads a golden file.
func Load(t testing.TB, path string) *Golden {
	t.Helper()
	var g Golden
	ReadJSON(t, path, &g)
	if len(g.Files) == 0 || len(g.Synth) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	return &g
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
			img := Synth(s.Width, s.Height, s.Seed)
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
	if got := SHA256(img.RGB.Pix); img.RGB.Width != f.Width || img.RGB.Height != f.Height || got != f.DecodedSHA256 {
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
	if got := widenSHA256(p, plan); got != c.TextSHA256 {
		t.Errorf("%s: expansion text sha256 %s, want %s", c.Variant, got, c.TextSHA256)
	}
	Digests(t, p, img, plan, c.Variant, c.SHA256, c.SHA256BFloat16, c.SHA256Float16)
}

// Digests processes img with plan in float32, bfloat16 and float16 and
// compares each output's sha256 with the wanted digest (an empty one skips
// that dtype); name prefixes the messages.
func Digests(t testing.TB, p vision.Processor, img *imaging.RGB, plan vision.Plan, name, f32, bf16, f16 string) {
	t.Helper()
	for _, d := range []struct {
		dt   tensor.DType
		want string
	}{{tensor.Float32, f32}, {tensor.BFloat16, bf16}, {tensor.Float16, f16}} {
		if d.want == "" {
			continue
		}
		dst := make([]byte, plan.Bytes(d.dt))
		if _, err := p.ProcessImage(context.Background(), img, plan, d.dt, dst); err != nil {
			t.Errorf("%s %v: %v", name, d.dt, err)
			continue
		}
		if got := SHA256(dst); got != d.want {
			t.Errorf("%s %v: sha256 %s, want %s", name, d.dt, got, d.want)
		}
	}
}

// widenHash widens every pad of the expansion to its run and hashes the
// text; a pad count that differs from the runs yields a marker that no
// golden holds.
func widenSHA256(p Family, plan vision.Plan) string {
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
	return SHA256([]byte(b.String()))
}

// Patch returns the JSON object data with the keys of kv set (a nil value
// deletes the key).
func Patch(t testing.TB, data []byte, kv map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range kv {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Fixture reads a model folder's files.
func Fixture(t testing.TB, dir string) hfconfig.Files {
	t.Helper()
	f, err := hfconfig.ReadFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// RunGolden runs the golden file testdata/golden.json of the package under
// test. Each config variant's processor is build(parse(files)) with the
// files of testdata/<model> and the variant's overrides merged into
// preprocessor_config.json, as the reference scripts apply them; extras,
// when not nil, checks the family's extra outputs.
func RunGolden[C any, P Family](t *testing.T, model string, parse func(hfconfig.Files) (C, error),
	build func(C, planar.Options) (P, error), extras func(t testing.TB, name string, c Case, p vision.Plan)) {
	g := Load(t, "testdata/golden.json")
	base := Fixture(t, filepath.Join("testdata", model))
	procs := map[string]Family{}
	for name, ov := range g.Variants {
		var kv map[string]any
		if err := json.Unmarshal(ov, &kv); err != nil {
			t.Fatal(err)
		}
		f := base
		f.Preprocessor = Patch(t, base.Preprocessor, kv)
		cfg, err := parse(f)
		if err != nil {
			t.Fatalf("variant %s: %v", name, err)
		}
		if procs[name], err = build(cfg, planar.Options{Workers: 2}); err != nil {
			t.Fatalf("variant %s: %v", name, err)
		}
	}
	Runner{
		Root:    filepath.Join("..", ".."),
		Golden:  g,
		Decoder: NewDecoder(t),
		Extras:  extras,
		Proc: func(t testing.TB, variant string) Family {
			p, ok := procs[variant]
			if !ok {
				t.Fatalf("unknown variant %q", variant)
			}
			return p
		},
	}.Run(t)
}

// FuzzPlan is the body of the processors' plan fuzz targets: p and newErr
// come from the family's New on fuzzed settings. New and PlanImage must
// refuse with typed errors only (planErrs for PlanImage); an accepted plan
// must satisfy valid and, for small images, ProcessImage must write every
// byte of it in dtype dt (WritesAll).
func FuzzPlan(t *testing.T, p vision.Processor, newErr error, w, h int, dt tensor.DType,
	valid func(vision.Plan) bool, planErrs ...error) {
	t.Helper()
	if newErr != nil {
		RequireKind(t, newErr, vision.ErrBadOptions, vision.ErrUnsupported)
		return
	}
	plan, err := p.PlanImage(w, h, vision.Overrides{})
	if err != nil {
		RequireKind(t, err, planErrs...)
		return
	}
	if !valid(plan) || plan.Views < 1 || plan.Elements()*dt.Size() != plan.Bytes(dt) {
		t.Fatalf("PlanImage(%d, %d): bad plan %+v", w, h, plan)
	}
	if w > 1<<12 || h > 1<<12 || w*h > 1<<12 || plan.Elements() > 1<<20 {
		return
	}
	WritesAll(t, p, Synth(w, h, w^h), plan, dt)
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

// RequireKind fails the test unless err wraps one of kinds.
func RequireKind(t testing.TB, err error, kinds ...error) {
	t.Helper()
	for _, k := range kinds {
		if errors.Is(err, k) {
			return
		}
	}
	t.Fatalf("error %v wraps none of %v", err, kinds)
}

// WritesAll processes img twice, into destinations prefilled with 0x00 and
// 0xff, and fails unless both calls succeed and give the same bytes: every
// byte of the plan's shape times the dtype size is written.
func WritesAll(t testing.TB, p vision.Processor, img *imaging.RGB, plan vision.Plan, dt tensor.DType) {
	t.Helper()
	a := make([]byte, plan.Bytes(dt))
	b := make([]byte, len(a))
	for i := range b {
		b[i] = 0xff
	}
	for _, dst := range [][]byte{a, b} {
		if _, err := p.ProcessImage(context.Background(), img, plan, dt, dst); err != nil {
			t.Fatalf("process %dx%d: %v", img.Width, img.Height, err)
		}
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("%dx%d: not every byte of the plan was written", img.Width, img.Height)
	}
}

// NewErrors checks a family's constructors: negative Options, a nil
// config and an empty folder are refused, the first two with
// vision.ErrBadOptions.
func NewErrors[C any, P any](t *testing.T, cfg C, build func(C, planar.Options) (P, error), load func(string, planar.Options) (P, error)) {
	t.Helper()
	for _, o := range []planar.Options{{Workers: -1}, {PixelLimit: -1}} {
		if _, err := build(cfg, o); !errors.Is(err, vision.ErrBadOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	var zero C
	if _, err := build(zero, planar.Options{}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("nil config: %v", err)
	}
	if _, err := load(t.TempDir(), planar.Options{}); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("empty folder: %v", err)
	}
}

// SameForWorkers processes img with the processors build returns for 1
// and 4 workers and fails unless both write the same bytes.
func SameForWorkers(t *testing.T, build func(workers int) vision.Processor, img *imaging.RGB, dt tensor.DType) {
	t.Helper()
	var outs [][]byte
	for _, w := range []int{1, 4} {
		p := build(w)
		plan, err := p.PlanImage(img.Width, img.Height, vision.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, plan.Bytes(dt))
		if _, err := p.ProcessImage(context.Background(), img, plan, dt, dst); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, dst)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("the number of workers changes the output")
	}
}

// Bench times p.ProcessImage on img, planned with no overrides, into a
// reused destination of dtype dt; SetBytes is the pixel_values size.
func Bench(b *testing.B, p vision.Processor, img *imaging.RGB, dt tensor.DType) {
	b.Helper()
	plan, err := p.PlanImage(img.Width, img.Height, vision.Overrides{})
	if err != nil {
		b.Fatal(err)
	}
	BenchPlan(b, p, img, plan, dt)
}

// BenchPlan times p.ProcessImage of img with plan into a reused destination
// of dtype dt.
func BenchPlan(b *testing.B, p vision.Processor, img *imaging.RGB, plan vision.Plan, dt tensor.DType) {
	b.Helper()
	dst := make([]byte, plan.Bytes(dt))
	b.SetBytes(int64(len(dst)))
	for b.Loop() {
		if _, err := p.ProcessImage(context.Background(), img, plan, dt, dst); err != nil {
			b.Fatal(err)
		}
	}
}
