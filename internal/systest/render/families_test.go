package render

import (
	"reflect"
	"testing"

	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/internal/testutil/fixture"
	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// familyGoldens is the part of the family prompt references
// (fixture.FamilyPrompts) these tests read: per case the
// request, the input ids with each pad run stored as one pad, and the
// images' spans as vLLM's render finds them.
type familyGoldens struct {
	Cases   []fixture.FamilyCase `json:"cases"`
	Results []struct {
		IDs          []uint32          `json:"ids"`
		Placeholders []span            `json:"placeholders"`
		MM           map[string][]span `json:"mm_placeholders"`
	} `json:"results"`
}

// TestFamilyRenderSpans renders every family's golden chat requests
// through the render API of `mmgate serve --render-only` and compares the
// token ids and features.mm_placeholders with the reference: each image's
// replacement found as vLLM finds it (Gemma 3's newline runs read as their
// parts, so a span may start at a merged newline token).
func TestFamilyRenderSpans(t *testing.T) {
	var g familyGoldens
	fixture.FamilyPrompts(t, &g)
	if len(g.Results) != len(g.Cases) {
		t.Fatalf("%d results for %d cases", len(g.Results), len(g.Cases))
	}
	for i, c := range g.Cases {
		want := g.Results[i]
		t.Run(c.Name, func(t *testing.T) {
			if len(want.MM["image"]) == 0 {
				t.Fatal("the golden has no spans")
			}
			dir := tokenizertest.ModelDir(t, c.Model)
			if c.Preprocessor != nil {
				familytest.Patch(t, dir, "preprocessor_config.json", c.Preprocessor)
			}
			url, _ := procs.Gateway(t, binary, t.TempDir(), "--render-only", "--model", dir, "--served-model-name", c.Model, "--api-key", apiKey)
			var got generateRequest
			if err := newRenderClient(url, "Bearer "+apiKey).render(ctxT(t), "/v1/chat/completions/render", c.Request, &got); err != nil {
				t.Fatal(err)
			}
			if ids := widen(want.IDs, want.Placeholders); !reflect.DeepEqual(got.TokenIDs, ids) {
				t.Errorf("token_ids differ from the reference (%d ids, want %d)", len(got.TokenIDs), len(ids))
			}
			if got.Features == nil || !reflect.DeepEqual(got.Features.MMPlaceholders, want.MM) {
				t.Errorf("mm_placeholders\n got %+v\nwant %v", got.Features, want.MM)
			}
		})
	}
}

// widen widens the pad at each run's offset to the run's length.
func widen(ids []uint32, runs []span) []uint32 {
	var out []uint32
	k := 0
	for _, id := range ids {
		n := 1
		if k < len(runs) && len(out) == runs[k].Offset {
			n = runs[k].Length
			k++
		}
		for range n {
			out = append(out, id)
		}
	}
	return out
}
