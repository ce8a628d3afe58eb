package internvl

import (
	"context"
	"errors"
	"testing"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

// FuzzParseImageConfig: any preprocessor_config.json either parses into a
// configuration or fails with vision.ErrBadOptions; nothing panics.
func FuzzParseImageConfig(f *testing.F) {
	for _, s := range []string{
		`{"size": {"height": 448, "width": 448}, "min_patches": 1, "max_patches": 12}`,
		`{"size": 28, "image_mean": [0.5], "image_std": null}`,
		`{"size": {"shortest_edge": 3}}`, `{"max_patches": 1e300}`, `{} x`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := DefaultConfig()
		if err := c.ParseImageConfig(data); err != nil && !errors.Is(err, vision.ErrBadOptions) {
			t.Fatalf("err = %v, want ErrBadOptions", err)
		}
		if err := c.Validate(); err != nil && !errors.Is(err, vision.ErrBadOptions) && !errors.Is(err, vision.ErrUnsupported) {
			t.Fatalf("validate: err = %v", err)
		}
	})
}

// FuzzPlanImage: planning any size with small tiles never panics, refuses
// with a typed error or gives a plan whose shape × dtype is exactly the
// bytes ProcessImage writes, every element of them.
func FuzzPlanImage(f *testing.F) {
	f.Add(uint16(100), uint16(60), uint8(8), uint8(1), uint8(12), uint8(0))
	f.Add(uint16(1), uint16(3000), uint8(5), uint8(2), uint8(6), uint8(1))
	f.Add(uint16(0), uint16(7), uint8(3), uint8(0), uint8(1), uint8(2))
	f.Add(uint16(77), uint16(77), uint8(9), uint8(13), uint8(12), uint8(0))
	f.Fuzz(func(t *testing.T, w, h uint16, tile, minT, maxT, dtSel uint8) {
		cfg := DefaultConfig()
		cfg.TileWidth, cfg.TileHeight = 1+int(tile%16), 1+int(tile/16)
		cfg.MinTiles, cfg.MaxTiles = int(minT%20), int(maxT%20)
		cfg.DoResize = dtSel&4 == 0
		p, err := New(&cfg, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.PlanImage(int(w%4096), int(h%4096), vision.Overrides{})
		if err != nil {
			if !errors.Is(err, vision.ErrTooSmall) && !errors.Is(err, vision.ErrTooLarge) {
				t.Fatalf("err = %v", err)
			}
			return
		}
		dt := []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16}[int(dtSel)%3]
		n := plan.Views * 3 * plan.Dims[2] * plan.Dims[3]
		if plan.Elements() != n || plan.Bytes(dt) != n*dt.Size() || plan.Tokens != 256*plan.Views {
			t.Fatalf("plan %+v: %d elements, %d bytes", plan, plan.Elements(), plan.Bytes(dt))
		}
		if plan.Width*plan.Height > 1<<18 || plan.SourceWidth*plan.SourceHeight > 1<<18 {
			return
		}
		dst := visiontest.Ones(plan.Bytes(dt))
		if _, err := p.ProcessImage(context.Background(), visiontest.Synth(plan.SourceWidth, plan.SourceHeight, 3), plan, dt, dst); err != nil {
			t.Fatal(err)
		}
		if visiontest.Unwritten(dst, dt.Size()) {
			t.Fatalf("plan %+v: elements left unwritten", plan)
		}
	})
}
