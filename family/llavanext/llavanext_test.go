package llavanext

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// <image> is one run of the processor's token count; image_sizes travels
// as int64 [1, 2] and is printed by `mmgate preprocess`.
func TestModel(t *testing.T) {
	m, sp, plan := familytest.Planned(t, "llava-next", "llava-next", 1000, 600, New())
	if m.ModelType() != "llava_next" || sp.Pad[prompt.Image] != (prompt.Token{ID: 32000, Text: "<image>"}) {
		t.Errorf("model type %s, specials %+v", m.ModelType(), sp)
	}
	it := family.ImageItem(plan)
	if e := m.Expansion(it); !reflect.DeepEqual(e, prompt.Expansion{Tokens: plan.Tokens}) || plan.Tokens <= 576 {
		t.Errorf("expansion %+v (plan %+v)", e, plan)
	}
	familytest.Wire(t, m, it, []family.Field{{Key: "image_sizes", Value: [][2]int{{600, 1000}}}}, []string{"image_sizes"},
		family.Layout{Primary: "pixel_values", Batched: []string{"image_sizes"}})
	side := m.SideTensors(it)[0]
	if hw, err := family.ReadInt64s(side.Tensor, 2); err != nil || hw[0] != 600 || hw[1] != 1000 || !reflect.DeepEqual(side.Shape, []int{1, 2}) {
		t.Errorf("image_sizes %v %v, %v", side.Shape, hw, err)
	}
}

// The worker plans the image from image_sizes: pixels and tokens must be
// that plan's.
func TestCheckReceived(t *testing.T) {
	m, _, plan := familytest.Planned(t, "llava-next", "llava-next", 1000, 600, New())
	good := func() family.Received {
		return family.Received{Modality: vision.Image, Tokens: plan.Tokens, Side: m.SideTensors(family.ImageItem(plan)),
			Primary: tensor.Tensor{DType: tensor.Float32, Shape: plan.Shape()}}
	}
	familytest.CheckReceived(t, m, good, "shape 1x5x3x336x336", []string{"image_sizes 600x1000"}, []familytest.Broken{
		{"no sizes", func(r *family.Received) { r.Side = nil }, "missing image_sizes"},
		{"float sizes", func(r *family.Received) { r.Side[0].DType = tensor.Float32 }, "want 2 int64 values"},
		{"zero size", func(r *family.Received) { r.Side[0] = family.Int64Tensor("image_sizes", []int{1, 2}, 0, 5) }, "out of range"},
		{"other size", func(r *family.Received) { r.Side[0] = family.Int64Tensor("image_sizes", []int{1, 2}, 600, 300) }, "encoder_input shape"},
		{"tokens", func(r *family.Received) { r.Tokens-- }, "placeholder tokens"},
		{"extra side", func(r *family.Received) { r.Side = append(r.Side, family.GridTensor("g", [3]int64{1, 1, 1})) }, "unexpected side tensor g"},
	})
}

// A batched input padded to a larger item's tiles (as the gateway stacks
// LLaVA-NeXT images for vLLM and SGLang) is the item's own pixels followed
// by zeros: those are the item, the worker fingerprints them alone; any
// other padding is refused.
func TestCheckReceivedPadded(t *testing.T) {
	m, _, plan := familytest.Planned(t, "llava-next", "llava-next", 1000, 600, New())
	want := plan.Shape() // 1x5x3x336x336
	own, err := tensor.ByteSize(tensor.Float32, want)
	if err != nil {
		t.Fatal(err)
	}
	padded := append([]int{1, want[1] + 2}, want[2:]...)
	data := make([]byte, own/want[1]*padded[1])
	for i := range own {
		data[i] = 1
	}
	r := family.Received{Modality: vision.Image, Tokens: plan.Tokens, Side: m.SideTensors(family.ImageItem(plan)),
		Primary: tensor.Tensor{DType: tensor.Float32, Shape: padded, Data: data}}
	s, err := m.CheckReceived(r)
	if err != nil || s.Head != "shape 1x5x3x336x336" || s.Unpadded != own || !reflect.DeepEqual(s.Notes, []string{"image_sizes 600x1000", "padded to 7 tiles"}) {
		t.Errorf("padded: %+v, %v", s, err)
	}
	if s, err := m.CheckReceived(family.Received{Modality: vision.Image, Tokens: plan.Tokens, Side: r.Side,
		Primary: tensor.Tensor{DType: tensor.Float32, Shape: want, Data: data[:own]}}); err != nil || s.Unpadded != 0 {
		t.Errorf("unpadded: %+v, %v", s, err)
	}
	data[len(data)-1] = 1
	if _, err := m.CheckReceived(r); err == nil || !strings.Contains(err.Error(), "non-zero") {
		t.Errorf("non-zero padding: %v", err)
	}
}
