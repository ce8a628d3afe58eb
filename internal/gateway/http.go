package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/internal/cpupool"
	"github.com/mmgate/mmgate/internal/listen"
	"github.com/mmgate/mmgate/internal/server"
	"github.com/mmgate/mmgate/media"
)

// This file answers: how is the HTTP front served? The server over a
// backend with the limits and keys of the options, on the listener, until
// the context ends, then a graceful shutdown.

// DefaultListen is the HTTP listen address when Options.Listen is empty.
const DefaultListen = "127.0.0.1:8080"

// newRegistry is the metrics registry, with the Go runtime's and the
// process's collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// newServer is the HTTP server over backend with the limits, keys,
// metrics and session header of o.
func newServer(o *Options, backend server.Backend, reg *prometheus.Registry, log *slog.Logger, heavy *cpupool.Pool) (*server.Server, error) {
	so := o.Limits
	so.Backend, so.MaxBodyBytes, so.MaxInFlight, so.Heavy = backend, o.MaxBodyBytes, o.MaxInFlight, heavyRunner(heavy)
	so.Registry, so.Logger, so.APIKeys, so.MetricsAuth, so.SessionHeader = reg, log, o.APIKeys, o.MetricsAuth, o.Fleet.SessionHeader
	return server.New(so)
}

// serveHTTP serves srv on Listen until ctx ends, then shuts down
// gracefully (server.Run) and runs stopped. announce runs once the
// listener is open.
func serveHTTP(ctx context.Context, o *Options, srv *server.Server, log *slog.Logger, announce, stopped func()) error {
	// What start-up parsed and dropped (the model's tokenizer files: tens
	// of megabytes) is collected now rather than by the first collection
	// under load, whose mark phase takes a core from the requests.
	runtime.GC()

	lis, err := listen.Open(cmp.Or(o.Listen, DefaultListen))
	if err != nil {
		return err
	}
	err = srv.Run(ctx, lis, server.RunOptions{
		TLS: o.TLS, ShutdownTimeout: o.ShutdownTimeout,
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
