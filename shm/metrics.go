package shm

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the transport's Prometheus collectors, registered on the
// Registerer given in Options (never on the global registry).
type metrics struct {
	tensors   *prometheus.CounterVec   // runtime, modality, path
	bytes     *prometheus.CounterVec   // runtime, modality, path
	fallbacks *prometheus.CounterVec   // runtime, reason
	removed   prometheus.Counter       // janitor removals
	seconds   *prometheus.HistogramVec // path
	reuse     *prometheus.CounterVec   // outcome: hit, miss
}

func newMetrics(reg prometheus.Registerer, p *Pool) (*metrics, error) {
	m := &metrics{
		tensors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mmgate_mm_tensors_total",
			Help: "Multimodal tensors sent to workers, by worker runtime, modality and path (inline|shm).",
		}, []string{"runtime", "modality", "path"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mmgate_mm_tensor_bytes_total",
			Help: "Bytes of multimodal tensors sent to workers, by worker runtime, modality and path (inline|shm).",
		}, []string{"runtime", "modality", "path"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mmgate_mm_shm_fallbacks_total",
			Help: "Tensors meant for shared memory that could not use it, by worker runtime and reason (no_space, over_budget, unavailable, error, too_large).",
		}, []string{"runtime", "reason"}),
		removed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mmgate_shm_janitor_removed_total",
			Help: "Orphaned shared-memory segments removed by the janitor.",
		}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mmgate_mm_transport_seconds",
			Help:    "Time from placing a tensor (start of filling its destination) to the worker taking the request, by path.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}, []string{"path"}),
		reuse: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mmgate_shm_reuse_total",
			Help: "Segments placed for workers that keep segments after reading, by outcome (hit: an idle segment was refilled; miss: none fitted and a new one was created).",
		}, []string{"outcome"}),
	}
	if reg == nil {
		return m, nil
	}
	segs := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mmgate_shm_segments_in_use",
		Help: "Shared-memory segments held: being filled, handed to a worker and not yet removed, or idle for reuse.",
	}, func() float64 { n, _ := p.InUse(); return float64(n) })
	bytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mmgate_shm_bytes_in_use",
		Help: "Bytes of shared memory held: being filled, handed to a worker and not yet removed, or idle for reuse.",
	}, func() float64 { _, b := p.InUse(); return float64(b) })
	free := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mmgate_shm_reuse_free_bytes",
		Help: "Bytes of idle shared-memory segments kept for reuse (included in mmgate_shm_bytes_in_use).",
	}, func() float64 { return float64(p.Reuse().Bytes) })
	for _, c := range []prometheus.Collector{m.tensors, m.bytes, m.fallbacks, m.removed, m.seconds, m.reuse, segs, bytes, free} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("shm: metrics: %w", err)
		}
	}
	return m, nil
}
