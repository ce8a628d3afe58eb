package gateway

import (
	"cmp"
	"context"
	"log/slog"
	"runtime"

	"github.com/mmgate/mmgate/internal/cpupool"
)

// This file answers: where does CPU-heavy media work run? On a pool of
// low-priority threads, so that text requests and token streaming
// preempt it.

// startHeavy starts the pool of low-priority threads for media work (nil
// when Heavy.Nice is negative); the runtime gets as many extra
// processors, so ordinary goroutines always have one.
func startHeavy(o HeavyOptions, cpu int, log *slog.Logger) (*cpupool.Pool, error) {
	if o.Nice < 0 {
		return nil, nil
	}
	// Nice 0 keeps the process priority: the pool's Nice -1.
	heavy, err := cpupool.New(cpupool.Options{Slots: cpu, Nice: cmp.Or(o.Nice, -1), Idle: o.Idle})
	if err != nil {
		return nil, err
	}
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + cpu)
	if perr := heavy.PriorityError(); perr != nil {
		log.Warn("media threads: priority not lowered as asked", "err", perr)
	}
	return heavy, nil
}

// heavyRunner adapts a pool (or none) to the Heavy options of the server
// and the embedded worker.
func heavyRunner(p *cpupool.Pool) func(context.Context, func()) error {
	if p == nil {
		return nil
	}
	return p.Run
}
