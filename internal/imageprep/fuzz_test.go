package imageprep

import (
	"context"
	"testing"

	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
	"github.com/mmgate/mmgate/vision/qwenvl"
)

// FuzzImage feeds arbitrary bytes through the whole pipeline: it must never
// panic, every error must name its stage, and every success must fill a
// buffer of exactly the planned size whose plan agrees with the header plan.
func FuzzImage(f *testing.F) {
	d, err := media.New(media.Options{MaxPixels: 1 << 22})
	if err != nil {
		f.Fatal(err)
	}
	proc, err := qwenvl.Load("qwen2.5-vl")
	if err != nil {
		f.Fatal(err)
	}
	p, err := New(Options{Decoder: MediaDecoder(d), Processor: proc, Concurrency: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := vision.Overrides{MaxPixels: 200704}
		res, err := p.Image(context.Background(), Request{Data: data, Overrides: o, DType: tensor.BFloat16})
		if err != nil {
			if StageOf(err) == "" {
				t.Fatalf("error without a stage: %v", err)
			}
			return
		}
		if len(res.Data) != res.Plan.Bytes(tensor.BFloat16) || res.Plan.Rows != 4*res.Plan.Tokens {
			t.Fatalf("result %+v with %d bytes", res.Plan, len(res.Data))
		}
		if hp, err := p.Plan(data, o); err == nil && hp != res.Plan {
			t.Fatalf("header plan %+v, decoded plan %+v", hp, res.Plan)
		}
	})
}
