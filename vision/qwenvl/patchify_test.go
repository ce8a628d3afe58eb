package qwenvl

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
	"github.com/mmgate/mmgate/vision/norm"
)

// The OpenAI CLIP mean and std, the Qwen2-VL class defaults.
var clipMean, clipStd = norm.OpenAICLIP()

// normalizeValue is norm.Params.Value for one channel's settings.
func normalizeValue(v uint8, rescale, mean, std float64, doRescale, doNorm bool) float32 {
	p := norm.Params{Rescale: rescale, Mean: [3]float64{mean}, Std: [3]float64{std}, DoRescale: doRescale, DoNormalize: doNorm}
	return p.Value(0, v)
}

// transpose is a plain N-dimensional transpose of a row-major array: the
// output axis i is the input axis perm[i].
func transpose(in []float32, shape, perm []int) []float32 {
	n := len(shape)
	inStride := make([]int, n)
	s := 1
	for i := n - 1; i >= 0; i-- {
		inStride[i] = s
		s *= shape[i]
	}
	outShape := make([]int, n)
	for i := range perm {
		outShape[i] = shape[perm[i]]
	}
	out := make([]float32, 0, len(in))
	idx := make([]int, n)
	for range len(in) {
		off := 0
		for i := range n {
			off += idx[i] * inStride[perm[i]]
		}
		out = append(out, in[off])
		for i := n - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < outShape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// refPixelValues is the reference of docs/preprocessing.md ("Rescale and
// normalize", "Patchify, grid and placeholders"): normalize each
// sample directly (no table), stack the frame tau times, reshape to
// (gt, τ, C, gh/m, m, p, gw/m, m, p), permute (0,3,6,4,7,2,1,5,8), flatten.
func refPixelValues(img *imaging.RGB, c *Config) []float32 {
	p, m, tau := c.PatchSize, c.MergeSize, c.TemporalPatchSize
	H, W := img.Height, img.Width
	frame := make([]float32, 3*H*W) // channels first
	for ch := range 3 {
		for y := range H {
			for x := range W {
				frame[(ch*H+y)*W+x] = normalizeValue(img.Pix[(y*W+x)*3+ch], c.RescaleFactor, c.ImageMean[ch], c.ImageStd[ch], c.DoRescale, c.DoNormalize)
			}
		}
	}
	var video []float32
	for range tau {
		video = append(video, frame...)
	}
	gh, gw := H/p, W/p
	shape := []int{1, tau, 3, gh / m, m, p, gw / m, m, p}
	return transpose(video, shape, []int{0, 3, 6, 4, 7, 2, 1, 5, 8})
}

func encodeRef(t *testing.T, vals []float32, dt tensor.DType) []byte {
	t.Helper()
	out := make([]byte, len(vals)*dt.Size())
	if err := tensor.EncodeFloat32(out, vals, dt); err != nil {
		t.Fatal(err)
	}
	return out
}

// noResize fails the test if a resize is attempted.
type noResize struct{ t *testing.T }

func (n noResize) ResizeInto(context.Context, *imaging.RGB, *imaging.RGB, resample.Filter) error {
	n.t.Fatal("unexpected resize")
	return nil
}

// G5: the closed-form kernels equal the reshape/permute reference on
// synthetic images, for every float dtype, both models and several worker
// counts; the transpose itself is checked against the closed form's index
// formula on a small case.
func TestPatchifyMatchesReference(t *testing.T) {
	odd := presetMust(t, "qwen2.5-vl")
	odd.TemporalPatchSize = 3
	odd.MergeSize = 1
	odd.ModelType = ModelQwen25VL
	cases := []struct {
		name string
		cfg  *Config
		w, h int
	}{
		{"qwen2.5 56x84", presetMust(t, "qwen2.5-vl"), 56, 84},
		{"qwen2.5 112x56", presetMust(t, "qwen2.5-vl"), 112, 56},
		{"qwen3 64x96", presetMust(t, "qwen3-vl"), 64, 96},
		{"qwen3 320x256", presetMust(t, "qwen3-vl"), 320, 256},
		{"tau3 merge1 42x28", odd, 42, 28},
	}
	for _, tc := range cases {
		img := visiontest.Synth(tc.w, tc.h, 5)
		ref := refPixelValues(img, tc.cfg)
		for _, workers := range []int{1, 3} {
			p, err := New(tc.cfg, Options{Workers: workers, Resizer: noResize{t}})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := p.PlanImage(tc.w, tc.h, vision.Overrides{MinPixels: 1024})
			if err != nil {
				t.Fatal(err)
			}
			if plan.Width != tc.w || plan.Height != tc.h {
				t.Fatalf("%s: plan %dx%d, want the source size", tc.name, plan.Width, plan.Height)
			}
			if plan.Elements() != len(ref) {
				t.Fatalf("%s: plan has %d elements, reference %d", tc.name, plan.Elements(), len(ref))
			}
			for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16} {
				dst := make([]byte, plan.Bytes(dt))
				for i := range dst {
					dst[i] = 0xAA
				}
				if _, err := p.ProcessImage(context.Background(), img, plan, dt, dst); err != nil {
					t.Fatal(err)
				}
				if want := encodeRef(t, ref, dt); !bytes.Equal(dst, want) {
					t.Errorf("%s workers=%d %v: differs from the reference at byte %d", tc.name, workers, dt, firstDiff(dst, want))
				}
			}
		}
	}
}

// The reference transpose agrees with the closed-form index formula
// (docs/preprocessing.md, "Patchify, grid and placeholders").
func TestReferenceLayoutFormula(t *testing.T) {
	cfg := presetMust(t, "qwen2.5-vl")
	cfg.PatchSize = 2 // small patches keep the check exhaustive
	img := visiontest.Synth(8, 12, 1)
	ref := refPixelValues(img, cfg)
	p, m, tau := 2, 2, 2
	gh, gw := 12/p, 8/p
	cols := 3 * tau * p * p
	for bh := range gh / m {
		for bw := range gw / m {
			for mh := range m {
				for mw := range m {
					r := ((bh*(gw/m)+bw)*m+mh)*m + mw
					for c := range 3 {
						for ti := range tau {
							for py := range p {
								for px := range p {
									k := ((c*tau+ti)*p+py)*p + px
									y, x := (bh*m+mh)*p+py, (bw*m+mw)*p+px
									want := normalizeValue(img.Pix[(y*8+x)*3+c], cfg.RescaleFactor, cfg.ImageMean[c], cfg.ImageStd[c], true, true)
									if got := ref[r*cols+k]; got != want {
										t.Fatalf("r=%d k=%d: %v, want %v", r, k, got, want)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func presetMust(t testing.TB, name string) *Config {
	t.Helper()
	c, err := PresetConfig(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ExampleProcessor_PlanImage() {
	p, err := Load("qwen2.5-vl")
	if err != nil {
		panic(err)
	}
	plan, err := p.PlanImage(2560, 1600, vision.Overrides{})
	if err != nil {
		panic(err)
	}
	fmt.Println(plan.Width, plan.Height, plan.GridTHW(), plan.Tokens, plan.Rows, plan.Cols)
	// Output: 2548 1596 [1 114 182] 5187 20748 1176
}
