package glm4v

import (
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// The stand-in tokenizer holds GLM's tokens at other ids than config.json
// says: every id comes from the tokenizer, by text.
func TestSpecials(t *testing.T) {
	m, _, tok := familytest.Load(t, "glm-4.1v", New())
	if m.Family().Name() != "glm4v" || m.ModelType() != "glm4v" ||
		!reflect.DeepEqual(m.Modalities(), []vision.Modality{vision.Image, vision.Video}) || m.Output().ThinkStart != "<think>" {
		t.Errorf("model %s %s %v", m.Family().Name(), m.ModelType(), m.Modalities())
	}
	sp, err := m.Specials(tok)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got  prompt.Token
		text string
		id   uint32
	}{{sp.Pad[prompt.Image], "<|image|>", 151682}, {sp.Pad[prompt.Video], "<|video|>", 151683},
		{sp.Start, "<|begin_of_image|>", 151678}, {sp.End, "<|end_of_image|>", 151679}} {
		if c.got != (prompt.Token{ID: c.id, Text: c.text}) {
			t.Errorf("%s: %+v, want id %d", c.text, c.got, c.id)
		}
	}
	img, _ := sp.Placeholder(prompt.Image)
	vid, _ := sp.Placeholder(prompt.Video)
	if img != "<|begin_of_image|><|image|><|end_of_image|>" || vid != "<|begin_of_video|><|video|><|end_of_video|>" || len(sp.Reserved) != 6 {
		t.Errorf("anchors %q %q, reserved %v", img, vid, sp.Reserved)
	}
}

// An image keeps its anchor and widens its pad; a video is replaced by its
// temporal groups, with the video token as their pad, framed as one range.
func TestExpansionAndWire(t *testing.T) {
	m, _, _ := familytest.Load(t, "glm-4.1v", New())
	img := family.ImageItem(vision.Plan{GridT: 1, GridH: 20, GridW: 30, Tokens: 150})
	if e := m.Expansion(img); !reflect.DeepEqual(e, prompt.Expansion{Tokens: 150}) {
		t.Errorf("image expansion %+v", e)
	}
	v := &vision.VideoPlan{Plan: vision.Plan{GridT: 2, GridH: 4, GridW: 6, Tokens: 12}, Indices: []int{0, 12, 24, 36}, SourceFPS: 12}
	e := m.Expansion(family.VideoItem(v))
	want := "<|begin_of_video|><|begin_of_image|><|video|><|end_of_image|>0<|begin_of_image|><|video|><|end_of_image|>2<|end_of_video|>"
	if e.Text != want || !reflect.DeepEqual(e.Runs, []int{6, 6}) || !e.Frame || e.Tokens != 12 {
		t.Errorf("video expansion %+v", e)
	}
	if got := m.Extras(img); !reflect.DeepEqual(got, []family.Field{{Key: "grid_thw", Value: []int64{1, 20, 30}}}) {
		t.Errorf("extras %v", got)
	}
	if side := m.SideTensors(family.VideoItem(v)); len(side) != 1 || side[0].Name != "video_grid_thw" {
		t.Errorf("video side %+v", side)
	}
	if !reflect.DeepEqual(m.Layout(vision.Video), family.GridLayout(vision.Video)) {
		t.Errorf("video layout %+v", m.Layout(vision.Video))
	}
	if _, err := m.VideoProcessor(vision.ProcessorOptions{Workers: 1}); err != nil {
		t.Error(err)
	}
}

func TestCheckReceived(t *testing.T) {
	m, _, _ := familytest.Load(t, "glm-4.1v", New())
	good := func() family.Received {
		return family.Received{Modality: vision.Image, Tokens: 150, Side: []family.NamedTensor{family.GridTensor("image_grid_thw", [3]int64{1, 20, 30})},
			Primary: tensor.Tensor{DType: tensor.BFloat16, Shape: []int{600, 1176}}}
	}
	familytest.CheckReceived(t, m, good, "grid 1x20x30", nil, []familytest.Broken{
		{"rows", func(r *family.Received) { r.Primary.Shape[0] = 599 }, "needs 600"},
		{"tokens", func(r *family.Received) { r.Tokens = 149 }, "149 placeholder tokens"},
		{"video grid", func(r *family.Received) { r.Modality = vision.Video }, "must not carry image_grid_thw"},
	})
}
