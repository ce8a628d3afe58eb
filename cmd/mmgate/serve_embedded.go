package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mmgate/mmgate/refworker"
)

// embeddedFlags are settings of the embedded worker beyond serveFlags.
type embeddedFlags struct {
	keepShm  bool
	protocol string
}

// registerEmbedded adds the embedded worker's own flags to serve's set.
func (e *embeddedFlags) registerEmbedded(fs *flag.FlagSet) {
	fs.BoolVar(&e.keepShm, "embedded-keep-shm", true,
		"the embedded worker keeps shared-memory segments after reading them and advertises it, so the gateway refills the same segments instead of creating one per tensor; false: it unlinks each segment after reading (always so with --embedded-protocol vllm, whose protocol cannot advertise it)")
	fs.StringVar(&e.protocol, "embedded-protocol", refworker.TokenSpeed, "the embedded worker's gRPC protocol: "+strings.Join(refworker.Protocols(), "|"))
}

// validate checks the embedded worker's flags.
func (e *embeddedFlags) validate() error {
	if !slices.Contains(refworker.Protocols(), e.protocol) {
		return fmt.Errorf("--embedded-protocol %q: want %s", e.protocol, strings.Join(refworker.Protocols(), ", "))
	}
	return nil
}

// embeddedWorker is a reference worker running in this process.
type embeddedWorker struct {
	url  string
	stop func()
	// prune drops the worker's kept mappings of segments that were removed
	// (shm.Reader.Prune).
	prune func()
}

// startEmbeddedWorkerWith runs a reference worker inside this process on a unix
// socket under dir, sharing the gateway's shared-memory directory.
//
// The worker serves --embedded-protocol. With TokenSpeed it keeps the
// segments it reads (the gateway's pool owns them and refills them; see
// shm.Route.Reuse) unless --embedded-keep-shm=false; with the other
// protocols, which cannot advertise that, it unlinks them as their real
// servicers do.
func startEmbeddedWorkerWith(ctx context.Context, modelDir, dir string, f *serveFlags, ef embeddedFlags, heavy func(context.Context, func()) error, log *slog.Logger) (*embeddedWorker, error) {
	sock := filepath.Join(dir, "worker.sock")
	keep := ef.keepShm && ef.protocol == refworker.TokenSpeed
	w := workerFlags{
		protocol: ef.protocol, model: modelDir, listen: "unix://" + sock, fingerprint: f.embeddedFP, shmDir: f.shmDir,
		maxMessageSize: int(f.maxMessageSize), keepShm: keep, encode: heavy,
	}
	srv, reader, err := w.build(log.With("component", "embedded-worker"))
	if err != nil {
		return nil, err
	}
	lis, err := listen(w.listen)
	if err != nil {
		reader.Close()
		return nil, err
	}
	g, err := w.grpcServer()
	if err != nil {
		reader.Close()
		lis.Close()
		return nil, err
	}
	srv.Register(g)
	go g.Serve(lis)
	log.Info("embedded reference worker started", "protocol", srv.Protocol(), "socket", sock, "model", modelDir, "served_model_name", srv.ServedModelName(), "fingerprint", f.embeddedFP, "keep_shm", keep)
	stop := func() {
		done := make(chan struct{})
		go func() { g.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			g.Stop()
		}
		reader.Close()
	}
	return &embeddedWorker{url: "unix://" + sock, stop: stop, prune: reader.Prune}, nil
}

// printCurlExample writes a small sample picture into dir and prints, on
// stderr, a curl command that sends it to the gateway.
func printCurlExample(s *stdio, listenAddr, dir string, https bool) {
	path := filepath.Join(dir, "sample.jpg")
	if err := writeSample(path); err != nil {
		return
	}
	host := listenAddr
	if strings.HasPrefix(host, "0.0.0.0:") || strings.HasPrefix(host, ":") {
		host = "127.0.0.1:" + host[strings.LastIndexByte(host, ':')+1:]
	}
	scheme := "http"
	if https {
		scheme = "https"
	}
	fmt.Fprintf(s.err, `
mmgate is serving the demo model with its embedded reference worker. Try:

  curl -s %s://%s/v1/chat/completions -H 'Content-Type: application/json' \
    -d '{"model": "qwen3-vl", "max_tokens": 200, "messages": [{"role": "user", "content": [
          {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,'"$(base64 -w0 %s)"'"}},
          {"type": "text", "text": "Describe this image."}]}]}'

The worker answers with what it received: the image's grid, dtype, transport (inline or
shm) and a fingerprint of its pixel_values, which `+"`mmgate preprocess --model qwen3-vl --dtype bfloat16 --hash %s`"+` reproduces.

`, scheme, host, path, path)
}

// writeSample draws a 320×240 picture (colour bars over a gradient) as JPEG.
func writeSample(path string) error {
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	bars := []color.RGBA{{230, 60, 50, 255}, {250, 190, 40, 255}, {70, 170, 80, 255}, {40, 120, 220, 255}, {140, 70, 200, 255}}
	for y := 0; y < 240; y++ {
		for x := 0; x < 320; x++ {
			c := color.RGBA{uint8(x * 255 / 319), uint8(y * 255 / 239), 128, 255}
			if y > 60 && y < 180 {
				c = bars[x*len(bars)/320]
			}
			img.Set(x, y, c)
		}
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := jpeg.Encode(out, img, &jpeg.Options{Quality: 90}); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
