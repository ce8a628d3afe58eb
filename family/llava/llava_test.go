package llava

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/clip"
)

// The fixture folder loads with the CLIP configuration vision/clip reads;
// <image> is its own anchor and one run of 576 pads; pixels travel batched
// with no side tensors.
func TestModel(t *testing.T) {
	m, sp, plan := familytest.Planned(t, "llava-1.5", "llava", 640, 480, New())
	cfg, err := clip.LoadConfig(familytest.Fixture(t, "llava-1.5"))
	if err != nil {
		t.Fatal(err)
	}
	if key, _ := json.Marshal(cfg); m.ModelType() != "llava" || m.ProcessorKey() != string(key) {
		t.Errorf("model type %s, processor key %s", m.ModelType(), m.ProcessorKey())
	}
	if ph, _ := sp.Placeholder(prompt.Image); sp.Pad[prompt.Image] != (prompt.Token{ID: 32000, Text: "<image>"}) || ph != "<image>" || sp.Start.Text != "" {
		t.Errorf("specials %+v", sp)
	}
	it := family.ImageItem(plan)
	if e := m.Expansion(it); !reflect.DeepEqual(e, prompt.Expansion{Tokens: 576}) {
		t.Errorf("expansion %+v", e)
	}
	familytest.Wire(t, m, it, nil, nil, family.Layout{Primary: "pixel_values"})
}

func TestCheckReceived(t *testing.T) {
	m, _, _ := familytest.Load(t, "llava-1.5", New())
	good := func() family.Received {
		return family.Received{Modality: vision.Image, Tokens: 576, Primary: tensor.Tensor{DType: tensor.Float16, Shape: []int{1, 3, 336, 336}}}
	}
	familytest.CheckReceived(t, m, good, "shape 1x3x336x336", nil, []familytest.Broken{
		{"crop", func(r *family.Received) { r.Primary.Shape[2] = 224 }, "want [1 3 336 336]"},
		{"batch", func(r *family.Received) { r.Primary.Shape[0] = 2 }, "want [1 3 336 336]"},
		{"tokens", func(r *family.Received) { r.Tokens = 577 }, "577 placeholder tokens"},
		{"side", func(r *family.Received) {
			r.Side = []family.NamedTensor{family.Int64Tensor("image_sizes", []int{1, 2}, 3, 4)}
		}, "unexpected side tensor"},
	})
}
