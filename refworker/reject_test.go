package refworker

import (
	"os"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// TestRejectEvery: every third call fails with INVALID_ARGUMENT before any
// output, its shm segment is still released, and the others answer.
func TestRejectEvery(t *testing.T) {
	e := start(t, func(o *Options) { o.RejectEvery = 3 })
	var codesSeen []codes.Code
	for i := 0; i < 6; i++ {
		it, _ := e.imageItem(t, 2, 2, tensor.Float32, shm.ModeShm, byte(i))
		ids, ranges := promptWith(1)
		it.Placeholders = ranges
		r, err := e.generate(t, &schedulerpb.GenerateRequest{
			RequestId: "r" + string(rune('a'+i)), Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
			MmInputs: &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{it}},
		})
		codesSeen = append(codesSeen, status.Code(err))
		if err == nil && len(r.complete) != 1 {
			t.Errorf("call %d: %d completions", i, len(r.complete))
		}
		if left, _ := os.ReadDir(e.dir); len(left) != 0 {
			t.Errorf("call %d: segments left: %v", i, left)
		}
	}
	want := []codes.Code{codes.OK, codes.OK, codes.InvalidArgument, codes.OK, codes.OK, codes.InvalidArgument}
	for i := range want {
		if codesSeen[i] != want[i] {
			t.Fatalf("codes %v, want %v", codesSeen, want)
		}
	}
	if _, err := New(Options{ModelDir: "testdata/qwen3-vl", Tokenizer: byteTok{}, Reader: e.srv.reader, RejectEvery: -1}); err == nil {
		t.Error("negative RejectEvery accepted")
	}
}

// TestLimits: over-large top_logprobs_num or n are refused before any work.
func TestLimits(t *testing.T) {
	e := start(t, nil)
	ids, _ := promptWith()
	for _, c := range []struct {
		name string
		req  *schedulerpb.GenerateRequest
		ok   bool
	}{
		{"top 20", &schedulerpb.GenerateRequest{TopLogprobsNum: 20, ReturnLogprob: true}, true},
		{"top 21", &schedulerpb.GenerateRequest{TopLogprobsNum: 21, ReturnLogprob: true}, false},
		{"top 1e9", &schedulerpb.GenerateRequest{TopLogprobsNum: 1e9, ReturnLogprob: true}, false},
		{"top -1", &schedulerpb.GenerateRequest{TopLogprobsNum: -1}, false},
		{"n 256", &schedulerpb.GenerateRequest{SamplingParams: &schedulerpb.SamplingParams{N: 256, MaxNewTokens: ptr(uint32(2))}}, true},
		{"n 1e9", &schedulerpb.GenerateRequest{SamplingParams: &schedulerpb.SamplingParams{N: 1e9}}, false},
	} {
		c.req.RequestId = c.name
		c.req.Tokenized = &schedulerpb.TokenizedInput{InputIds: ids}
		_, err := e.generate(t, c.req)
		if c.ok != (err == nil) || (!c.ok && status.Code(err) != codes.InvalidArgument) {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
