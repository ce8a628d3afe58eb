package gateway

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/admission"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: how is shared memory set up? One pool, its janitor,
// and its idle segments counted in the tensor memory budget.

// startShm opens the shared-memory pool and starts its janitor, which the
// returned function stops. The idle segments kept for reuse count in the
// tensor memory budget through idle, which takes them back when a request
// waits for room; prune, when set, drops the embedded worker's mappings of
// segments the pool removed.
func startShm(o ShmOptions, reg prometheus.Registerer, log *slog.Logger, idle *admission.Holder, prune func()) (*shm.Pool, func(), error) {
	pool, err := shm.New(shm.Options{Dir: o.Dir, TTL: o.TTL, SweepInterval: o.Sweep, Budget: o.Budget, Registerer: reg, Logger: log,
		ShareWithGroup: o.ShareWithGroup, GID: o.GID, OnIdleBytes: idle.Set, OnRemoved: prune})
	if err != nil {
		return nil, nil, err
	}
	idle.OnReclaim(pool.TrimIdle)
	ctx, stop := context.WithCancel(context.Background())
	go pool.RunJanitor(ctx)
	return pool, stop, nil
}
