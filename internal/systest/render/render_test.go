package render

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

// generateRequest is the part of a render answer these tests read.
type generateRequest struct {
	RequestID string   `json:"request_id"`
	TokenIDs  []uint32 `json:"token_ids"`
	Features  *struct {
		MMHashes       map[string][]string `json:"mm_hashes"`
		MMPlaceholders map[string][]span   `json:"mm_placeholders"`
		KwargsData     json.RawMessage     `json:"kwargs_data"`
		MMMetadata     json.RawMessage     `json:"mm_metadata"`
	} `json:"features"`
	SamplingParams map[string]json.RawMessage `json:"sampling_params"`
	Model          *string                    `json:"model"`
	Stream         bool                       `json:"stream"`
	StreamOptions  json.RawMessage            `json:"stream_options"`
	CacheSalt      *string                    `json:"cache_salt"`
	Priority       int64                      `json:"priority"`
}

type span struct {
	Offset int `json:"offset"`
	Length int `json:"length"`
}

// maxTokens is sampling_params.max_tokens (vLLM leaves out its default, 16).
func (g *generateRequest) maxTokens(t *testing.T) int {
	t.Helper()
	raw, ok := g.SamplingParams["max_tokens"]
	if !ok {
		return 16
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("max_tokens %s", raw)
	}
	return n
}

type renderCase struct {
	Name    string          `json:"name"`
	Model   string          `json:"model"`
	Request json.RawMessage `json:"request"`
}

// goldens are the prompt references: cases, their input ids, and vLLM's
// spans of their media items (or vLLM's failure).
type goldens struct {
	cases []renderCase
	ids   map[string][]uint32
	spans map[string]map[string][]span
	fails map[string]string
}

// refIDs is a reference prompt's input ids (render_golden.json).
type refIDs struct {
	Name     string   `json:"name"`
	InputIDs []uint32 `json:"input_ids"`
}

// refSpans is vLLM's spans of a case's media, or its failure
// (vllm_placeholders.json).
type refSpans struct {
	Name           string            `json:"name"`
	MMPlaceholders map[string][]span `json:"mm_placeholders"`
	Error          string            `json:"error"`
}

func readGoldens(t *testing.T) goldens {
	t.Helper()
	var cases struct {
		Cases []renderCase `json:"cases"`
	}
	var golden struct {
		Results []refIDs `json:"results"`
	}
	var ranges struct {
		Cases []refSpans `json:"cases"`
	}
	readJSON(t, filepath.Join(root, "prompt", "testdata", "render_cases.json"), &cases)
	readJSON(t, filepath.Join(root, "prompt", "testdata", "render_golden.json"), &golden)
	readJSON(t, filepath.Join("testdata", "vllm_placeholders.json"), &ranges)
	g := goldens{cases: cases.Cases, ids: map[string][]uint32{}, spans: map[string]map[string][]span{}, fails: map[string]string{}}
	for _, r := range golden.Results {
		g.ids[r.Name] = r.InputIDs
	}
	for _, r := range ranges.Cases {
		if r.Error != "" {
			g.fails[r.Name] = r.Error
		} else {
			g.spans[r.Name] = r.MMPlaceholders
		}
	}
	if len(g.ids) != len(g.cases) || len(g.spans)+len(g.fails) != len(g.cases) {
		t.Fatalf("goldens out of step: %d cases, %d id lists, %d span sets", len(g.cases), len(g.ids), len(g.spans)+len(g.fails))
	}
	return g
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// dataURL matches a media part's data: URL in a request.
var dataURL = regexp.MustCompile(`"(image|video)_url"\s*:\s*(?:\{\s*"url"\s*:\s*)?"data:[^;,"]*;base64,([^"]*)"`)

// wantHashes are the mm_hashes of a request's media per modality (the hex
// BLAKE3 digest of each item's bytes: the cache key vLLM workers are sent
// under default processing), in the order the request gives them
// (media_first moves media before text within a message, never past each
// other). A request with mm_processor_kwargs gets keys that also name its
// settings: keyedHashes checks those.
func wantHashes(t *testing.T, body []byte) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, m := range dataURL.FindAllSubmatch(body, -1) {
		b, err := base64.StdEncoding.DecodeString(string(m[2]))
		if err != nil {
			t.Fatal(err)
		}
		h := blake3.Sum256(b)
		out[string(m[1])] = append(out[string(m[1])], hex.EncodeToString(h[:]))
	}
	return out
}

// TestChatRenderGoldens renders every prompt reference case through
// `serve --render-only`, as llm-d's token producer sends it: token ids
// equal to the reference renderer's, media spans equal to vLLM's (pad runs
// for images and Qwen2.5-VL videos; for a Qwen3-VL video from its first
// "<t seconds>" to its last <|vision_end|>), hashes equal to the cache keys
// the gateway sends vLLM workers for the items' bytes, kwargs_data and mm_metadata null,
// features null without media, and a one-token budget whatever the prompt.
func TestChatRenderGoldens(t *testing.T) {
	g := readGoldens(t)
	clients := map[string]*renderClient{}
	for _, c := range g.cases {
		if clients[c.Model] == nil {
			clients[c.Model] = newRenderClient(renderOnly(t, c.Model), "Bearer "+apiKey)
		}
	}
	ffmpeg := haveFFmpeg()
	for _, c := range g.cases {
		t.Run(c.Name, func(t *testing.T) {
			if bytes.Contains(c.Request, []byte(`"video_url"`)) && !ffmpeg {
				t.Skip("ffmpeg/ffprobe not in PATH: video cases need them")
			}
			cl := clients[c.Model]
			var got generateRequest
			err := cl.render(ctxT(t), "/v1/chat/completions/render", c.Request, &got)
			if msg, fails := g.fails[c.Name]; fails {
				var se *statusError
				if !errors.As(err, &se) || se.Status != 400 || !bytes.Contains(se.Body, []byte("vLLM would not find its placeholder")) {
					t.Fatalf("vLLM fails this case (%s); got %v", msg, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			hashes := wantHashes(t, c.Request)
			if bytes.Contains(c.Request, []byte(`"mm_processor_kwargs"`)) && got.Features != nil {
				keyedHashes(t, got.Features.MMHashes, hashes)
				hashes = got.Features.MMHashes
			}
			checkRendered(t, &got, g.ids[c.Name], g.spans[c.Name], hashes)
		})
	}
}

// keyedHashes checks the mm_hashes of a request that changes the
// processing: one per item, lower-case hex digests, none equal to the
// plain digest of its bytes (a key names one encoder input).
func keyedHashes(t *testing.T, got, plain map[string][]string) {
	t.Helper()
	for m, hs := range plain {
		if len(got[m]) != len(hs) {
			t.Fatalf("%s mm_hashes %v, want %d", m, got[m], len(hs))
		}
		for i, h := range got[m] {
			if b, err := hex.DecodeString(h); err != nil || len(b) != 32 || h != strings.ToLower(h) || h == hs[i] {
				t.Errorf("%s item %d: mm_hash %q, want a 32-byte hex key other than the bytes' digest %s", m, i, h, hs[i])
			}
		}
	}
}

// checkRendered compares a chat render with its references.
func checkRendered(t *testing.T, got *generateRequest, ids []uint32, spans map[string][]span, hashes map[string][]string) {
	t.Helper()
	if !reflect.DeepEqual(got.TokenIDs, ids) {
		t.Errorf("token_ids\n got %v\nwant %v", got.TokenIDs, ids)
	}
	if !strings.HasPrefix(got.RequestID, "chatcmpl-") {
		t.Errorf("request_id %q", got.RequestID)
	}
	if n := got.maxTokens(t); n != 1 {
		t.Errorf("max_tokens %d, want the render budget 1", n)
	}
	if len(spans) == 0 {
		if got.Features != nil {
			t.Errorf("features %+v for a prompt without media, want null", got.Features)
		}
		return
	}
	f := got.Features
	if f == nil {
		t.Fatal("features null for a prompt with media")
	}
	if !reflect.DeepEqual(f.MMPlaceholders, spans) {
		t.Errorf("mm_placeholders\n got %v\nwant %v", f.MMPlaceholders, spans)
	}
	if !reflect.DeepEqual(f.MMHashes, hashes) {
		t.Errorf("mm_hashes\n got %v\nwant %v", f.MMHashes, hashes)
	}
	if string(f.KwargsData) != "null" || string(f.MMMetadata) != "null" {
		t.Errorf("kwargs_data %s, mm_metadata %s: want null", f.KwargsData, f.MMMetadata)
	}
}
