package prompt_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tokenizer"
)

// videoGolden is internal/videoprep/testdata/golden.json: the video
// reference's plans of the media/video test clips.
type videoGolden struct {
	Overrides map[string]map[string]float64 `json:"overrides"`
	Files     []struct {
		File  string `json:"file"`
		Cases []struct {
			Model      string    `json:"model"`
			Override   string    `json:"override"`
			GridTHW    []int     `json:"grid_thw"`
			Timestamps []float64 `json:"timestamps"`
			Error      string    `json:"error"`
		} `json:"cases"`
	} `json:"files"`
}

// videoExpansionFor finds the reference plan of the clip in a data: URL for
// model and the request's video settings, and lays it out with
// prompt.VideoExpansion.
func videoExpansionFor(t *testing.T, g *videoGolden, url, model string, kwargs map[string]float64, merge int) prompt.Expansion {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(url[strings.Index(url, ",")+1:])
	if err != nil {
		t.Fatal(err)
	}
	override := ""
	for name, o := range g.Overrides {
		if reflect.DeepEqual(o, kwargs) || len(o) == 0 && len(kwargs) == 0 {
			override = name
		}
	}
	for _, f := range g.Files {
		b, err := os.ReadFile(filepath.Join("..", "media", "video", "testdata", f.File))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, data) {
			continue
		}
		for _, c := range f.Cases {
			if c.Model == model && c.Override == override && c.Error == "" {
				return prompt.VideoExpansion(c.Timestamps, c.GridTHW[0], c.GridTHW[1], c.GridTHW[2], merge)
			}
		}
	}
	t.Fatalf("no video reference plan for %s (override %q)", model, override)
	return prompt.Expansion{}
}

// TestVideoRenderGolden renders the video cases of render_cases.json with
// the real templates and tokenizer, the video reference's plans
// (internal/videoprep/testdata/golden.json) laid out by VideoExpansion, and
// the image counts of the Python reference, and compares the ids and pad
// runs with render_golden.json (jinja2 + the processors' expansion + Hugging
// Face tokenizers). It needs no FFmpeg: cmd/mmgate's render test covers the
// probe and plan.
func TestVideoRenderGolden(t *testing.T) {
	var cases struct {
		Cases []struct {
			Name    string          `json:"name"`
			Model   string          `json:"model"`
			Request json.RawMessage `json:"request"`
		} `json:"cases"`
	}
	var texts struct {
		Results []struct {
			Name        string `json:"name"`
			ImageTokens []int  `json:"image_tokens"`
		} `json:"results"`
	}
	var golden struct {
		Results []struct {
			Name         string   `json:"name"`
			Prompt       string   `json:"prompt"`
			InputIDs     []uint32 `json:"input_ids"`
			Placeholders []struct {
				Modality       string
				Offset, Length int
			} `json:"placeholders"`
		} `json:"results"`
	}
	var vg videoGolden
	for path, v := range map[string]any{
		filepath.Join("testdata", "render_cases.json"):                          &cases,
		filepath.Join("testdata", "render_texts.json"):                          &texts,
		filepath.Join("testdata", "render_golden.json"):                         &golden,
		filepath.Join("..", "internal", "videoprep", "testdata", "golden.json"): &vg,
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	tok, err := tokenizer.Load(filepath.Join("..", "tokenizer", "testdata", "qwen3", "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, c := range cases.Cases {
		if !bytes.Contains(c.Request, []byte(`"video_url"`)) {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			if texts.Results[i].Name != c.Name || golden.Results[i].Name != c.Name {
				t.Fatalf("render_texts.json / render_golden.json out of step with render_cases.json at %d", i)
			}
			dir := filepath.Join("testdata", "models", c.Model)
			set, err := chattemplate.Load(dir, chattemplate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
			if err != nil {
				t.Fatal(err)
			}
			sp, err := prompt.ReadSpecials(cfg, tok)
			if err != nil {
				t.Fatal(err)
			}
			var pre struct {
				MergeSize int `json:"merge_size"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "preprocessor_config.json"))
			if err != nil || json.Unmarshal(b, &pre) != nil {
				t.Fatalf("preprocessor_config.json: %v", err)
			}
			var kw struct {
				Kwargs map[string]float64 `json:"mm_processor_kwargs"`
			}
			if err := json.Unmarshal(c.Request, &kw); err != nil {
				t.Fatal(err)
			}
			req, err := openai.ParseChat(c.Request)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := set.Select(req.Tools != nil)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := prompt.Build(req, prompt.Options{Specials: sp, MediaOrder: openai.MediaFirst,
				StringContent: !tmpl.IteratesContentParts(), EnableVideo: true})
			if err != nil {
				t.Fatal(err)
			}
			images := texts.Results[i].ImageTokens
			exp := make([]prompt.Expansion, len(plan.Media))
			for k, it := range plan.Media {
				if it.Modality == prompt.Video {
					exp[k] = videoExpansionFor(t, &vg, it.URL, c.Model, kw.Kwargs, pre.MergeSize)
					continue
				}
				exp[k] = prompt.Expansion{Tokens: images[0]}
				images = images[1:]
			}
			res, err := prompt.Render(tmpl, tok, sp, plan, exp)
			if err != nil {
				t.Fatal(err)
			}
			w := golden.Results[i]
			if res.Text != w.Prompt {
				t.Errorf("prompt\n got %q\nwant %q", res.Text, w.Prompt)
			}
			if !reflect.DeepEqual(res.IDs, w.InputIDs) {
				t.Errorf("input_ids\n got %v\nwant %v", res.IDs, w.InputIDs)
			}
			if len(res.Placeholders) != len(w.Placeholders) {
				t.Fatalf("%d placeholders, want %d", len(res.Placeholders), len(w.Placeholders))
			}
			for k, p := range res.Placeholders {
				if q := w.Placeholders[k]; p.Modality.String() != q.Modality || p.Offset != q.Offset || p.Length != q.Length {
					t.Errorf("placeholder %d = %s@%d+%d, want %s@%d+%d", k, p.Modality, p.Offset, p.Length, q.Modality, q.Offset, q.Length)
				}
			}
		})
	}
	if n == 0 {
		t.Error("no video cases in render_cases.json")
	}
}
