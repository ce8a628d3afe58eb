package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/listen"
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

// serveEmbedded starts the embedded worker when asked (on the demo model
// unless --model is given) and adds it to the workers. It returns the
// model folder and the function that stops the worker.
func serveEmbedded(f *serveFlags, c *serveConfig, tmp string, heavy *cpupool.Pool, log *slog.Logger) (string, func(), error) {
	modelDir := f.model
	if !f.embedded {
		return modelDir, func() {}, nil
	}
	if modelDir == "" {
		var err error
		if modelDir, err = demomodel.Materialize(tmp); err != nil {
			return "", nil, err
		}
	}
	stop, url, err := startEmbeddedWorker(modelDir, tmp, f, heavyRunner(heavy), log)
	if err != nil {
		return "", nil, fmt.Errorf("embedded worker: %w", err)
	}
	w := c.worker
	w.URL, w.TLS = url, nil
	c.workers = append(c.workers, w)
	return modelDir, stop, nil
}

// startEmbeddedWorker runs a reference worker inside this process on a unix
// socket under dir, sharing the gateway's shared-memory directory. It
// returns a stop function and the worker's URL.
//
// The worker serves --embedded-protocol. With TokenSpeed it keeps the
// segments it reads (the gateway's pool owns them and refills them; see
// shm.Route.Reuse) unless --embedded-keep-shm=false; with the other
// protocols, which cannot advertise that, it unlinks them as their real
// servicers do.
func startEmbeddedWorker(modelDir, dir string, f *serveFlags, heavy func(context.Context, func()) error, log *slog.Logger) (func(), string, error) {
	sock := filepath.Join(dir, "worker.sock")
	keep := f.embeddedFlags.keepShm && f.embeddedFlags.protocol == refworker.TokenSpeed
	w, err := refworker.Open(refworker.ProcessOptions{
		Options: refworker.Options{Protocol: f.embeddedFlags.protocol, ModelDir: modelDir, Fingerprint: refworker.Fingerprint(f.embeddedFP),
			Encode: heavy, Version: "mmgate-" + version, Logger: log.With("component", "embedded-worker")},
		ShmDir: f.shmDir, KeepShm: keep, MaxMessageSize: int(f.maxMessageSize),
	})
	if err != nil {
		return nil, "", err
	}
	lis, err := listen.Open("unix://" + sock)
	if err != nil {
		w.Stop(0)
		return nil, "", err
	}
	go w.Serve(lis)
	log.Info("embedded reference worker started", "protocol", w.Protocol(), "socket", sock, "model", modelDir, "served_model_name", w.ServedModelName(), "fingerprint", f.embeddedFP, "keep_shm", keep)
	return func() { w.Stop(5 * time.Second) }, "unix://" + sock, nil
}
