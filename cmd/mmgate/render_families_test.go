package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family/familytest"
	"github.com/mmgate/mmgate/internal/testutil/fixture"
	"github.com/mmgate/mmgate/internal/tools/render"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// familyPrompts is cmd/mmgate/testdata/family_prompts.json, written by
// scripts/golden/family_prompts.py and family_prompt_ids.mjs.
type familyPrompts struct {
	Cases   []fixture.FamilyCase `json:"cases"`
	Results []struct {
		Name         string               `json:"name"`
		Prompt       string               `json:"prompt"`
		IDs          []uint32             `json:"ids"`
		Placeholders []render.Placeholder `json:"placeholders"`
	} `json:"results"`
}

// TestRenderFamilies renders each family's chat requests (one and two
// images, a system message, several turns, Gemma 3 with pan-and-scan,
// InternVL in authored order) with `mmgate render` on the fixture folders
// and compares the prompt, the input ids and the placeholder runs with the
// reference: jinja2 configured as transformers does, each processor's
// expansion, Hugging Face tokenizers without post-processor specials.
func TestRenderFamilies(t *testing.T) {
	var doc familyPrompts
	fixture.FamilyPrompts(t, &doc)
	if len(doc.Cases) != len(doc.Results) || len(doc.Cases) < 10 {
		t.Fatalf("%d cases, %d results", len(doc.Cases), len(doc.Results))
	}
	for i, c := range doc.Cases {
		want := doc.Results[i]
		t.Run(c.Name, func(t *testing.T) {
			dir := tokenizertest.ModelDir(t, c.Model)
			if c.Preprocessor != nil {
				familytest.Patch(t, dir, "preprocessor_config.json", c.Preprocessor)
			}
			var out, errb bytes.Buffer
			code := dispatch(context.Background(), &stdio{in: bytes.NewReader(c.Request), out: &out, err: &errb}, []string{"render", "--model", dir})
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
			}
			var got render.Output
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Prompt != want.Prompt {
				t.Errorf("prompt\n got %q\nwant %q", got.Prompt, want.Prompt)
			}
			if !reflect.DeepEqual(got.Placeholders, want.Placeholders) {
				t.Errorf("placeholders\n got %v\nwant %v", got.Placeholders, want.Placeholders)
			}
			if ids := widenRuns(want.IDs, want.Placeholders); !reflect.DeepEqual(got.InputIDs, ids) {
				t.Errorf("input_ids\n got %v\nwant %v", shortIDs(got.InputIDs), shortIDs(ids))
			}
		})
	}
}

// widenRuns widens the pad at each placeholder's offset to the run's
// length: the golden stores each run as one pad.
func widenRuns(ids []uint32, ph []render.Placeholder) []uint32 {
	var out []uint32
	k := 0
	for _, id := range ids {
		if k < len(ph) && len(out) == ph[k].Offset {
			for range ph[k].Length {
				out = append(out, id)
			}
			k++
			continue
		}
		out = append(out, id)
	}
	return out
}

// shortIDs prints long id lists with their pad runs counted.
func shortIDs(ids []uint32) string {
	var b strings.Builder
	for i := 0; i < len(ids); i++ {
		j := i
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		if j-i > 3 {
			fmt.Fprintf(&b, " %d×%d", ids[i], j-i)
			i = j - 1
			continue
		}
		fmt.Fprintf(&b, " %d", ids[i])
	}
	return b.String()
}
