package pipeline

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
	"time"

	"github.com/mmgate/mmgate/engine"
	engines "github.com/mmgate/mmgate/engine/builtin"
	families "github.com/mmgate/mmgate/family/builtin"
	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/imageprep"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/refworker/refworkertest"
	"github.com/mmgate/mmgate/shm"
)

// This file measures render against the chat path's front half, on the
// demo model (Qwen3-VL) with a reference worker in this process:
//
//	go test -run XXX -bench FrontHalf ./internal/pipeline
//
// render-* run the render API (fetch, hash, read the image header, render
// and tokenize); chat-* run the gateway's front half for the same request
// (fetch, hash, decode, resize, normalize and patchify into shared memory,
// render and tokenize), its segments released after each request. No
// tensor cache: every image is processed from its bytes.

// benchGateway is a Pipeline on the demo model with one in-process worker.
func benchGateway(b *testing.B) *Pipeline {
	b.Helper()
	dir, err := demomodel.Materialize(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	shmDir := b.TempDir()
	pool, err := shm.New(shm.Options{Dir: shmDir, Budget: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pool.Close() })
	url := refworkertest.Start(b, dir, shmDir, nil)
	eng, err := engine.New(engine.Options{Protocols: engines.Protocols(), Workers: []engine.WorkerConfig{{URL: url}}, Pool: pool})
	if err != nil {
		b.Fatal(err)
	}
	if err := eng.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for !eng.Ready() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	dec, err := media.New(media.Options{})
	if err != nil {
		b.Fatal(err)
	}
	fetcher, err := fetch.New(fetch.Policy{}, fetch.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fetcher.Close() })
	p, err := New(Options{Engine: eng, Pool: pool, Fetcher: fetcher, Decoder: imageprep.ScratchDecoder(dec), Families: families.New(), ModelDir: dir, CacheBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// benchJPEG is a w×h JPEG of smooth gradients as a data: URL.
func benchJPEG(b *testing.B, w, h int) string {
	b.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x / 5), uint8(y / 4), uint8((x + y) / 9), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

func BenchmarkFrontHalf(b *testing.B) {
	p := benchGateway(b)
	model := p.Models()[0].ID
	bodies := map[string]string{
		"image-1280x960": fmt.Sprintf(`{"model": %q, "max_tokens": 1, "return_mm_kwargs": false, "messages": [{"role": "user", "content": [
			{"type": "image_url", "image_url": {"url": %q}}, {"type": "text", "text": "Describe this image."}]}]}`, model, benchJPEG(b, 1280, 960)),
		"text": fmt.Sprintf(`{"model": %q, "max_tokens": 1, "messages": [{"role": "system", "content": "You are a helpful assistant."},
			{"role": "user", "content": "Write a short poem about the sea, in four lines, without rhymes."}]}`, model),
	}
	ctx := context.Background()
	for _, name := range []string{"image-1280x960", "text"} {
		req, err := openai.ParseChat([]byte(bodies[name]))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("render-"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := p.RenderChat(ctx, req, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("chat-"+name, func(b *testing.B) {
			for b.Loop() {
				st := &gatewayStage{p: p, rid: "bench", times: &stageTimes{}}
				if _, err := p.front.chat(ctx, req, st); err != nil {
					b.Fatal(err)
				}
				st.release()
			}
		})
	}
}
