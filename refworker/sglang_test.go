package refworker

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/sglang"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
	"github.com/mmgate/mmgate/shm"
)

func startSGLang(t *testing.T) (*env, sglangpb.SglangSchedulerClient) {
	t.Helper()
	e, conn := serve(t, func(o *Options) { o.Protocol = SGLang })
	return e, sglangpb.NewSglangSchedulerClient(conn)
}

type sglangResult struct {
	tokens   map[uint32][]uint32
	last     map[uint32][]uint32
	complete []*sglangpb.GenerateComplete
}

func sglangGenerate(t *testing.T, c sglangpb.SglangSchedulerClient, req *sglangpb.GenerateRequest) (*sglangResult, error) {
	t.Helper()
	st, err := c.Generate(context.Background(), req)
	if err != nil {
		return nil, err
	}
	r := &sglangResult{tokens: map[uint32][]uint32{}, last: map[uint32][]uint32{}}
	return r, drain(st, func(resp *sglangpb.GenerateResponse) {
		if ch := resp.GetChunk(); ch != nil {
			r.tokens[ch.GetIndex()] = append(r.tokens[ch.GetIndex()], ch.GetTokenIds()...)
			r.last[ch.GetIndex()] = ch.GetTokenIds()
			if int(ch.GetCompletionTokens()) != len(r.tokens[ch.GetIndex()]) {
				t.Errorf("chunk completion_tokens %d, streamed %d", ch.GetCompletionTokens(), len(r.tokens[ch.GetIndex()]))
			}
		}
		if done := resp.GetComplete(); done != nil {
			r.complete = append(r.complete, done)
		}
	})
}

// TestSGLangImages: the whole-batch item the gateway's SGLang encoder
// sends is divided into its images by the family's layout and described
// one by one, with a fingerprint of its encoded bytes; the stream's last step comes as a chunk and a complete;
// without stream, n completes all say index 0.
func TestSGLangImages(t *testing.T) {
	e, c := startSGLang(t)
	req, want := e.flatImages(t, shm.ModeInline, [2]int{4, 6}, [2]int{2, 2})
	req.Sampling.N = 2
	msg, err := sglang.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sglangGenerate(t, c, msg)
	if err != nil {
		t.Fatal(err)
	}
	text := tok.Decode(res.tokens[0], true)
	for k, grid := range []string{"grid 1x4x6", "grid 1x2x2"} {
		line := "image " + string(rune('1'+k)) + ": " + grid + ", float32 via inline, sha256 " + sha(want[k]) +
			", encoded 1 bytes, sha256 " + sha(req.Media[k].Raw) + "\n"
		if !strings.Contains(text, line) {
			t.Errorf("reply lacks %q:\n%s", line, text)
		}
	}
	for _, done := range res.complete {
		i := done.GetIndex()
		if int(done.GetCompletionTokens()) != len(res.tokens[i]) || len(done.GetOutputIds()) != 1 || done.GetOutputIds()[0] != res.last[i][0] || done.GetMatchedTokenId() == 0 {
			t.Errorf("complete %v", done)
		}
	}
	msg.Stream = false
	if res, err = sglangGenerate(t, c, msg); err != nil || len(res.complete) != 2 || res.complete[1].GetIndex() != 0 || len(res.complete[1].GetOutputIds()) < 10 {
		t.Errorf("non-streaming: %v %v", err, res)
	}
}

func TestSGLangRefusals(t *testing.T) {
	e, c := startSGLang(t)
	cases := []struct {
		name string
		mod  func(*sglangpb.GenerateRequest)
		want string
	}{
		{"top_p 0", func(r *sglangpb.GenerateRequest) { r.SamplingParams.TopP = 0 }, "top_p"},
		{"top_k 0", func(r *sglangpb.GenerateRequest) { r.SamplingParams.TopK = 0 }, "top_k"},
		{"repetition 0", func(r *sglangpb.GenerateRequest) { r.SamplingParams.RepetitionPenalty = 0 }, "repetition_penalty"},
		{"stop strings", func(r *sglangpb.GenerateRequest) { r.SamplingParams.Stop = []string{"x"} }, "stop strings"},
		{"no tokenized", func(r *sglangpb.GenerateRequest) { r.Tokenized = nil }, "tokenized"},
		{"no pixels", func(r *sglangpb.GenerateRequest) { r.MmInputs.PixelValues = nil }, "pixel_values"},
		{"uint32", func(r *sglangpb.GenerateRequest) { r.MmInputs.ModelSpecificTensors["image_grid_thw"].Dtype = "uint32" }, "read as float32"},
		{"runs", func(r *sglangpb.GenerateRequest) { r.MmInputs.MmPlaceholders = r.MmInputs.MmPlaceholders[:1] }, "placeholder runs"},
		{"raw", func(r *sglangpb.GenerateRequest) { r.MmInputs.ImageData = r.MmInputs.ImageData[:1] }, "raw images"},
		{"modalities", func(r *sglangpb.GenerateRequest) { r.MmInputs.Modalities = []string{"video"} }, "images only"},
	}
	for _, tc := range cases {
		req, _ := e.flatImages(t, shm.ModeInline, [2]int{4, 4}, [2]int{2, 2})
		msg, err := sglang.Encode(req)
		if err != nil {
			t.Fatal(err)
		}
		tc.mod(msg)
		if _, err := sglangGenerate(t, c, msg); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	si, err := c.GetServerInfo(context.Background(), &sglangpb.GetServerInfoRequest{})
	if err != nil || si.GetServerType() != "grpc" || si.GetSchedulerInfo().GetFields()["worker"].GetStringValue() != workerName {
		t.Errorf("server info %v %v", si, err)
	}
}
