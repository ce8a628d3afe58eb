package gemma3

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	vgemma "github.com/mmgate/mmgate/vision/gemma3"
)

// The fixture folder loads with the processor configuration
// vision/gemma3 reads from it; tokens come from the tokenizer by text.
func TestLoad(t *testing.T) {
	m, dir, tok := familytest.Load(t, "gemma3", New())
	cfg, err := vgemma.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := json.Marshal(cfg)
	if m.Family().Name() != "gemma3" || m.ModelType() != "gemma3" || m.ProcessorKey() != string(key) ||
		!reflect.DeepEqual(m.Modalities(), []vision.Modality{vision.Image}) || m.Output() != (family.OutputFormat{}) {
		t.Errorf("model %s %s %v %+v", m.Family().Name(), m.ModelType(), m.Modalities(), m.Output())
	}
	if _, err := m.VideoProcessor(vision.ProcessorOptions{}); err == nil {
		t.Error("Gemma 3 has a video processor")
	}
	sp, err := m.Specials(tok)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint32{"<image_soft_token>": 262144, "<start_of_image>": 255999, "<end_of_image>": 256000}
	if sp.Pad[prompt.Image].ID != want["<image_soft_token>"] || sp.Start.ID != want["<start_of_image>"] || sp.End.ID != want["<end_of_image>"] {
		t.Errorf("specials %+v", sp)
	}
	if ph, _ := sp.Placeholder(prompt.Image); ph != "<start_of_image>" || len(sp.Reserved) != 3 {
		t.Errorf("anchor %q, reserved %v", ph, sp.Reserved)
	}
}

// The expansion is the processor's (one view; with pan-and-scan on, the
// crops' text and runs), framed as one structural range.
func TestExpansion(t *testing.T) {
	m, dir, _ := familytest.Load(t, "gemma3", New())
	familytest.Patch(t, dir, "preprocessor_config.json", map[string]any{"do_pan_and_scan": true})
	pas, err := family.NewRegistry(New()).Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m     family.Model
		w, h  int
		crops int
		lead  string
	}{{m, 1600, 500, 0, "\n\n<start_of_image><image_soft_token>"}, {pas, 1600, 500, 3, "Here is the original image \n\n<start_of_image>"}} {
		p, err := tc.m.ImageProcessor(vision.ProcessorOptions{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.PlanImage(tc.w, tc.h, vision.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		e := tc.m.Expansion(family.ImageItem(plan))
		text, runs := p.(*vgemma.Processor).Expansion(plan)
		if e.Text != text || !reflect.DeepEqual(e.Runs, runs) || !e.Frame || e.Tokens != 256*(1+tc.crops) || !strings.HasPrefix(e.Text, tc.lead) {
			t.Errorf("%d crops: expansion %+v", tc.crops, e)
		}
		familytest.Wire(t, tc.m, family.ImageItem(plan), []family.Field{{Key: "num_crops", Value: tc.crops}}, nil,
			family.Layout{Primary: "pixel_values", Sizes: "num_patches", Batched: []string{"num_patches"}})
	}
}

func TestCheckReceived(t *testing.T) {
	m, _, _ := familytest.Load(t, "gemma3", New())
	good := func() family.Received {
		return family.Received{Modality: vision.Image, Tokens: 3 * 256,
			Primary: tensor.Tensor{DType: tensor.BFloat16, Shape: []int{3, 3, 896, 896}}}
	}
	familytest.CheckReceived(t, m, good, "shape 3x3x896x896", []string{"num_crops 2"}, []familytest.Broken{
		{"video", func(r *family.Received) { r.Modality = vision.Video }, "images only"},
		{"too many views", func(r *family.Received) { r.Primary.Shape[0] = 6; r.Tokens = 6 * 256 }, "not [1 + crops"},
		{"flat pixels", func(r *family.Received) { r.Primary.Shape = []int{3 * 256, 1176} }, "not [1 + crops"},
		{"size", func(r *family.Received) { r.Primary.Shape[3] = 448 }, "want [3 3 896 896]"},
		{"tokens", func(r *family.Received) { r.Tokens = 767 }, "767 placeholder tokens"},
		{"side tensor", func(r *family.Received) {
			r.Side = []family.NamedTensor{family.GridTensor("image_grid_thw", [3]int64{1, 2, 2})}
		}, "unexpected side tensor"},
	})
	familytest.Sizes(t, m, good, "num_patches", 3)
}

// The structural range is the whole replacement, as vLLM places it: from
// the token holding the "\n\n" before <start_of_image> (here "\n\n\n",
// merged with the template's newline, which vLLM maps back to that token)
// to the "\n\n" after <end_of_image>.
func TestStructural(t *testing.T) {
	m, dir, tok := familytest.Load(t, "gemma3", New())
	ids, st := familytest.Structural(t, dir, m, 640, 480)
	lead := tok.Decode(ids[st.Offset:st.Offset+1], false)
	rest := tok.Decode(ids[st.Offset+1:st.Offset+st.Length], false)
	want := "<start_of_image>" + strings.Repeat("<image_soft_token>", 256) + "<end_of_image>\n\n"
	if !strings.HasSuffix(lead, "\n\n") || rest != want || st.Length != 256+4 {
		t.Errorf("structural range %+v: %q then %q", st, lead, rest)
	}
}
