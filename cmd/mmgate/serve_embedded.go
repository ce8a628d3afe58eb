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
	"github.com/mmgate/mmgate/shm"
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
// model folder, the function that drops the worker's kept mappings of
// removed segments (nil without an embedded worker; shm.Reader.Prune) and
// the one that stops the worker.
func serveEmbedded(f *serveFlags, c *serveConfig, tmp string, heavy *cpupool.Pool, log *slog.Logger) (string, func(), func(), error) {
	modelDir := f.model
	if !f.embedded {
		return modelDir, nil, func() {}, nil
	}
	if modelDir == "" {
		var err error
		if modelDir, err = demomodel.Materialize(tmp); err != nil {
			return "", nil, nil, err
		}
	}
	w, err := startEmbeddedWorker(modelDir, tmp, f, heavyRunner(heavy), log)
	if err != nil {
		return "", nil, nil, fmt.Errorf("embedded worker: %w", err)
	}
	wc := c.worker
	wc.URL, wc.TLS = w.url, nil
	c.workers = append(c.workers, wc)
	return modelDir, w.reader.Prune, w.stop, nil
}

// embeddedWorker is a reference worker running in this process, with the
// shared-memory reader it reads through (this process's own, so that the
// gateway's pool can have it drop mappings of segments it removed).
type embeddedWorker struct {
	url    string
	reader *shm.Reader
	stop   func()
}

// startEmbeddedWorker runs a reference worker inside this process on a unix
// socket under dir, sharing the gateway's shared-memory directory.
//
// The worker serves --embedded-protocol. With TokenSpeed it keeps the
// segments it reads (the gateway's pool owns them and refills them; see
// shm.Route.Reuse) unless --embedded-keep-shm=false; with the other
// protocols, which cannot advertise that, it unlinks them as their real
// servicers do.
func startEmbeddedWorker(modelDir, dir string, f *serveFlags, heavy func(context.Context, func()) error, log *slog.Logger) (*embeddedWorker, error) {
	sock := filepath.Join(dir, "worker.sock")
	keep := f.embeddedFlags.keepShm && f.embeddedFlags.protocol == refworker.TokenSpeed
	wlog := log.With("component", "embedded-worker")
	reader, err := shm.NewReader(shm.ReaderOptions{Dir: f.shmDir, KeepFiles: keep, Logger: wlog})
	if err != nil {
		return nil, err
	}
	w, err := refworker.Open(refworker.ProcessOptions{
		Options: refworker.Options{Protocol: f.embeddedFlags.protocol, ModelDir: modelDir, Fingerprint: refworker.Fingerprint(f.embeddedFP),
			Encode: heavy, Version: "mmgate-" + version, Logger: wlog, Reader: reader},
		ShmDir: f.shmDir, KeepShm: keep, MaxMessageSize: int(f.maxMessageSize),
	})
	if err != nil {
		reader.Close()
		return nil, err
	}
	stop := func() { w.Stop(5 * time.Second); reader.Close() }
	lis, err := listen.Open("unix://" + sock)
	if err != nil {
		w.Stop(0)
		reader.Close()
		return nil, err
	}
	go w.Serve(lis)
	log.Info("embedded reference worker started", "protocol", w.Protocol(), "socket", sock, "model", modelDir, "served_model_name", w.ServedModelName(), "fingerprint", f.embeddedFP, "keep_shm", keep)
	return &embeddedWorker{url: "unix://" + sock, reader: reader, stop: stop}, nil
}
