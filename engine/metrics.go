package engine

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the engine's collectors, registered on Options.Registerer
// (never on the global registry).
type metrics struct {
	healthy  *prometheus.GaugeVec   // worker
	inflight *prometheus.GaugeVec   // worker
	requests *prometheus.CounterVec // worker, outcome
	retries  prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		healthy: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mmgate_worker_healthy",
			Help: "1 when the worker is in the rotation (its last health check passed), else 0.",
		}, []string{"worker"}),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mmgate_worker_in_flight",
			Help: "Generate streams open from this gateway to the worker.",
		}, []string{"worker"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mmgate_worker_requests_total",
			Help: "Generate attempts per worker by outcome (ok, cancelled, rejected, timeout, overloaded, too_large, unavailable, error).",
		}, []string{"worker", "outcome"}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mmgate_worker_retries_total",
			Help: "Generate requests sent again to another worker after a connection failure before the first response.",
		}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.healthy, m.inflight, m.requests, m.retries} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("engine: metrics: %w", err)
		}
	}
	return m, nil
}
