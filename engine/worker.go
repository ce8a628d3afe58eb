package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Info is what a worker said about itself the last time it was reached. It
// is a snapshot: never modify it or the messages it points to.
type Info struct {
	// Model is the GetModelInfo response.
	Model *schedulerpb.GetModelInfoResponse
	// Server is the GetServerInfo response (nil when the worker does not
	// implement it).
	Server *schedulerpb.GetServerInfoResponse
	// NamespaceID is the worker's scheduler_info["shm_namespace_id"] ("" if
	// absent); NamespaceMatch reports whether it equals the pool's.
	NamespaceID    string
	NamespaceMatch bool
	// KeepsShm is the worker's scheduler_info["shm_keep_after_read"]: it
	// leaves shared-memory segments in place after reading them (and is
	// done with their bytes once it answers), so the gateway may refill
	// them for later requests (shm.Route.Reuse). Absent means false.
	KeepsShm bool
	// Modalities are the media kinds the model takes (from
	// supported_modalities; a worker that lists none but supports vision
	// is taken to accept images and videos).
	Modalities []vision.Modality
	// Runtime names the worker software (scheduler_info["worker"], else
	// "tokenspeed"); it labels transport metrics.
	Runtime string
	// Fetched is when the info was read.
	Fetched time.Time
}

// Name is the served model name.
func (i *Info) Name() string { return i.Model.GetServedModelName() }

// Supports reports whether the model takes every modality in need.
func (i *Info) Supports(need []vision.Modality) bool {
	for _, m := range need {
		ok := false
		for _, h := range i.Modalities {
			if h == m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Worker is one configured worker: its connection, health and info. It is
// safe for concurrent use.
type Worker struct {
	cfg    workerSettings
	conn   *grpc.ClientConn
	client schedulerpb.TokenSpeedSchedulerClient
	pool   *shm.Pool
	m      *metrics

	inflight atomic.Int64 // Generate streams open from this gateway

	mu          sync.RWMutex
	healthy     bool
	info        *Info
	route       shm.Route
	encDT       tensor.DType
	loadsOK     bool  // GetLoads answered at least once and is not unimplemented
	noLoads     bool  // GetLoads is unimplemented
	remoteLoad  int64 // running + waiting requests at the last GetLoads
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
func (w *Worker) Info() *Info {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.info
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

// load is the least_loaded score: the other clients' requests seen at the
// last GetLoads plus this gateway's current in-flight count.
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
	w.inflight.Add(-1)
	w.m.inflight.WithLabelValues(w.cfg.url).Dec()
}

// setInfo installs a fresh info and marks the worker healthy. It reports
// whether the worker was unhealthy before.
func (w *Worker) setInfo(info *Info) (recovered bool) {
	route := shm.Route{
		Mode:           w.cfg.mode,
		NamespaceMatch: info.NamespaceMatch,
		Limits:         shm.Limits{MinBytes: w.cfg.minBytes, MaxInline: w.cfg.maxInline},
		Runtime:        info.Runtime,
	}
	if w.pool == nil {
		route.Mode = shm.ModeInline
	}
	// Reuse only where the worker reads our directory and keeps files.
	route.Reuse = info.KeepsShm && info.NamespaceMatch && usesShm(route)
	enc := w.cfg.encDT
	if enc == 0 {
		enc = tensor.Float32
		if dt, err := tensor.ParseDType(info.Model.GetMultimodalEncoderDtype()); err == nil && dt.IsFloat() {
			enc = dt
		}
	}
	w.mu.Lock()
	recovered = !w.healthy
	w.healthy, w.info, w.route, w.encDT, w.lastErr = true, info, route, enc, ""
	w.mu.Unlock()
	w.m.healthy.WithLabelValues(w.cfg.url).Set(1)
	return recovered
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

// modalitiesOf maps the wire modalities; a vision model listing none takes
// images and videos.
func modalitiesOf(mi *schedulerpb.GetModelInfoResponse) []vision.Modality {
	var out []vision.Modality
	add := func(m vision.Modality) {
		for _, h := range out {
			if h == m {
				return
			}
		}
		out = append(out, m)
	}
	for _, m := range mi.GetSupportedModalities() {
		if v, ok := modalityOf(m); ok {
			add(v)
		}
	}
	if len(out) == 0 && (mi.GetSupportsVision() || mi.GetSupportsMultimodal()) {
		out = []vision.Modality{vision.Image, vision.Video}
	}
	return out
}

// modalityOf maps a wire modality to vision's.
func modalityOf(m commonpb.Modality) (vision.Modality, bool) {
	switch m {
	case commonpb.Modality_IMAGE:
		return vision.Image, true
	case commonpb.Modality_VIDEO:
		return vision.Video, true
	case commonpb.Modality_AUDIO:
		return vision.Audio, true
	}
	return 0, false
}
