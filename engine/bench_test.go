package engine

import (
	"context"
	"strconv"
	"testing"

	"github.com/mmgate/mmgate/engine/builtin"
	"github.com/mmgate/mmgate/vision"
)

func BenchmarkPick(b *testing.B) {
	dir := b.TempDir()
	pool := newPool(b, dir, nil)
	a := startWorker(b, "tcp", dir, nil).url
	c := startWorker(b, "unix", dir, nil).url
	e, err := New(Options{Protocols: builtin.Protocols(), Workers: []WorkerConfig{{URL: a}, {URL: c}}, Pool: pool})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	need := []vision.Modality{vision.Image}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Pick(model, need, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate measures one small multimodal Generate round trip over
// loopback TCP, with the encoder input inline or in shared memory.
func BenchmarkGenerate(b *testing.B) {
	for _, minBytes := range []int{0, -1} {
		name := "inline"
		if minBytes < 0 {
			name = "shm"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			pool := newPool(b, dir, nil)
			url := startWorker(b, "tcp", dir, nil).url
			e, err := New(Options{Protocols: builtin.Protocols(), Workers: []WorkerConfig{{URL: url, ShmMinBytes: minBytes}}, Pool: pool})
			if err != nil {
				b.Fatal(err)
			}
			if err := e.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			w, err := e.Pick(model, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				rid := "b" + strconv.Itoa(i)
				batch := pool.NewBatch(context.Background(), rid)
				req, _ := imageRequest(b, rid, w, batch, 4, 4, true)
				s, err := e.Generate(context.Background(), w, req, batch)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := s.Recv(); err != nil {
						break
					}
				}
				s.Close()
			}
		})
	}
}
