package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/internal/testutil/fixture"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
	"github.com/mmgate/mmgate/vision"
)

// planModels are the fixture folders of every media family of the
// built-in registry (Gemma 3 also with pan-and-scan, so that its items
// differ in views).
func planModels(t *testing.T) map[string]string {
	t.Helper()
	dirs := map[string]string{
		"qwen2.5-vl": fixture.QwenModel(t, "qwen2.5-vl"),
		"qwen3-vl":   fixture.QwenModel(t, "qwen3-vl"),
	}
	// Qwen2-VL: Qwen2.5-VL's gateway-side files under Qwen2-VL's type (the
	// processors share their configuration).
	q2 := fixture.QwenModel(t, "qwen2.5-vl")
	familytest.Patch(t, q2, "config.json", map[string]any{"model_type": "qwen2_vl", "architectures": []string{"Qwen2VLForConditionalGeneration"}})
	dirs["qwen2-vl"] = q2
	for _, name := range tokenizertest.ModelNames() {
		dirs[name] = tokenizertest.ModelDir(t, name)
	}
	pas := tokenizertest.ModelDir(t, "gemma3")
	familytest.Patch(t, pas, "preprocessor_config.json", map[string]any{"do_pan_and_scan": true, "pan_and_scan_min_crop_size": 64})
	dirs["gemma3-pan-and-scan"] = pas
	return dirs
}

// planImages are real photos and synthesized sizes (tall, wide, small).
func planImages(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{"Garden.jpg", "Sway_Wallpaper_Blue_1136x640_Portrait.png"} {
		b, err := os.ReadFile(filepath.Join(fixture.Root(), "testdata", "photos", name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	for _, sz := range [][2]int{{300, 200}, {700, 2100}, {1900, 500}} {
		img := image.NewRGBA(image.Rect(0, 0, sz[0], sz[1]))
		for y := 0; y < sz[1]; y++ {
			for x := 0; x < sz[0]; x++ {
				img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("%dx%d.jpg", sz[0], sz[1])] = buf.Bytes()
	}
	return out
}

// planKit is what the plan tests need: an image decoder, a pool to place
// in, and a Pipeline with what placing and filling need (no engine, no
// cache).
type planKit struct {
	dec  *media.Decoder
	pool *shm.Pool
	p    *Pipeline
}

func newPlanKit(t *testing.T) planKit {
	t.Helper()
	dec, err := media.New(media.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := shm.New(shm.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	c := newTensorCache(-1, nil)
	m, err := newMetrics(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	return planKit{dec: dec, pool: pool, p: &Pipeline{cache: c, m: m}}
}

// placedBytes places and fills items as the gateway does for a worker
// with dt and layout (flat or not), inline, and returns the bytes placed.
func placedBytes(t *testing.T, p *Pipeline, pool *shm.Pool, a *Assets, items []prepared, dt tensor.DType, flat bool) int64 {
	t.Helper()
	b := pool.NewBatch(nil, "plan")
	defer b.Release()
	j := &mediaJob{a: a, dt: dt, route: shm.Route{Mode: shm.ModeInline}, batch: b, times: &stageTimes{}}
	slots := p.slotsFor(j, items)
	var err error
	if flat {
		err = placeFlat(context.Background(), j, slots)
	} else {
		err = placeEach(context.Background(), j, slots)
	}
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, it := range items {
		n += int64(len(it.input.Payload.Inline))
	}
	return n
}

// TestMemoryPlanMatchesPlacement: for every media family of the registry,
// real photos and synthesized sizes, the tensor bytes planned from the
// headers are the bytes the gateway places when it processes them — one
// destination per item, or one for all items joined (stacked inputs
// padded to the largest) — in bfloat16 and float32; inline, each has one
// further copy planned (gRPC's encoded message).
func TestMemoryPlanMatchesPlacement(t *testing.T) {
	k := newPlanKit(t)
	images := planImages(t)
	families := map[string]bool{}
	defer func() {
		for _, f := range builtin.New().Families() {
			if !families[f.Name()] {
				t.Errorf("family %s not planned", f.Name())
			}
		}
	}()
	for name, dir := range planModels(t) {
		a, err := LoadAssets(dir, AssetOptions{Families: builtin.New(), Decoder: imageprep.MediaDecoder(k.dec)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		families[a.Model.Family().Name()] = true
		var items []prepared
		for file, data := range images {
			pl, err := a.Prep.Plan(data, vision.Overrides{})
			if err != nil {
				t.Fatalf("%s %s: %v", name, file, err)
			}
			items = append(items, prepared{modality: prompt.Image, param: file, plan: pl,
				side: a.Model.SideTensors(family.ImageItem(pl)), media: &fetch.Media{Bytes: data}})
		}
		for _, dt := range []tensor.DType{tensor.BFloat16, tensor.Float32} {
			for _, flat := range []bool{false, true} {
				got := placedBytes(t, k.p, k.pool, a, items, dt, flat)
				m := planMemory(a, items, memTarget{dt: dt, flat: flat, inlineCopies: 2, parallel: 2})
				if m.Tensors != got || m.Copies != got {
					t.Errorf("%s %s flat=%v: planned %d tensor bytes (%d copies), placed %d", name, dt, flat, m.Tensors, m.Copies, got)
				}
			}
		}
	}
}

// TestMemoryPlanVideos: the same for videos, for the families that take
// them (Qwen-VL, GLM-4V), decoded with FFmpeg from their probe.
func TestMemoryPlanVideos(t *testing.T) {
	for _, b := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed: video planning not tested", b)
		}
	}
	vd, err := video.New(video.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := newPlanKit(t)
	clips := []string{"h264_portrait_faststart.mp4", "mpeg4.avi"}
	dirs := planModels(t)
	for _, name := range []string{"qwen2.5-vl", "qwen3-vl", "glm-4.1v"} {
		a, err := LoadAssets(dirs[name], AssetOptions{Families: builtin.New(), Decoder: imageprep.MediaDecoder(k.dec), Video: vd})
		if err != nil || a.VideoPrep == nil {
			t.Fatalf("%s: %v (video %v)", name, err, a != nil && a.VideoPrep != nil)
		}
		var items []prepared
		for _, clip := range clips {
			data, err := os.ReadFile(filepath.Join(fixture.Root(), "media", "video", "testdata", clip))
			if err != nil {
				t.Fatal(err)
			}
			pr := prepared{modality: prompt.Video, param: clip, media: &fetch.Media{Bytes: data}}
			if err := planVideo(context.Background(), a, prompt.MediaItem{Param: clip}, data, overrides{}, &pr); err != nil {
				t.Fatalf("%s %s: %v", name, clip, err)
			}
			pr.side = a.Model.SideTensors(pr.item())
			items = append(items, pr)
		}
		for _, flat := range []bool{false, true} {
			got := placedBytes(t, k.p, k.pool, a, items, tensor.BFloat16, flat)
			m := planMemory(a, items, memTarget{dt: tensor.BFloat16, flat: flat, shm: true, route: shm.Route{Mode: shm.ModeShm}, inlineCopies: 2, parallel: 2})
			if m.Tensors != got || m.Copies != 0 {
				t.Errorf("%s flat=%v: planned %d tensor bytes (%d copies), placed %d", name, flat, m.Tensors, m.Copies, got)
			}
		}
	}
}

// TestMemoryPlanParts: copies follow each destination's path, side tensors
// are counted with their copies, and the scratch is that of the largest
// items processed at once.
func TestMemoryPlanParts(t *testing.T) {
	big := vision.Plan{SourceWidth: 3840, SourceHeight: 2160, Width: 3840, Height: 2144, GridT: 1, GridH: 134, GridW: 240,
		Rows: 134 * 240, Cols: 1536}
	small := vision.Plan{SourceWidth: 640, SourceHeight: 480, Width: 640, Height: 480, GridT: 1, GridH: 30, GridW: 40,
		Rows: 30 * 40, Cols: 1536}
	side := []family.NamedTensor{{Name: "image_grid_thw", Tensor: tensor.Tensor{DType: tensor.Int64, Shape: []int{1, 3}, Data: make([]byte, 24)}}}
	items := []prepared{{modality: prompt.Image, plan: big, side: side}, {modality: prompt.Image, plan: small, side: side}, {modality: prompt.Image, plan: small, side: side}}
	a := &Assets{Model: nil}
	shmRoute := shm.Route{Mode: shm.ModeAuto, NamespaceMatch: true, Limits: shm.Limits{MinBytes: 65536}}
	m := planMemory(a, items, memTarget{dt: tensor.BFloat16, route: shmRoute, shm: true, inlineCopies: 3, parallel: 2})
	tensors := int64(big.Bytes(tensor.BFloat16) + 2*small.Bytes(tensor.BFloat16))
	scratchBig := int64(3*3840*2160 + 3*3840*2144)
	scratchSmall := int64(3*640*480 + 3*640*480)
	want := memPlan{Tensors: tensors, Side: 3 * 24 * 3, Copies: 0, Scratch: scratchBig + scratchSmall}
	if m != want {
		t.Errorf("shm: %+v, want %+v", m, want)
	}
	m = planMemory(a, items, memTarget{dt: tensor.BFloat16, route: shmRoute, shm: false, inlineCopies: 3, parallel: 1})
	want.Copies, want.Scratch = 2*tensors, scratchBig
	if m != want {
		t.Errorf("no pool: %+v, want %+v", m, want)
	}
	if planMemory(a, nil, memTarget{}).total() != 0 {
		t.Error("no items, some bytes")
	}
}
