package glm4v

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// FuzzParseConfig: any processor file parses or fails with
// vision.ErrBadOptions, as an image or a video configuration.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"size": {"shortest_edge": 12544, "longest_edge": 9633792}, "patch_size": 14}`,
		`{"size": {"shortest_edge": 1}}`, `{"fps": -1, "do_sample_frames": false}`, `{"image_mean": [1, 2]}`, `7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := DefaultConfig()
		if err := c.ParseImageConfig(data); err != nil && !errors.Is(err, vision.ErrBadOptions) {
			t.Fatalf("image: err = %v", err)
		}
		if err := c.ParseVideoConfig(data); err != nil && !errors.Is(err, vision.ErrBadOptions) {
			t.Fatalf("video: err = %v", err)
		}
		if err := c.Validate(); err != nil && !errors.Is(err, vision.ErrBadOptions) && !errors.Is(err, vision.ErrUnsupported) {
			t.Fatalf("validate: err = %v", err)
		}
	})
}

// FuzzSmartResize: no panic; a typed error, or sides that are positive
// multiples of the factor.
func FuzzSmartResize(f *testing.F) {
	f.Add(2, 1, 201, 2, 28, 12544, 9633792)
	f.Add(600, 176, 192, 2, 28, 12544, 47040000)
	f.Add(3, 1<<24, 5, 1, 7, 0, 1)
	f.Add(2, 100, 100, 2, 28, 1<<40, 1<<41)
	f.Fuzz(func(t *testing.T, n, h, w, tf, factor, lo, hi int) {
		gh, gw, err := SmartResize(n, h, w, tf, factor, lo, hi)
		if err != nil {
			for _, e := range []error{vision.ErrTooSmall, vision.ErrTooLarge, vision.ErrAspectRatio, vision.ErrBadOptions} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("err = %v", err)
		}
		if gh <= 0 || gw <= 0 || gh%factor != 0 || gw%factor != 0 || gh > maxSide || gw > maxSide {
			t.Fatalf("SmartResize(%d, %d, %d, %d, %d, %d, %d) = %d, %d", n, h, w, tf, factor, lo, hi, gh, gw)
		}
	})
}

// FuzzSampleFrames: no panic; the indices are in range, never decrease,
// repeat only as the final padding, and come in an even number.
func FuzzSampleFrames(f *testing.F) {
	f.Add(37, 25.0, 2.0)
	f.Add(800, 2.0, 2.0)
	f.Add(20000, 29.97, 0.01)
	f.Add(1, 1e-300, 1e300)
	f.Fuzz(func(t *testing.T, total int, src, fps float64) {
		idx, err := SampleFrames(total, src, fps)
		if err != nil {
			if !errors.Is(err, vision.ErrTooSmall) && !errors.Is(err, vision.ErrTooLarge) &&
				!errors.Is(err, vision.ErrUnsupported) && !errors.Is(err, vision.ErrBadOptions) {
				t.Fatalf("err = %v", err)
			}
			return
		}
		if len(idx)%2 != 0 {
			t.Fatalf("%d indices", len(idx))
		}
		for k, i := range idx {
			if i < 0 || i >= total || (k > 0 && i < idx[k-1]) || (k > 0 && k < len(idx)-1 && i == idx[k-1]) {
				t.Fatalf("SampleFrames(%d, %v, %v): bad index %d at %d in %v", total, src, fps, i, k, idx)
			}
		}
	})
}

// FuzzPlan: planning images and videos never panics; a plan's shape × dtype
// is exactly the bytes processing writes, every element of them.
func FuzzPlan(f *testing.F) {
	f.Add(uint16(96), uint16(64), uint16(37), 25.0, uint32(0), uint32(0), uint8(0))
	f.Add(uint16(1), uint16(5000), uint16(2), 2.0, uint32(0), uint32(100352), uint8(1))
	f.Add(uint16(3), uint16(7), uint16(700), 2.0, uint32(50000), uint32(0), uint8(2))
	p := loadFixture(f, Options{Options: qwenvl.Options{Workers: 2}})
	f.Fuzz(func(t *testing.T, w, h, frames uint16, fps float64, lo, hi uint32, sel uint8) {
		dt := []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16}[int(sel)%3]
		ov := vision.Overrides{MinPixels: int(lo % (1 << 22)), MaxPixels: int(hi % (1 << 22))}
		plan, err := p.PlanImage(int(w), int(h), ov)
		if err == nil {
			checkBytes(t, plan, dt, func(dst []byte) error {
				_, err := p.ProcessImage(context.Background(), visiontest.Synth(int(w), int(h), 1), plan, dt, dst)
				return err
			})
		}
		info := vision.VideoInfo{Width: int(w % 512), Height: int(h % 512), Frames: int(frames % 2000), FPS: fps}
		vp, err := p.PlanVideo(info, vision.VideoOverrides{MinPixels: ov.MinPixels, MaxPixels: ov.MaxPixels})
		if err != nil || math.IsNaN(fps) {
			return
		}
		checkBytes(t, vp.Plan, dt, func(dst []byte) error {
			fr := make([]*imaging.RGB, len(vp.Indices))
			for k := range fr {
				fr[k] = visiontest.Synth(info.Width, info.Height, vp.Indices[k])
			}
			_, err := p.ProcessVideo(context.Background(), fr, vp, dt, dst)
			return err
		})
	})
}

// checkBytes runs process on a buffer of plan.Bytes(dt) all-ones bytes
// (when small enough) and requires every element to be overwritten.
func checkBytes(t *testing.T, plan vision.Plan, dt tensor.DType, process func([]byte) error) {
	t.Helper()
	if plan.Bytes(dt) != plan.Rows*plan.Cols*dt.Size() || plan.Rows != plan.GridT*plan.GridH*plan.GridW || plan.Tokens*4 != plan.Rows {
		t.Fatalf("plan %+v", plan)
	}
	if plan.Bytes(dt) > 1<<22 || plan.SourceWidth*plan.SourceHeight > 1<<20 {
		return
	}
	dst := visiontest.Ones(plan.Bytes(dt))
	if err := process(dst); err != nil {
		t.Fatal(err)
	}
	if visiontest.Unwritten(dst, dt.Size()) {
		t.Fatalf("plan %+v: elements left unwritten", plan)
	}
}
