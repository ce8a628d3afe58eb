package qwenvl

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mmgate/mmgate/imaging"
	"github.com/mmgate/mmgate/imaging/resample"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/internal/visiontest"
)

func loadPreset(t testing.TB, name string) *Processor {
	t.Helper()
	p, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanVideoSpecVectors runs the video vectors of docs/preprocessing.md
// ("Test vectors (video)") through PlanVideo.
func TestPlanVideoSpecVectors(t *testing.T) {
	q3, q25 := loadPreset(t, "qwen3-vl"), loadPreset(t, "qwen2.5-vl")
	for _, c := range []struct {
		frames int
		fps    float64
		w, h   int
		// Qwen3
		n3      int
		head3   []int
		h3, w3  int
		gt3     int
		ts3     []string
		n25     int
		h25     int
		w25     int
		spgts25 float64
	}{
		{48, 24, 1920, 1080, 4, []int{0, 16, 31, 47}, 1088, 1920, 2, []string{"0.3", "1.6"}, 4, 560, 1008, 1.0},
		{300, 30, 1280, 720, 20, []int{0, 16, 31, 47, 63, 79}, 704, 1280, 10, []string{"0.3", "1.3", "2.4", "3.4"}, 20, 560, 1008, 1.0},
		{7, 25, 640, 480, 4, []int{0, 2, 4, 6}, 480, 640, 2, []string{"0.0", "0.2"}, 4, 476, 644, 0.14},
		{1000, 29.97, 1920, 1080, 66, []int{0, 15, 31, 46, 61, 77}, 448, 800, 33, []string{"0.3", "1.3", "2.3", "3.3"}, 66, 560, 1008, 1.0111121222232333},
		{20000, 30, 1920, 1080, 768, []int{0, 26, 52, 78}, 128, 224, 384, []string{"0.4", "2.2", "3.9", "5.7"}, 768, 336, 644, 1.7361111111111112},
		{3, 24, 320, 240, 3, []int{0, 1, 2}, 256, 320, 2, []string{"0.0", "0.1"}, 2, 280, 392, 0.125},
	} {
		info := vision.VideoInfo{Width: c.w, Height: c.h, Frames: c.frames, FPS: c.fps}
		p3, err := q3.PlanVideo(info, vision.VideoOverrides{})
		if err != nil {
			t.Fatalf("qwen3 %+v: %v", info, err)
		}
		if len(p3.Indices) != c.n3 || !slices.Equal(p3.Indices[:len(c.head3)], c.head3) || p3.Height != c.h3 || p3.Width != c.w3 || p3.GridT != c.gt3 {
			t.Errorf("qwen3 %+v: n %d head %v size %dx%d gt %d", info, len(p3.Indices), p3.Indices[:min(6, len(p3.Indices))], p3.Width, p3.Height, p3.GridT)
		}
		if len(p3.Timestamps) != p3.GridT {
			t.Fatalf("qwen3 %+v: %d timestamps for %d groups", info, len(p3.Timestamps), p3.GridT)
		}
		for i, s := range c.ts3 {
			if got := FormatTimestamp(p3.Timestamps[i]); got != s {
				t.Errorf("qwen3 %+v: timestamp %d = %s, want %s", info, i, got, s)
			}
		}
		if strs := TimestampsQwen3(p3.Indices, info.FPS); len(strs) != len(p3.Timestamps) || strs[0] != FormatTimestamp(p3.Timestamps[0]) {
			t.Errorf("qwen3 %+v: TimestampsQwen3 %v disagrees", info, strs[:1])
		}
		if p3.SecondPerGridTS != 0 || p3.Tokens != p3.GridT*p3.GridH*p3.GridW/4 || p3.Cols != 3*2*16*16 || p3.Rows != p3.GridT*p3.GridH*p3.GridW {
			t.Errorf("qwen3 %+v: plan %+v", info, p3.Plan)
		}

		p25, err := q25.PlanVideo(info, vision.VideoOverrides{})
		if err != nil {
			t.Fatalf("qwen2.5 %+v: %v", info, err)
		}
		if len(p25.Indices) != c.n25 || p25.Height != c.h25 || p25.Width != c.w25 || p25.SecondPerGridTS != c.spgts25 ||
			p25.GridT != c.n25/2 || p25.Timestamps != nil || p25.FirstWidth != 0 || p25.Cols != 3*2*14*14 {
			t.Errorf("qwen2.5 %+v: n %d size %dx%d spgts %v plan %+v", info, len(p25.Indices), p25.Width, p25.Height, p25.SecondPerGridTS, p25.Plan)
		}
	}
}

func TestPlanVideoQwen2HasNoSecondPerGrid(t *testing.T) {
	p, err := loadPreset(t, "qwen2-vl").PlanVideo(vision.VideoInfo{Width: 640, Height: 480, Frames: 48, FPS: 24}, vision.VideoOverrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.SecondPerGridTS != 0 || p.SampleFPS != 2 {
		t.Fatalf("plan %+v", p)
	}
}

func TestPlanVideoErrors(t *testing.T) {
	q3, q25 := loadPreset(t, "qwen3-vl"), loadPreset(t, "qwen2.5-vl")
	info := vision.VideoInfo{Width: 640, Height: 480, Frames: 100, FPS: 25}
	for _, c := range []struct {
		name string
		p    *Processor
		info vision.VideoInfo
		o    vision.VideoOverrides
		want error
	}{
		{"fps and num_frames", q3, info, vision.VideoOverrides{FPS: 1, NumFrames: 4}, vision.ErrBadOptions},
		{"negative fps", q25, info, vision.VideoOverrides{FPS: -1}, vision.ErrBadOptions},
		{"NaN total", q25, info, vision.VideoOverrides{TotalPixels: math.NaN()}, vision.ErrBadOptions},
		{"num_frames over cap qwen3", q3, info, vision.VideoOverrides{NumFrames: 769}, vision.ErrTooLarge},
		{"num_frames over cap qwen2.5", q25, info, vision.VideoOverrides{NumFrames: 800}, vision.ErrTooLarge},
		{"one frame qwen3", q3, vision.VideoInfo{Width: 64, Height: 64, Frames: 1, FPS: 24}, vision.VideoOverrides{}, vision.ErrTooSmall},
		{"one frame qwen2.5", q25, vision.VideoInfo{Width: 64, Height: 64, Frames: 1, FPS: 24}, vision.VideoOverrides{}, vision.ErrTooSmall},
		{"no frames", q3, vision.VideoInfo{Width: 64, Height: 64}, vision.VideoOverrides{}, vision.ErrTooSmall},
		{"qwen3 side below 32", q3, vision.VideoInfo{Width: 31, Height: 64, Frames: 10, FPS: 24}, vision.VideoOverrides{}, vision.ErrTooSmall},
		{"aspect", q25, vision.VideoInfo{Width: 6000, Height: 28, Frames: 10, FPS: 24}, vision.VideoOverrides{}, vision.ErrAspectRatio},
		{"qwen2.5 unknown fps", q25, vision.VideoInfo{Width: 64, Height: 64, Frames: 10}, vision.VideoOverrides{}, vision.ErrBadInput},
		{"pixel limit", q3, info, vision.VideoOverrides{MinPixels: 1 << 40}, vision.ErrTooLarge},
	} {
		if _, err := c.p.PlanVideo(c.info, c.o); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// Qwen3 with unknown fps assumes 24; Qwen2.5 with num_frames needs no fps.
	p, err := q3.PlanVideo(vision.VideoInfo{Width: 64, Height: 64, Frames: 48}, vision.VideoOverrides{})
	if err != nil || len(p.Indices) != 4 || p.Timestamps[1] != (31.0/24+47.0/24)/2 {
		t.Fatalf("qwen3 unknown fps: %+v, %v", p, err)
	}
	if p, err := q25.PlanVideo(vision.VideoInfo{Width: 64, Height: 64, Frames: 48}, vision.VideoOverrides{NumFrames: 6}); err != nil || len(p.Indices) != 6 {
		t.Fatalf("qwen2.5 num_frames without fps: %+v, %v", p, err)
	}
}

// referenceVideo is the obviously-correct pipeline: each frame resized (via
// the first size when the plan has one), padded in time with the last
// frame, and pixel_values[r][k] computed from the closed form of
// docs/preprocessing.md ("Patchify, grid and placeholders") with the
// normalize formula, encoded as dt.
func referenceVideo(t *testing.T, p *Processor, frames []*imaging.RGB, plan vision.VideoPlan, dt tensor.DType) []byte {
	t.Helper()
	s := p.videoSettings()
	rs, _ := resample.New(resample.Options{Workers: 1})
	var resized []*imaging.RGB
	for _, f := range frames {
		cur := f
		if plan.FirstWidth != 0 {
			var err error
			if cur, err = rs.Resize(context.Background(), cur, plan.FirstWidth, plan.FirstHeight, resample.Filter(s.resample)); err != nil {
				t.Fatal(err)
			}
		}
		if cur.Width != plan.Width || cur.Height != plan.Height {
			var err error
			if cur, err = rs.Resize(context.Background(), cur, plan.Width, plan.Height, resample.Filter(s.resample)); err != nil {
				t.Fatal(err)
			}
		}
		resized = append(resized, cur)
	}
	for len(resized)%s.tau != 0 {
		resized = append(resized, resized[len(resized)-1])
	}
	ps, m, tau := s.patch, s.merge, s.tau
	gh, gw := plan.GridH, plan.GridW
	out := make([]byte, plan.Bytes(dt))
	es := dt.Size()
	for bt := 0; bt < plan.GridT; bt++ {
		for bh := 0; bh < gh/m; bh++ {
			for bw := 0; bw < gw/m; bw++ {
				for mh := 0; mh < m; mh++ {
					for mw := 0; mw < m; mw++ {
						r := (((bt*(gh/m)+bh)*(gw/m)+bw)*m+mh)*m + mw
						for c := 0; c < 3; c++ {
							for ti := 0; ti < tau; ti++ {
								for py := 0; py < ps; py++ {
									for px := 0; px < ps; px++ {
										k := ((c*tau+ti)*ps+py)*ps + px
										f := resized[bt*tau+ti]
										y, x := (bh*m+mh)*ps+py, (bw*m+mw)*ps+px
										v := normalizeValue(f.Pix[(y*f.Width+x)*3+c], s.rescale, s.mean[c], s.std[c], s.doRescale, s.doNorm)
										tensor.PutFloat32(out[(r*plan.Cols+k)*es:], v, dt)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

func synthFrames(n, w, h int) []*imaging.RGB {
	fs := make([]*imaging.RGB, n)
	for i := range fs {
		fs[i] = visiontest.Synth(w, h, i*37)
	}
	return fs
}

// TestProcessVideoMatchesReference: odd and even frame counts, both model
// families, a double resize (Qwen2.5 with a small max_pixels) and a frame
// already at the planned size, every dtype.
func TestProcessVideoMatchesReference(t *testing.T) {
	for _, c := range []struct {
		model string
		n     int
		w, h  int
		fps   float64
		o     vision.VideoOverrides
	}{
		{"qwen3-vl", 5, 70, 50, 10, vision.VideoOverrides{NumFrames: 5}},
		{"qwen3-vl", 4, 64, 96, 10, vision.VideoOverrides{NumFrames: 4}}, // no resize
		{"qwen3-vl", 9, 50, 41, 2, vision.VideoOverrides{}},
		{"qwen2.5-vl", 8, 90, 60, 8, vision.VideoOverrides{NumFrames: 4}},
		{"qwen2.5-vl", 6, 90, 60, 8, vision.VideoOverrides{MaxPixels: 2000, NumFrames: 2}}, // resized twice
	} {
		p := loadPreset(t, c.model)
		plan, err := p.PlanVideo(vision.VideoInfo{Width: c.w, Height: c.h, Frames: c.n, FPS: c.fps}, c.o)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if c.o.MaxPixels == 2000 && plan.FirstWidth == 0 {
			t.Fatalf("%+v: expected a double resize, plan %+v", c, plan)
		}
		all := synthFrames(c.n, c.w, c.h)
		frames := make([]*imaging.RGB, len(plan.Indices))
		for k, i := range plan.Indices {
			frames[k] = all[i]
		}
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16, tensor.Float16} {
			want := referenceVideo(t, p, frames, plan, dt)
			got := make([]byte, plan.Bytes(dt))
			if _, err := p.ProcessVideo(context.Background(), frames, plan, dt, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%+v %v: differs from the reference", c, dt)
			}
		}
	}
}

// startSink returns ProcessVideo's float32 output for frames (want) and a
// sink started on a destination of the same size (got).
func startSink(t *testing.T, p *Processor, plan vision.VideoPlan, frames []*imaging.RGB) (want, got []byte, sink vision.VideoSink) {
	t.Helper()
	want = make([]byte, plan.Bytes(tensor.Float32))
	if _, err := p.ProcessVideo(context.Background(), frames, plan, tensor.Float32, want); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, len(want))
	sink, err := p.StartVideo(plan, tensor.Float32, got)
	if err != nil {
		t.Fatal(err)
	}
	return want, got, sink
}

// TestVideoSinkAnyOrder: frames given in reverse order, one at a time, give
// the same bytes; the input frames are not modified.
func TestVideoSinkAnyOrder(t *testing.T) {
	p := loadPreset(t, "qwen3-vl")
	plan, err := p.PlanVideo(vision.VideoInfo{Width: 64, Height: 64, Frames: 7, FPS: 1}, vision.VideoOverrides{NumFrames: 7})
	if err != nil {
		t.Fatal(err)
	}
	frames := synthFrames(7, 64, 64)
	want, got, sink := startSink(t, p, plan, frames)
	for k := len(frames) - 1; k >= 0; k-- {
		if err := sink.Frame(context.Background(), k, frames[k]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sink.Finish(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("reverse order differs")
	}
	if !bytes.Equal(frames[3].Pix, visiontest.Synth(64, 64, 3*37).Pix) {
		t.Fatal("input frame modified")
	}
}

// TestVideoSinkKeepsNoFrame: a caller that overwrites each frame as soon
// as Frame returns (as the decoder does when it reads the next frame into
// the same buffer) gets the same bytes, for frames that are resized and
// for frames already at the planned size.
func TestVideoSinkKeepsNoFrame(t *testing.T) {
	p := loadPreset(t, "qwen3-vl")
	for _, size := range [][2]int{{64, 96}, {70, 50}} {
		plan, err := p.PlanVideo(vision.VideoInfo{Width: size[0], Height: size[1], Frames: 5, FPS: 1}, vision.VideoOverrides{NumFrames: 5})
		if err != nil {
			t.Fatal(err)
		}
		frames := synthFrames(5, size[0], size[1])
		want, got, sink := startSink(t, p, plan, frames)
		buf := &imaging.RGB{Pix: make([]uint8, len(frames[0].Pix)), Width: size[0], Height: size[1]}
		for k, f := range frames {
			copy(buf.Pix, f.Pix)
			if err := sink.Frame(context.Background(), k, buf); err != nil {
				t.Fatal(err)
			}
			for i := range buf.Pix {
				buf.Pix[i] = 0xa5
			}
		}
		if _, err := sink.Finish(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%dx%d: a reused frame buffer changed the output", size[0], size[1])
		}
	}
}

func TestVideoSinkErrors(t *testing.T) {
	p := loadPreset(t, "qwen3-vl")
	plan, err := p.PlanVideo(vision.VideoInfo{Width: 64, Height: 64, Frames: 4, FPS: 1}, vision.VideoOverrides{NumFrames: 4})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, plan.Bytes(tensor.Float32))
	if _, err := p.StartVideo(plan, tensor.Int64, make([]byte, plan.Bytes(tensor.Int64))); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("int64: %v", err)
	}
	if _, err := p.StartVideo(plan, tensor.Float32, dst[1:]); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("short dst: %v", err)
	}
	bad := plan
	bad.Rows++
	if _, err := p.StartVideo(bad, tensor.Float32, dst); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("inconsistent plan: %v", err)
	}
	bad = plan
	bad.Indices = nil
	if _, err := p.StartVideo(bad, tensor.Float32, dst); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("no frames: %v", err)
	}
	sink, err := p.StartVideo(plan, tensor.Float32, dst)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sink.Frame(ctx, 0, visiontest.Synth(65, 64, 0)); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("wrong size: %v", err)
	}
	if err := sink.Frame(ctx, 4, visiontest.Synth(64, 64, 0)); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("k out of range: %v", err)
	}
	if err := sink.Frame(ctx, 1, visiontest.Synth(64, 64, 0)); err != nil {
		t.Fatal(err)
	}
	if err := sink.Frame(ctx, 1, visiontest.Synth(64, 64, 0)); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := sink.Finish(); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("missing frames: %v", err)
	}
	if _, err := p.ProcessVideo(ctx, synthFrames(3, 64, 64), plan, tensor.Float32, dst); !errors.Is(err, vision.ErrBadInput) {
		t.Errorf("frame count: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.ProcessVideo(cctx, synthFrames(4, 64, 64), plan, tensor.Float32, dst); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestVideoNormUsesVideoConfig: a Qwen3 model folder whose video config
// normalizes differently from its image config uses the video one.
func TestVideoNormUsesVideoConfig(t *testing.T) {
	cfg, err := PresetConfig("qwen3-vl")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Video.ImageMean = clipMean
	cfg.Video.ImageStd = clipStd
	p, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanVideo(vision.VideoInfo{Width: 64, Height: 64, Frames: 2, FPS: 1}, vision.VideoOverrides{NumFrames: 2})
	if err != nil {
		t.Fatal(err)
	}
	frames := synthFrames(2, 64, 64)
	dst := make([]byte, plan.Bytes(tensor.Float32))
	if _, err := p.ProcessVideo(context.Background(), frames, plan, tensor.Float32, dst); err != nil {
		t.Fatal(err)
	}
	// pixel (0,0) channel 0 of frame 0 is row 0, column 0.
	want := normalizeValue(frames[0].Pix[0], 1.0/255, clipMean[0], clipStd[0], true, true)
	if got := math.Float32frombits(binary.LittleEndian.Uint32(dst)); got != want {
		t.Fatalf("first value %v, want %v (CLIP)", got, want)
	}
}
