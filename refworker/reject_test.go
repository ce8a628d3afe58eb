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
