package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/listen"
	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: how does the embedded reference worker run? In this
// process, on a unix socket under the gateway's temporary directory, on
// the demo model unless a model folder is given.

// embeddedWorker is a reference worker running in this process, with the
// shared-memory reader it reads through (this process's own, so that the
// gateway's pool can have it drop mappings of segments it removed).
type embeddedWorker struct {
	url    string
	reader *shm.Reader
	stop   func()
}

// startEmbedded starts the embedded worker when asked and returns the
// model folder, the worker (nil when not asked) and the function that
// stops it.
func startEmbedded(o *Options, tmp string, heavy func(context.Context, func()) error, log *slog.Logger) (string, *embeddedWorker, error) {
	model := o.Model
	if !o.Embedded.Enabled {
		return model, nil, nil
	}
	if model == "" {
		var err error
		if model, err = demomodel.Materialize(tmp); err != nil {
			return "", nil, err
		}
	}
	w, err := startEmbeddedWorker(o, model, tmp, heavy, log)
	if err != nil {
		return "", nil, fmt.Errorf("embedded worker: %w", err)
	}
	return model, w, nil
}

// startEmbeddedWorker runs a reference worker inside this process on a unix
// socket under dir, sharing the gateway's shared-memory directory.
//
// The worker serves Embedded.Protocol. With TokenSpeed it keeps the
// segments it reads (the gateway's pool owns them and refills them; see
// shm.Route.Reuse) when Embedded.KeepShm; with the other protocols, which
// cannot advertise that, it unlinks them as their real servicers do.
func startEmbeddedWorker(o *Options, model, dir string, heavy func(context.Context, func()) error, log *slog.Logger) (*embeddedWorker, error) {
	sock := filepath.Join(dir, "worker.sock")
	e := o.Embedded
	if e.Protocol == "" {
		e.Protocol = refworker.TokenSpeed
	}
	keep := e.KeepShm && e.Protocol == refworker.TokenSpeed
	wlog := log.With("component", "embedded-worker")
	reader, err := shm.NewReader(shm.ReaderOptions{Dir: o.Shm.Dir, KeepFiles: keep, Logger: wlog})
	if err != nil {
		return nil, err
	}
	w, err := refworker.Open(refworker.ProcessOptions{
		Options: refworker.Options{Protocol: e.Protocol, ModelDir: model, Fingerprint: refworker.Fingerprint(e.Fingerprint),
			Encode: heavy, Version: "mmgate-" + o.Version, Logger: wlog, Reader: reader},
		ShmDir: o.Shm.Dir, KeepShm: keep, MaxMessageSize: int(o.Workers.MaxMessageSize),
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
	log.Info("embedded reference worker started", "protocol", w.Protocol(), "socket", sock, "model", model, "served_model_name", w.ServedModelName(), "fingerprint", e.Fingerprint, "keep_shm", keep)
	return &embeddedWorker{url: "unix://" + sock, reader: reader, stop: stop}, nil
}
