package internvl

import (
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// <IMG_CONTEXT> is the anchor and the pad; it becomes <img> + one run of
// 256 per patch + </img>, framed as one structural range.
func TestModel(t *testing.T) {
	m, sp, plan := familytest.Planned(t, "internvl3", "internvl", 2560, 1600, New())
	want := [3]prompt.Token{{ID: 151667, Text: "<IMG_CONTEXT>"}, {ID: 151665, Text: "<img>"}, {ID: 151666, Text: "</img>"}}
	if ph, _ := sp.Placeholder(prompt.Image); [3]prompt.Token{sp.Pad[prompt.Image], sp.Start, sp.End} != want || ph != "<IMG_CONTEXT>" {
		t.Errorf("specials %+v", sp)
	}
	it := family.ImageItem(plan)
	e := m.Expansion(it)
	if !reflect.DeepEqual(e, prompt.Expansion{Tokens: 7 * 256, Text: "<img><IMG_CONTEXT></img>", Runs: []int{7 * 256}, Frame: true}) {
		t.Errorf("expansion %+v", e)
	}
	familytest.Wire(t, m, it, []family.Field{{Key: "num_patches", Value: 7}}, nil,
		family.Layout{Primary: "pixel_values", Sizes: "image_num_patches", Batched: []string{"image_num_patches"}})
}

func TestCheckReceived(t *testing.T) {
	m, _, _ := familytest.Load(t, "internvl3", New())
	good := func() family.Received {
		return family.Received{Modality: vision.Image, Tokens: 7 * 256, Primary: tensor.Tensor{DType: tensor.BFloat16, Shape: []int{7, 3, 448, 448}}}
	}
	familytest.CheckReceived(t, m, good, "shape 7x3x448x448", []string{"num_patches 7"}, []familytest.Broken{
		{"two patches", func(r *family.Received) { r.Primary.Shape[0] = 2; r.Tokens = 512 }, "not a tiling"},
		{"fourteen patches", func(r *family.Received) { r.Primary.Shape[0] = 14; r.Tokens = 14 * 256 }, "not a tiling"},
		{"tile size", func(r *family.Received) { r.Primary.Shape[2] = 384 }, "want [7 3 448 448]"},
		{"tokens", func(r *family.Received) { r.Tokens = 256 }, "256 placeholder tokens"},
	})
	familytest.Sizes(t, m, good, "image_num_patches", 7)
}

// The structural range is <img> … </img>.
func TestStructural(t *testing.T) {
	m, dir, tok := familytest.Load(t, "internvl3", New())
	ids, st := familytest.Structural(t, dir, m, 900, 500)
	first, last := tok.Decode(ids[st.Offset:st.Offset+1], false), tok.Decode(ids[st.Offset+st.Length-1:st.Offset+st.Length], false)
	if first != "<img>" || last != "</img>" || st.Length != 2+256*3 {
		t.Errorf("structural range %+v: %q … %q", st, first, last)
	}
}
