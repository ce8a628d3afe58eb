package main

import (
	"context"
	"log/slog"
	"os/exec"
	"runtime"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/listen"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
)

// This file answers: what do the gateway and `serve --render-only` share?
// The media sources and decoders under the configured limits, and the HTTP
// listener with its graceful shutdown.

// serveMedia builds the image decoder, the fetcher (the fetch policy) and,
// when FFmpeg is installed, the video decoder.
func serveMedia(f *serveFlags, c *serveConfig, log *slog.Logger) (*media.Decoder, *fetch.Fetcher, *video.Decoder, error) {
	dec, err := media.New(media.Options{Background: &c.background, NoEXIF: f.noEXIF, MaxPixels: f.maxPixels})
	if err != nil {
		return nil, nil, nil, err
	}
	fetcher, err := fetch.New(fetch.Policy{
		AllowedHosts: f.allowHosts, AllowedCIDRs: c.cidrs, FileRoots: f.fileRoots,
		MaxBytes: int64(f.fetchMaxBytes), Timeout: f.fetchTimeout, MaxRedirects: zeroOff(f.fetchRedirects),
	}, fetch.Options{UserAgent: "mmgate/" + version})
	if err != nil {
		return nil, nil, nil, err
	}
	// Video needs FFmpeg; without it video parts are refused clearly.
	var vdec *video.Decoder
	if _, lerr := exec.LookPath("ffmpeg"); lerr == nil {
		if vdec, err = video.New(video.Options{MaxBytes: int64(f.videoBytes), MaxDuration: f.videoDuration, MaxFrames: f.videoFrames}); err != nil {
			fetcher.Close()
			return nil, nil, nil, err
		}
	} else {
		log.Warn("ffmpeg not found: video input is disabled")
	}
	return dec, fetcher, vdec, nil
}

// serveHTTP serves srv on --listen until ctx ends, then shuts down
// gracefully (server.Run) and runs stopped. announce runs once the
// listener is open.
func serveHTTP(ctx context.Context, f *serveFlags, c *serveConfig, srv *server.Server, log *slog.Logger, announce, stopped func()) error {
	// What start-up parsed and dropped (the model's tokenizer files: tens
	// of megabytes) is collected now rather than by the first collection
	// under load, whose mark phase takes a core from the requests.
	runtime.GC()

	lis, err := listen.Open(f.listen)
	if err != nil {
		return err
	}
	err = srv.Run(ctx, lis, server.RunOptions{
		TLS: c.httpTLS, ShutdownTimeout: f.shutdownTimeout,
		// Cut requests unwind once their Abort calls, which the engine
		// bounds, have returned.
		CutGrace: engine.DefaultAbortTimeout + 3*time.Second,
		Ready: func() {
			announce()
			if !media.Exact() {
				log.Warn("built without cgo: JPEG and lossy WebP pixels are not Pillow-exact")
			}
		},
	})
	if err != nil {
		return err
	}
	stopped()
	log.Info("stopped")
	return nil
}
