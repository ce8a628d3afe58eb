package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mmgate/mmgate/engine/protocol"
)

// watch is a worker's health loop; it ends with the worker's loop context.
func (e *Engine) watch(w *Worker) {
	ctx := w.loopCtx
	t := time.NewTicker(e.opts.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if w.Healthy() {
			e.check(ctx, w)
		} else {
			e.refresh(ctx, w)
		}
	}
}

// check runs the health call (and the loads call) on a healthy worker.
func (e *Engine) check(ctx context.Context, w *Worker) {
	cctx, cancel := context.WithTimeout(ctx, e.opts.HealthTimeout)
	defer cancel()
	_, c := w.protocol()
	err := c.Health(cctx)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		e.markDown(w, err.Error())
		return
	}
	e.pollLoads(cctx, w)
}

// pollLoads reads the worker's queue lengths; a worker without a loads call
// is balanced on local in-flight counts only. round_robin reads no load.
func (e *Engine) pollLoads(ctx context.Context, w *Worker) {
	w.mu.RLock()
	skip, c := w.noLoads, w.client
	w.mu.RUnlock()
	if skip || c == nil || e.opts.Policy == PolicyRoundRobin {
		return
	}
	local := w.inflight.Load()
	n, err := c.Loads(ctx)
	if err != nil {
		if errors.Is(err, protocol.ErrUnimplemented) {
			w.mu.Lock()
			w.noLoads = true
			w.mu.Unlock()
		}
		return
	}
	w.setLoads(n, local)
}

// refresh (re)reads a worker's protocol and info and, when it answers and
// is healthy, puts it (back) in the rotation.
func (e *Engine) refresh(ctx context.Context, w *Worker) {
	cctx, cancel := context.WithTimeout(ctx, e.opts.HealthTimeout)
	defer cancel()
	p, c, info, err := e.fetchInfo(cctx, w)
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		var recovered bool
		if recovered, err = w.setInfo(p, c, info); err == nil {
			e.known.see(info)
			if recovered {
				r := w.Route()
				e.log.Info("worker up", "worker", w.URL(), "runtime", info.Runtime, "software", info.Software, "model", info.Name(),
					"model_type", info.ModelType, "namespace_match", info.NamespaceMatch, "shm_reuse", r.Reuse,
					"encoder_dtype", w.EncoderDType().String(), "transport", r.Mode.String())
			}
			e.pollLoads(cctx, w)
			return
		}
	}
	e.markDown(w, err.Error())
}

// fetchInfo finds the worker's protocol (the configured one, or the first
// of Options.Protocols whose info call the worker implements), reads its
// info and checks its health.
func (e *Engine) fetchInfo(ctx context.Context, w *Worker) (protocol.Protocol, protocol.Client, *protocol.Info, error) {
	protos := e.opts.Protocols
	if r := w.cfg.runtime; r != "" {
		protos = []protocol.Protocol{e.protos[r]}
	}
	var tried []string
	for _, p := range protos {
		c := p.Client(w.conn)
		info, err := c.Info(ctx)
		if errors.Is(err, protocol.ErrNotThisProtocol) {
			tried = append(tried, p.Name())
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if info.ServedName == "" {
			return nil, nil, nil, fmt.Errorf("%s: model info: empty served model name", p.Name())
		}
		if w.cfg.model != "" {
			info.ServedName = w.cfg.model
		}
		info.Runtime, info.Fetched = p.Name(), time.Now()
		if pool := e.opts.Pool; pool != nil && pool.SameNamespace(info.NamespaceID) {
			info.NamespaceMatch = true
		}
		if err := c.Health(ctx); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		return p, c, info, nil
	}
	return nil, nil, nil, fmt.Errorf("the worker serves none of the protocols %s", strings.Join(tried, ", "))
}

// markDown takes w out of the rotation until its health loop finds it again.
func (e *Engine) markDown(w *Worker, reason string) {
	if w.setDown(reason) {
		e.log.Warn("worker down", "worker", w.URL(), "reason", reason)
	}
}
