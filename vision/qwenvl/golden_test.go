package qwenvl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

type numpyGolden struct {
	Numpy string `json:"numpy"`
	Cases []struct {
		Preset         string    `json:"preset"`
		Width          int       `json:"width"`
		Height         int       `json:"height"`
		Seed           int       `json:"seed"`
		DoRescale      bool      `json:"do_rescale"`
		DoNormalize    bool      `json:"do_normalize"`
		GridTHW        [3]int    `json:"grid_thw"`
		Shape          [2]int    `json:"shape"`
		SHA256Float32  string    `json:"sha256_float32"`
		SHA256Float16  string    `json:"sha256_float16"`
		SHA256BFloat16 string    `json:"sha256_bfloat16"`
		First          []float64 `json:"first"`
	} `json:"cases"`
}

// The normalize + patchify stages equal NumPy's reshape/transpose reference
// (scripts/golden/qwenvl_numpy.py) on already-sized images, for every dtype.
func TestNumpyGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/numpy_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g numpyGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, tc := range g.Cases {
		cfg := presetMust(t, tc.Preset)
		cfg.DoRescale, cfg.DoNormalize = tc.DoRescale, tc.DoNormalize
		p, err := New(cfg, Options{Workers: 2, Resizer: noResize{t}})
		if err != nil {
			t.Fatal(err)
		}
		img := visiontest.Synth(tc.Width, tc.Height, tc.Seed)
		plan := p.planFor(tc.Width, tc.Height, tc.Width, tc.Height)
		if plan.GridT != tc.GridTHW[0] || plan.GridH != tc.GridTHW[1] || plan.GridW != tc.GridTHW[2] ||
			plan.Rows != tc.Shape[0] || plan.Cols != tc.Shape[1] {
			t.Errorf("%s %dx%d: plan %+v, want grid %v shape %v", tc.Preset, tc.Width, tc.Height, plan, tc.GridTHW, tc.Shape)
			continue
		}
		for _, d := range []struct {
			dt   tensor.DType
			want string
		}{{tensor.Float32, tc.SHA256Float32}, {tensor.Float16, tc.SHA256Float16}, {tensor.BFloat16, tc.SHA256BFloat16}} {
			dst := make([]byte, plan.Bytes(d.dt))
			if _, err := p.ProcessImage(context.Background(), img, plan, d.dt, dst); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(dst)
			if got := hex.EncodeToString(sum[:]); got != d.want {
				t.Errorf("%s %dx%d rescale=%v normalize=%v %v: sha256 %s, want %s", tc.Preset, tc.Width, tc.Height,
					tc.DoRescale, tc.DoNormalize, d.dt, got, d.want)
			}
		}
	}
}
