package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/testutil/fixture"
	"github.com/mmgate/mmgate/internal/tools/render"
)

// renderModelDir assembles a model folder from the prompt package's test
// models and the tokenizer package's Qwen3 tokenizer.json.gz.
func renderModelDir(t *testing.T, model string) string {
	t.Helper()
	return fixture.QwenModel(t, model)
}

// haveFFmpeg reports whether the video cases can run: render probes videos
// with the ffmpeg and ffprobe binaries.
func haveFFmpeg() bool {
	_, e1 := exec.LookPath("ffmpeg")
	_, e2 := exec.LookPath("ffprobe")
	return e1 == nil && e2 == nil
}

const skipNoFFmpeg = "ffmpeg/ffprobe not in PATH: video cases need them (apt-get install ffmpeg)"

// hasVideo reports whether a request carries a video part.
func (c renderCase) hasVideo() bool { return bytes.Contains(c.Request, []byte(`"video_url"`)) }

// clipURL is a data: URL of one of the media/video test clips.
func clipURL(t *testing.T, name, mime string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "media", "video", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}

type renderCase struct {
	Name    string          `json:"name"`
	Model   string          `json:"model"`
	Request json.RawMessage `json:"request"`
}

func readRenderCases(t *testing.T) ([]renderCase, map[string]render.Output) {
	t.Helper()
	var cases struct {
		Cases []renderCase `json:"cases"`
	}
	var golden struct {
		Results []struct {
			Name string `json:"name"`
			render.Output
		} `json:"results"`
	}
	for path, v := range map[string]any{"render_cases.json": &cases, "render_golden.json": &golden} {
		b, err := os.ReadFile(filepath.Join("..", "..", "prompt", "testdata", path))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]render.Output{}
	for _, r := range golden.Results {
		want[r.Name] = r.Output
	}
	if len(want) != len(cases.Cases) {
		t.Fatalf("%d golden results for %d cases", len(want), len(cases.Cases))
	}
	return cases.Cases, want
}

// TestRenderGolden compares render with the Python jinja2 + Hugging Face
// tokenizers reference (scripts/golden/prompt_reference.py, prompt_ids.mjs).
// Video cases carry the media/video test clips as data: URLs; their
// reference layouts come from the video reference's plans of those clips
// (internal/videoprep/testdata/golden.json) and the processors' expansion
// rules: a single run for Qwen2.5-VL, one timestamped group (and one
// placeholder range) per temporal group for Qwen3-VL.
func TestRenderGolden(t *testing.T) {
	cases, want := readRenderCases(t)
	models := map[string]*render.Model{}
	ffmpeg := haveFFmpeg()
	videos := 0
	for _, c := range cases {
		if c.hasVideo() {
			videos++
		}
		t.Run(c.Name, func(t *testing.T) {
			if c.hasVideo() && !ffmpeg {
				t.Skip(skipNoFFmpeg)
			}
			m := models[c.Model]
			if m == nil {
				var err error
				if m, err = render.Load(renderModelDir(t, c.Model), "media_first"); err != nil {
					t.Fatal(err)
				}
				models[c.Model] = m
			}
			got, err := m.Render(context.Background(), c.Request)
			if err != nil {
				t.Fatal(err)
			}
			w := want[c.Name]
			if got.Prompt != w.Prompt {
				t.Errorf("prompt\n got %q\nwant %q", got.Prompt, w.Prompt)
			}
			if !reflect.DeepEqual(got.InputIDs, w.InputIDs) {
				t.Errorf("input_ids\n got %v\nwant %v", got.InputIDs, w.InputIDs)
			}
			if !reflect.DeepEqual(got.Placeholders, w.Placeholders) {
				t.Errorf("placeholders\n got %v\nwant %v", got.Placeholders, w.Placeholders)
			}
		})
	}
	if videos == 0 {
		t.Error("no video cases in render_cases.json")
	}
}

func TestRenderCommand(t *testing.T) {
	dir := renderModelDir(t, "qwen3-vl")
	cases, want := readRenderCases(t)
	run := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runRender(context.Background(), &stdio{in: strings.NewReader(stdin), out: &out, err: &errb}, args)
		return code, out.String(), errb.String()
	}
	names := []string{"qwen3-vl/two-images-system-multiturn", "qwen3-vl/video-odd-frames"}
	if !haveFFmpeg() {
		names = names[:1]
		t.Log(skipNoFFmpeg)
	}
	for _, name := range names {
		var c renderCase
		for _, x := range cases {
			if x.Name == name {
				c = x
			}
		}
		code, out, _ := run(string(c.Request), "--model", dir)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, out)
		}
		var got render.Output
		if err := json.Unmarshal([]byte(out), &got); err != nil || !reflect.DeepEqual(got, want[c.Name]) || strings.Count(out, "\n") != 1 {
			t.Errorf("%s: output %q (err %v)", name, out, err)
		}
	}

	errorCases := []struct {
		name, body, substr string
	}{
		{"remote url", `{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}]}`, "fetching media is not enabled in render"},
		{"remote video url", `{"messages": [{"role": "user", "content": [{"type": "video_url", "video_url": {"url": "https://example.com/a.mp4"}}]}]}`, "fetching media is not enabled in render"},
		{"pad in text", `{"messages": [{"role": "user", "content": "<|image_pad|>"}]}`, "media placeholder token"},
		{"bad json", `{"messages": [`, "invalid JSON"},
		{"undecodable image", `{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "data:image/png;base64,AAAA"}]}]}`, "messages[0].content[0]"},
	}
	// The command itself (it loads the model each time, which is slow).
	code, out, _ := run(errorCases[0].body, "--model", dir)
	var e struct {
		Error string `json:"error"`
	}
	if code != 1 || json.Unmarshal([]byte(out), &e) != nil || !strings.Contains(e.Error, errorCases[0].substr) {
		t.Errorf("remote url: exit %d, output %q; want exit 1 and an error line", code, out)
	}
	m, err := render.Load(dir, "media_first")
	if err != nil {
		t.Fatal(err)
	}
	if haveFFmpeg() {
		one := clipURL(t, "one_frame.mp4", "video/mp4")
		three := clipURL(t, "three_frames.mp4", "video/mp4")
		errorCases = append(errorCases, []struct{ name, body, substr string }{
			{"undecodable video", `{"messages": [{"role": "user", "content": [{"type": "video_url", "video_url": {"url": "data:video/mp4;base64,AAAA"}}]}]}`, "messages[0].content[0]: videoprep: decode"},
			{"one-frame video", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "video_url", "video_url": "` + one + `"}]}]}`, "messages[0].content[1]: videoprep: plan"},
			{"fps and num_frames", `{"mm_processor_kwargs": {"fps": 2, "num_frames": 4}, "messages": [{"role": "user", "content": [{"type": "video_url", "video_url": "` + three + `"}]}]}`, "exclusive"},
		}...)
	} else {
		t.Log(skipNoFFmpeg)
	}
	for _, ec := range errorCases {
		if _, err := m.Render(context.Background(), []byte(ec.body)); err == nil || !strings.Contains(err.Error(), ec.substr) {
			t.Errorf("%s: err = %v; want an error containing %q", ec.name, err, ec.substr)
		}
	}
	if code, _, _ := run("{}"); code != 2 {
		t.Errorf("missing --model: exit %d, want 2", code)
	}
	if code, _, _ := run("{}", "--model", dir, "--media-order", "random"); code != 2 {
		t.Errorf("bad --media-order: exit %d, want 2", code)
	}
}
