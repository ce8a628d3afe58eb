package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// Worker is one worker: its connection, protocol, health and info. It is
// safe for concurrent use.
type Worker struct {
	cfg  workerSettings
	conn *grpc.ClientConn
	pool *shm.Pool
	m    *metrics
	e    *Engine // the registry it belongs to
	// loopCtx is the context of the worker's health loop; stop ends it
	// (Remove, Close). Both are set once, under the engine's lock, when the
	// loop is bound.
	loopCtx context.Context
	stop    context.CancelFunc

	inflight atomic.Int64 // Generate streams open from this gateway
	removed  atomic.Bool  // taken out by Remove: close conn when idle
	closed   sync.Once

	mu          sync.RWMutex
	proto       protocol.Protocol // nil until the worker was reached
	client      protocol.Client
	healthy     bool
	info        *protocol.Info
	caps        protocol.Capabilities
	route       shm.Route
	encDT       tensor.DType
	loadsOK     bool  // Loads answered at least once and is not unimplemented
	noLoads     bool  // Loads is unimplemented
	remoteLoad  int64 // running + waiting requests at the last Loads
	localAtPoll int64 // our in-flight count when remoteLoad was read
	lastErr     string
}

// URL is the worker's configured URL.
func (w *Worker) URL() string { return w.cfg.url }

// Healthy reports whether the worker is in the rotation.
func (w *Worker) Healthy() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.healthy
}

// Info returns the worker's last info, or nil if it was never reached.
func (w *Worker) Info() *protocol.Info {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.info
}

// Runtime is the protocol the worker speaks ("" until it was reached).
func (w *Worker) Runtime() string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.proto == nil {
		return ""
	}
	return w.proto.Name()
}

// Capabilities are what the worker can take (zero until it was reached).
func (w *Worker) Capabilities() protocol.Capabilities {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.caps
}

// Route is what shm.Batch.Place needs to place tensors for this worker.
func (w *Worker) Route() shm.Route {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.route
}

// EncoderDType is the dtype to encode encoder inputs in for this worker.
func (w *Worker) EncoderDType() tensor.DType {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.encDT
}

// MaxMessageSize is the gRPC message limit used with this worker.
func (w *Worker) MaxMessageSize() int { return w.cfg.maxMsg }

// InFlight is the number of Generate streams open on this worker.
func (w *Worker) InFlight() int { return int(w.inflight.Load()) }

// protocol returns the worker's protocol and client (nil before the worker
// was reached).
func (w *Worker) protocol() (protocol.Protocol, protocol.Client) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.proto, w.client
}

// load is the least_loaded score: the other clients' requests seen at the
// last Loads plus this gateway's current in-flight count.
func (w *Worker) load() int64 {
	local := w.inflight.Load()
	w.mu.RLock()
	defer w.mu.RUnlock()
	if !w.loadsOK {
		return local
	}
	return max(0, w.remoteLoad-w.localAtPoll) + local
}

func (w *Worker) begin() {
	w.inflight.Add(1)
	w.m.inflight.WithLabelValues(w.cfg.url).Inc()
}

func (w *Worker) end() {
	n := w.inflight.Add(-1)
	w.m.inflight.WithLabelValues(w.cfg.url).Dec()
	if n == 0 && w.removed.Load() {
		w.retire()
	}
}

// closeConn closes the connection once.
func (w *Worker) closeConn() { w.closed.Do(func() { _ = w.conn.Close() }) }

// retire closes a removed worker's connection and forgets its metrics
// (unless a worker added since has the same URL: the series are its); it
// runs when the last stream open on it ends, so requests in flight finish.
func (w *Worker) retire() {
	w.closeConn()
	if w.e.byURL(w.cfg.url) != nil {
		return
	}
	w.m.healthy.DeleteLabelValues(w.cfg.url)
	w.m.inflight.DeleteLabelValues(w.cfg.url)
}

// setInfo installs a fresh protocol binding and info and marks the worker
// healthy. It reports whether the worker was unhealthy before, or an error
// when the worker's settings do not fit its protocol.
func (w *Worker) setInfo(p protocol.Protocol, c protocol.Client, info *protocol.Info) (recovered bool, err error) {
	caps := p.Capabilities()
	caps.Modalities = info.Modalities
	caps.KeepAfterRead = info.KeepAfterRead
	enc, err := encoderDType(w.cfg.encDT, info.EncoderDType, caps)
	if err != nil {
		return false, err
	}
	route := shm.Route{
		Mode:           w.cfg.mode,
		NamespaceMatch: info.NamespaceMatch,
		Limits:         shm.Limits{MinBytes: w.cfg.minBytes, MaxInline: w.cfg.maxInline},
		Runtime:        p.Name(),
	}
	if w.pool == nil || !caps.Shm {
		route.Mode = shm.ModeInline
	}
	// Reuse only where the worker reads our directory and keeps files.
	route.Reuse = caps.KeepAfterRead && info.NamespaceMatch && usesShm(route)
	w.mu.Lock()
	recovered = !w.healthy
	w.proto, w.client = p, c
	w.healthy, w.info, w.caps, w.route, w.encDT, w.lastErr = true, info, caps, route, enc, ""
	w.mu.Unlock()
	w.m.healthy.WithLabelValues(w.cfg.url).Set(1)
	return recovered, nil
}

// encoderDType chooses the encoder input dtype: the configured one (which
// the protocol must accept), else the worker's when the protocol accepts it
// and it is a float type, else float32 (or the protocol's first dtype).
func encoderDType(configured, reported tensor.DType, caps protocol.Capabilities) (tensor.DType, error) {
	switch {
	case configured != 0 && !caps.AcceptsDType(configured):
		return 0, fmt.Errorf("encoder dtype %v is not one the protocol accepts %v: %w", configured, caps.DTypes, ErrBadOptions)
	case configured != 0:
		return configured, nil
	case reported.IsFloat() && caps.AcceptsDType(reported):
		return reported, nil
	case caps.AcceptsDType(tensor.Float32) || len(caps.DTypes) == 0:
		return tensor.Float32, nil
	}
	return caps.DTypes[0], nil
}

// setDown takes the worker out of the rotation. It reports whether it was
// healthy before.
func (w *Worker) setDown(reason string) (wasHealthy bool) {
	w.mu.Lock()
	wasHealthy = w.healthy
	w.healthy, w.lastErr = false, reason
	w.loadsOK = false
	w.mu.Unlock()
	w.m.healthy.WithLabelValues(w.cfg.url).Set(0)
	return wasHealthy
}

func (w *Worker) setLoads(remote int64, local int64) {
	w.mu.Lock()
	w.loadsOK, w.remoteLoad, w.localAtPoll = true, remote, local
	w.mu.Unlock()
}

// usesShm reports whether tensors may travel through shared memory on route
// r at all (its mode allows it).
func usesShm(r shm.Route) bool {
	return r.Mode == shm.ModeShm || (r.Mode == shm.ModeAuto && r.NamespaceMatch)
}
