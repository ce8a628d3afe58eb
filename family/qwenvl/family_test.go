package qwenvl

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
	"github.com/mmgate/mmgate/vision"
	vqwen "github.com/mmgate/mmgate/vision/qwenvl"
)

// models are the processor package's fixture folders (config.json and
// processor configurations).
var models = filepath.Join("..", "..", "vision", "qwenvl", "testdata")

func registry() *family.Registry { return family.NewRegistry(Qwen2VL(), Qwen25VL(), Qwen3VL()) }

func mustLoad(t *testing.T, nameOrDir string) family.Model {
	t.Helper()
	m, err := registry().Open(nameOrDir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A folder loads with the processor configuration the processor package
// reads from it, and the modalities its config.json declares.
func TestLoadFolders(t *testing.T) {
	for _, tc := range []struct {
		dir, family, modelType string
	}{
		{"qwen2.5-vl", "qwen2.5-vl", vqwen.ModelQwen25VL},
		{"qwen3-vl", "qwen3-vl", vqwen.ModelQwen3VL},
	} {
		dir := filepath.Join(models, tc.dir)
		m := mustLoad(t, dir)
		if m.Family().Name() != tc.family || m.ModelType() != tc.modelType {
			t.Errorf("%s: family %s, model type %s", tc.dir, m.Family().Name(), m.ModelType())
		}
		if got := m.Modalities(); !reflect.DeepEqual(got, []vision.Modality{vision.Image, vision.Video}) {
			t.Errorf("%s: modalities %v", tc.dir, got)
		}
		cfg, err := vqwen.LoadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(cfg)
		if m.ProcessorKey() != string(want) {
			t.Errorf("%s: processor key %s\nwant %s", tc.dir, m.ProcessorKey(), want)
		}
		p, err := m.ImageProcessor(vision.ProcessorOptions{Workers: 1})
		if err != nil || p.ModelType() != tc.modelType {
			t.Fatalf("%s: image processor %v, %v", tc.dir, p, err)
		}
		if _, err := m.VideoProcessor(vision.ProcessorOptions{}); err != nil {
			t.Errorf("%s: video processor: %v", tc.dir, err)
		}
	}
}

// A preset plans exactly as the processor package's preset and has no
// tokens.
func TestPresets(t *testing.T) {
	for _, name := range []string{"qwen2-vl", "Qwen2.5-VL", "qwen3-vl"} {
		m := mustLoad(t, name)
		ref, err := vqwen.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.ImageProcessor(vision.ProcessorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err1 := p.PlanImage(1000, 700, vision.Overrides{})
		want, err2 := ref.PlanImage(1000, 700, vision.Overrides{})
		if err1 != nil || err2 != nil || got != want || m.ModelType() != ref.ModelType() {
			t.Errorf("%s: plan %+v (%v), want %+v (%v)", name, got, err1, want, err2)
		}
		if _, err := m.Specials(tokenizertest.Qwen3(t)); !errors.Is(err, vision.ErrUnsupported) {
			t.Errorf("%s: specials of a preset: %v", name, err)
		}
	}
}

// A folder matched by its architecture (an unlisted model_type) uses the
// family's processor; a config without media tokens takes no media and
// needs no processor configuration.
func TestArchitectureAndTextOnly(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(models, "qwen2.5-vl", "preprocessor_config.json"), filepath.Join(dir, "preprocessor_config.json"))
	writeFile(t, filepath.Join(dir, "config.json"), `{"model_type": "qwen2_5_vl_text", "architectures": ["Qwen2_5_VLForConditionalGeneration"], "image_token_id": 151655}`)
	m := mustLoad(t, dir)
	p, err := m.ImageProcessor(vision.ProcessorOptions{})
	if err != nil || m.Family().Name() != "qwen2.5-vl" || m.ModelType() != "qwen2_5_vl_text" || p.ModelType() != vqwen.ModelQwen25VL {
		t.Fatalf("matched by architecture: %s %s %v %v", m.Family().Name(), m.ModelType(), p, err)
	}
	if got := m.Modalities(); !reflect.DeepEqual(got, []vision.Modality{vision.Image}) {
		t.Errorf("modalities %v", got)
	}
	text := t.TempDir()
	writeFile(t, filepath.Join(text, "config.json"), `{"model_type": "qwen3_vl", "text_config": {"eos_token_id": 1}}`)
	m = mustLoad(t, text)
	if len(m.Modalities()) != 0 || m.ProcessorKey() != "" {
		t.Errorf("text only: modalities %v, key %q", m.Modalities(), m.ProcessorKey())
	}
	if _, err := m.ImageProcessor(vision.ProcessorOptions{}); !errors.Is(err, vision.ErrUnsupported) {
		t.Errorf("text only: image processor %v", err)
	}
	writeFile(t, filepath.Join(text, "config.json"), `{"model_type": "qwen3_vl", "image_token_id": 1}`)
	if _, err := registry().Load(text); !errors.Is(err, vision.ErrBadOptions) {
		t.Errorf("media tokens without preprocessor_config.json: %v", err)
	}
	writeFile(t, filepath.Join(text, "config.json"), `{"model_type": "qwen3_vl", "image_token_id": 1, "text_config": 5`)
	if _, err := registry().Load(text); !errors.Is(err, family.ErrBadConfig) {
		t.Errorf("truncated config.json: %v", err)
	}
}

func TestSpecials(t *testing.T) {
	m := mustLoad(t, filepath.Join(models, "qwen3-vl"))
	sp, err := m.Specials(tokenizertest.Qwen3(t))
	if err != nil {
		t.Fatal(err)
	}
	if sp.Pad[prompt.Image].Text != "<|image_pad|>" || sp.Pad[prompt.Video].Text != "<|video_pad|>" || sp.Start.Text != "<|vision_start|>" {
		t.Errorf("specials %+v", sp)
	}
	if ph, _ := sp.Placeholder(prompt.Video); ph != "<|vision_start|><|video_pad|><|vision_end|>" {
		t.Errorf("video anchor %q", ph)
	}
}

func TestExpansion(t *testing.T) {
	q25, q3 := mustLoad(t, "qwen2.5-vl"), mustLoad(t, "qwen3-vl")
	img := family.ImageItem(vision.Plan{GridT: 1, GridH: 8, GridW: 12, Tokens: 24})
	if e := q3.Expansion(img); !reflect.DeepEqual(e, prompt.Expansion{Tokens: 24}) {
		t.Errorf("image: %+v", e)
	}
	v25 := &vision.VideoPlan{Plan: vision.Plan{GridT: 3, GridH: 4, GridW: 6, Tokens: 18}, SecondPerGridTS: 1}
	if e := q25.Expansion(family.VideoItem(v25)); !reflect.DeepEqual(e, prompt.Expansion{Tokens: 18}) {
		t.Errorf("qwen2.5 video: %+v", e)
	}
	v3 := &vision.VideoPlan{Plan: vision.Plan{GridT: 2, GridH: 4, GridW: 6, Tokens: 12}, Timestamps: []float64{0.25, 1.75}}
	want := prompt.Expansion{Tokens: 12, Groups: []prompt.VideoGroup{{Seconds: 0.25, Tokens: 6}, {Seconds: 1.75, Tokens: 6}}, Lead: 1}
	if e := q3.Expansion(family.VideoItem(v3)); !reflect.DeepEqual(e, want) {
		t.Errorf("qwen3 video: %+v, want %+v", e, want)
	}
	if got := q3.Extras(img); !reflect.DeepEqual(got, []family.Field{{Key: "grid_thw", Value: []int64{1, 8, 12}}}) {
		t.Errorf("extras %v", got)
	}
}

func TestWire(t *testing.T) {
	q25, q3 := mustLoad(t, "qwen2.5-vl"), mustLoad(t, "qwen3-vl")
	img := q3.SideTensors(family.ImageItem(vision.Plan{GridT: 1, GridH: 2, GridW: 3}))
	if len(img) != 1 || img[0].Name != "image_grid_thw" || img[0].DType != tensor.Int64 || !reflect.DeepEqual(img[0].Shape, []int{1, 3}) ||
		string(img[0].Data) != string([]byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("image side tensors %+v", img)
	}
	v := &vision.VideoPlan{Plan: vision.Plan{GridT: 2, GridH: 2, GridW: 2}, SecondPerGridTS: 0.5}
	side := q25.SideTensors(family.VideoItem(v))
	if len(side) != 2 || side[0].Name != "video_grid_thw" || side[1].Name != "second_per_grid_ts" ||
		side[1].DType != tensor.Float32 || string(side[1].Data) != "\x00\x00\x00\x3f" {
		t.Errorf("qwen2.5 video side tensors %+v", side)
	}
	v.SecondPerGridTS = 0
	if side := q3.SideTensors(family.VideoItem(v)); len(side) != 1 {
		t.Errorf("qwen3 video side tensors %+v", side)
	}
	wantImage := family.Layout{Primary: "pixel_values", Sizes: "patches_per_image",
		Batched: []string{"image_grid_thw", "patches_per_image"}, KeepOnCPU: []string{"image_grid_thw"}}
	if got := q3.Layout(vision.Image); !reflect.DeepEqual(got, wantImage) {
		t.Errorf("image layout %+v", got)
	}
	if got := q25.Layout(vision.Video); got.Primary != "pixel_values_videos" || !reflect.DeepEqual(got.Batched, []string{"video_grid_thw", "patches_per_video", "second_per_grid_ts"}) {
		t.Errorf("qwen2.5 video layout %+v", got)
	}
	if got := q3.Layout(vision.Video); !reflect.DeepEqual(got.KeepOnCPU, []string{"video_grid_thw"}) || len(got.Batched) != 2 {
		t.Errorf("qwen3 video layout %+v", got)
	}
	if got := q3.Output(); got.ToolCallStart != "<tool_call>" || got.ThinkEnd != "</think>" {
		t.Errorf("output format %+v", got)
	}
}

func TestCheckReceived(t *testing.T) {
	m := mustLoad(t, filepath.Join(models, "qwen2.5-vl"))
	good := func() family.Received {
		return family.Received{
			Modality: vision.Video,
			Primary:  tensor.Tensor{DType: tensor.Float32, Shape: []int{2 * 4 * 6, 1176}},
			Side: []family.NamedTensor{family.GridTensor("video_grid_thw", [3]int64{2, 4, 6}),
				family.Float32Tensor("second_per_grid_ts", 1)},
			Tokens: 12,
		}
	}
	s, err := m.CheckReceived(good())
	if err != nil || s.Head != "grid 2x4x6" || !reflect.DeepEqual(s.Notes, []string{"second_per_grid_ts 1"}) {
		t.Fatalf("good item: %+v, %v", s, err)
	}
	for _, tc := range []struct {
		name string
		mod  func(r *family.Received)
		want string
	}{
		{"image grid on a video", func(r *family.Received) {
			r.Side = append(r.Side, family.GridTensor("image_grid_thw", [3]int64{1, 1, 1}))
		}, "must not carry image_grid_thw"},
		{"no grid", func(r *family.Received) { r.Side = r.Side[1:] }, "missing video_grid_thw"},
		{"zero grid", func(r *family.Received) { r.Side[0] = family.GridTensor("video_grid_thw", [3]int64{0, 4, 6}) }, "out of range"},
		{"float grid", func(r *family.Received) { r.Side[0].DType = tensor.Float32 }, "want int64"},
		{"int timestamps", func(r *family.Received) { r.Side[1].DType = tensor.Int64 }, "second_per_grid_ts must be float32"},
		{"3-d pixels", func(r *family.Received) { r.Primary.Shape = []int{1, 48, 1176} }, "is not [rows, cols]"},
		{"rows", func(r *family.Received) { r.Primary.Shape[0]-- }, "needs 48"},
		{"tokens", func(r *family.Received) { r.Tokens = 13 }, "13 placeholder tokens"},
	} {
		r := good()
		tc.mod(&r)
		if _, err := m.CheckReceived(r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Qwen3.5 / Qwen3.6 checkpoints (qwen3_5, qwen3_5_moe, or their
// architectures) are Qwen3-VL models: the same processor, configured as
// Qwen3-VL's, and the same prompt rules.
func TestQwen35(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "models", "qwen3.5")
	ref, err := vqwen.LoadFolder(filepath.Join(models, "qwen3-vl"), vqwen.ModelQwen3VL)
	if err != nil {
		t.Fatal(err)
	}
	moe := t.TempDir()
	for _, f := range []string{"preprocessor_config.json", "video_preprocessor_config.json"} {
		copyFile(t, filepath.Join(dir, f), filepath.Join(moe, f))
	}
	writeFile(t, filepath.Join(moe, "config.json"), `{"model_type": "qwen3_5_moe", "image_token_id": 248056, "video_token_id": 248057}`)
	byArch := t.TempDir()
	for _, f := range []string{"preprocessor_config.json", "video_preprocessor_config.json"} {
		copyFile(t, filepath.Join(dir, f), filepath.Join(byArch, f))
	}
	writeFile(t, filepath.Join(byArch, "config.json"), `{"model_type": "qwen3_5_custom", "architectures": ["Qwen3_5MoeForConditionalGeneration"], "image_token_id": 1}`)
	for _, tc := range []struct{ dir, modelType string }{{dir, "qwen3_5"}, {moe, "qwen3_5_moe"}, {byArch, "qwen3_5_custom"}} {
		m := mustLoad(t, tc.dir)
		if m.Family().Name() != "qwen3-vl" || m.ModelType() != tc.modelType {
			t.Errorf("%s: family %s, model type %s", tc.modelType, m.Family().Name(), m.ModelType())
		}
		p, err := m.ImageProcessor(vision.ProcessorOptions{Workers: 1})
		if err != nil || p.ModelType() != vqwen.ModelQwen3VL {
			t.Fatalf("%s: processor %v, %v", tc.modelType, p, err)
		}
		want, _ := json.Marshal(ref)
		if m.ProcessorKey() != string(want) {
			t.Errorf("%s: processor configuration %s\nwant Qwen3-VL's %s", tc.modelType, m.ProcessorKey(), want)
		}
		if got := m.Layout(vision.Video); !reflect.DeepEqual(got, family.GridLayout(vision.Video)) {
			t.Errorf("%s: video layout %+v", tc.modelType, got)
		}
	}
	if got := mustLoad(t, dir).Modalities(); !reflect.DeepEqual(got, []vision.Modality{vision.Image, vision.Video}) {
		t.Errorf("modalities %v", got)
	}
}
