package refworker

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/vllm"
	commonpb "github.com/mmgate/mmgate/proto/common"
	vllmpb "github.com/mmgate/mmgate/proto/vllm"
	"github.com/mmgate/mmgate/shm"
)

func startVLLM(t *testing.T, mod func(*Options)) (*env, vllmpb.VllmEngineClient) {
	t.Helper()
	e, conn := serve(t, func(o *Options) {
		o.Protocol = VLLM
		if mod != nil {
			mod(o)
		}
	})
	return e, vllmpb.NewVllmEngineClient(conn)
}

// vllmResult is one vLLM Generate call: per choice the chunks' tokens, the
// last chunk and the complete.
type vllmResult struct {
	tokens   map[uint32][]uint32
	last     map[uint32][]uint32
	complete map[uint32]*vllmpb.GenerateComplete
}

func vllmGenerate(t *testing.T, c vllmpb.VllmEngineClient, req *vllmpb.GenerateRequest) (*vllmResult, error) {
	t.Helper()
	st, err := c.Generate(context.Background(), req)
	if err != nil {
		return nil, err
	}
	r := &vllmResult{tokens: map[uint32][]uint32{}, last: map[uint32][]uint32{}, complete: map[uint32]*vllmpb.GenerateComplete{}}
	return r, drain(st, func(resp *vllmpb.GenerateResponse) {
		if ch := resp.GetChunk(); ch != nil {
			if int(ch.GetCompletionTokens()) != len(ch.GetTokenIds()) {
				t.Errorf("chunk completion_tokens %d for %d tokens", ch.GetCompletionTokens(), len(ch.GetTokenIds()))
			}
			r.tokens[ch.GetIndex()] = append(r.tokens[ch.GetIndex()], ch.GetTokenIds()...)
			r.last[ch.GetIndex()] = ch.GetTokenIds()
		}
		if done := resp.GetComplete(); done != nil {
			r.complete[done.GetIndex()] = done
		}
	})
}

// TestVLLMImages: two images in one segment, as the gateway's vLLM encoder
// sends them, are split by the flat and batched keys and described one by
// one; the segment is gone after the read; the complete repeats the last
// step.
func TestVLLMImages(t *testing.T) {
	e, c := startVLLM(t, nil)
	for _, mode := range []shm.Mode{shm.ModeShm, shm.ModeInline} {
		req, want := e.flatImages(t, mode, [2]int{4, 6}, [2]int{2, 2})
		req.Sampling.N, req.Sampling.Logprobs, req.Sampling.TopLogprobs = 2, true, 2
		msg, err := vllm.Encode(req)
		if err != nil {
			t.Fatal(err)
		}
		res, err := vllmGenerate(t, c, msg)
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		text := tok.Decode(res.tokens[1], true)
		for k, grid := range []string{"grid 1x4x6", "grid 1x2x2"} {
			line := "image " + string(rune('1'+k)) + ": " + grid + ", float32 via " + mode.String() + ", sha256 " + sha(want[k])
			if !strings.Contains(text, line) {
				t.Errorf("%v: reply lacks %q:\n%s", mode, line, text)
			}
		}
		for i := uint32(0); i < 2; i++ {
			done := res.complete[i]
			if done.GetFinishReason() != "stop" || !slices.Equal(done.GetOutputIds(), res.last[i]) || len(done.GetOutputIds()) != 1 ||
				done.GetMatchedStop() != nil || len(done.GetOutputLogprobs().GetTopLogprobs()) != 1 {
				t.Errorf("choice %d complete %v, last step %v", i, done, res.last[i])
			}
		}
		if left, _ := os.ReadDir(e.dir); len(left) != 0 {
			t.Errorf("segments left: %v", left)
		}
	}
	// Without stream: one complete per sequence with every token.
	req, _ := e.flatImages(t, shm.ModeInline, [2]int{2, 2})
	req.Stream = false
	msg, _ := vllm.Encode(req)
	res, err := vllmGenerate(t, c, msg)
	if err != nil || len(res.tokens) != 0 || !strings.Contains(tok.Decode(res.complete[0].GetOutputIds(), true), "image 1: grid 1x2x2") {
		t.Errorf("non-streaming: %v %+v", err, res)
	}
}

// TestVLLMSharedFrame: structural ranges of adjacent items may share a
// token that is not a pad (vLLM's own ranges do where the tokenizer merges
// the text between two items); two items claiming one pad are refused.
func TestVLLMSharedFrame(t *testing.T) {
	e, c := startVLLM(t, nil)
	send := func(mod func(r []*vllmpb.PlaceholderRange)) error {
		req, _ := e.flatImages(t, shm.ModeInline, [2]int{2, 2}, [2]int{2, 2})
		msg, err := vllm.Encode(req)
		if err != nil {
			t.Fatal(err)
		}
		mod(msg.GetMmInputs().GetMmPlaceholders())
		_, err = vllmGenerate(t, c, msg)
		return err
	}
	// Prompt: ... <vision_start> pad <vision_end> <vision_start> pad <vision_end> ...
	if err := send(func(r []*vllmpb.PlaceholderRange) {
		r[0].Length += 2 // through the second item's <vision_start>
		r[1].Offset, r[1].Length = r[1].Offset-1, r[1].Length+1
	}); err != nil {
		t.Errorf("ranges sharing a frame token: %v", err)
	}
	if err := send(func(r []*vllmpb.PlaceholderRange) { r[1].Offset = r[0].Offset }); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("two items on one pad: %v", err)
	}
}

// TestVLLMRefusals: the servicer's rules.
func TestVLLMRefusals(t *testing.T) {
	e, c := startVLLM(t, nil)
	cases := []struct {
		name string
		mod  func(*vllmpb.MultimodalInputs)
		code codes.Code
		want string
	}{
		{"no pixel_values", func(mm *vllmpb.MultimodalInputs) { mm.PixelValues = nil }, codes.InvalidArgument, "without pixel_values"},
		{"dtype", func(mm *vllmpb.MultimodalInputs) { mm.GetModelSpecificTensors()["image_grid_thw"].Dtype = "int32" }, codes.InvalidArgument, "Unsupported proto tensor dtype"},
		{"missing sizes", func(mm *vllmpb.MultimodalInputs) { delete(mm.GetModelSpecificTensors(), "patches_per_image") }, codes.Internal, "KeyError"},
		{"sizes sum", func(mm *vllmpb.MultimodalInputs) { mm.GetModelSpecificTensors()["patches_per_image"].GetInline()[0]++ }, codes.Internal, "add up"},
		{"batched rows", func(mm *vllmpb.MultimodalInputs) { mm.MmPlaceholders = mm.MmPlaceholders[:1] }, codes.InvalidArgument, "one row per item"},
		{"no items", func(mm *vllmpb.MultimodalInputs) { mm.MmPlaceholders = nil }, codes.InvalidArgument, "no items"},
		{"hashes", func(mm *vllmpb.MultimodalInputs) { mm.MmHashes = []string{"h", "h"} }, codes.InvalidArgument, "different pixels"},
		{"range", func(mm *vllmpb.MultimodalInputs) { mm.MmPlaceholders[1].Offset = 1 << 20 }, codes.InvalidArgument, "outside"},
		// A structural range may hold other tokens; only the pads count.
		{"pads", func(mm *vllmpb.MultimodalInputs) { mm.MmPlaceholders[1].Offset-- }, codes.InvalidArgument, "placeholder tokens"},
	}
	for _, tc := range cases {
		req, _ := e.flatImages(t, shm.ModeInline, [2]int{4, 4}, [2]int{2, 2})
		msg, err := vllm.Encode(req)
		if err != nil {
			t.Fatal(err)
		}
		tc.mod(msg.GetMmInputs())
		if _, err := vllmGenerate(t, c, msg); status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %v %q", tc.name, err, tc.code, tc.want)
		}
	}
	// A pixel tensor refused for its dtype is never opened: its segment
	// stays for the gateway to remove.
	req, _ := e.flatImages(t, shm.ModeShm, [2]int{8, 8})
	msg, _ := vllm.Encode(req)
	if msg.GetMmInputs().GetPixelValues().GetShm() == nil {
		t.Fatal("pixels not in shared memory")
	}
	msg.GetMmInputs().GetPixelValues().Dtype = "bfloat16"
	if _, err := vllmGenerate(t, c, msg); status.Code(err) != codes.InvalidArgument {
		t.Errorf("bfloat16 pixels: %v", err)
	}
	if left, _ := os.ReadDir(e.dir); len(left) != 1 {
		t.Errorf("segments after a dtype refusal: %v", left)
	}
}

func TestVLLMInfo(t *testing.T) {
	e, c := startVLLM(t, func(o *Options) { o.ServedModelName = "demo" })
	ctx := context.Background()
	mi, err := c.GetModelInfo(ctx, &vllmpb.GetModelInfoRequest{})
	if err != nil || mi.GetServedModelName() != "demo" || mi.GetModelType() != "qwen3_vl" || !mi.GetSupportsVision() || mi.GetMaxContextLength() != 262144 {
		t.Errorf("model info %v %v", mi, err)
	}
	si, err := c.GetServerInfo(ctx, &vllmpb.GetServerInfoRequest{})
	if err != nil || si.GetShmNamespaceId() != e.pool.NamespaceID() || si.GetServerType() != "" {
		t.Errorf("server info %v %v", si, err)
	}
	if _, err := c.Abort(ctx, &vllmpb.AbortRequest{RequestIds: []string{"none"}}); err != nil {
		t.Error(err)
	}
	st, err := c.GetTokenizer(ctx, &commonpb.GetTokenizerRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := st.Recv(); err != nil || len(ch.GetData()) == 0 {
		t.Errorf("tokenizer %v", err)
	}
}
