package refworker

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// TestEncodeRunner checks Options.Encode: the tensors of a request with media
// are read (and fingerprinted, in pieces, to the digest of the whole) through
// it, a text-only request does not wait for it, and a request it refuses
// fails with UNAVAILABLE and leaves no segment behind.
func TestEncodeRunner(t *testing.T) {
	var calls atomic.Int32
	refuse := atomic.Bool{}
	e := start(t, func(o *Options) {
		o.Encode = func(ctx context.Context, f func()) error {
			calls.Add(1)
			if refuse.Load() {
				return errors.New("pool closed")
			}
			f()
			return nil
		}
	})
	ids, ranges := promptWith(64)
	// 256 rows of 1536 float32 values: 1.5 MiB, several hashing pieces.
	it, want := e.imageItem(t, 16, 16, tensor.Float32, shm.ModeShm, 3)
	it.Placeholders = ranges
	req := &schedulerpb.GenerateRequest{
		RequestId: "img", Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
		MmInputs: &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{it}},
	}
	res, err := e.generate(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if text := tok.Decode(res.complete[0].GetOutputIds(), true); !strings.Contains(text, "sha256 "+sha(want)+"\n") {
		t.Errorf("reply lacks the whole tensor's digest:\n%s", text)
	}
	if calls.Load() != 1 {
		t.Errorf("Encode ran %d times for one request with an image", calls.Load())
	}

	text := &schedulerpb.GenerateRequest{RequestId: "txt", Tokenized: &schedulerpb.TokenizedInput{InputIds: []uint32{1, 2, 3}}}
	if _, err := e.generate(t, text); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Error("a text-only request went through Encode")
	}

	refuse.Store(true)
	it, _ = e.imageItem(t, 16, 16, tensor.Float32, shm.ModeShm, 5)
	it.Placeholders = ranges
	req.RequestId, req.MmInputs.Items = "refused", []*schedulerpb.MultimodalItem{it}
	if _, err := e.generate(t, req); status.Code(err) != codes.Unavailable {
		t.Errorf("refused by Encode: err = %v, want UNAVAILABLE", err)
	}
	if left, _ := os.ReadDir(e.dir); len(left) != 0 {
		t.Errorf("segments left behind: %v", left)
	}
}
