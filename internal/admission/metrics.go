package admission

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a wait (the outcome label of mmgate_admission_wait_seconds).
const (
	outcomeAdmitted  = "admitted"
	outcomeTimeout   = "timeout"
	outcomeCancelled = "cancelled"
)

// metrics are the controller's: bytes admitted now and in all, bytes
// held by holders and waiting, the queue wait, refusals by reason.
type metrics struct {
	admittedTotal prometheus.Counter
	held          *prometheus.GaugeVec
	wait          *prometheus.HistogramVec
	refused       *prometheus.CounterVec
	live          []prometheus.Collector
}

func newMetrics(reg prometheus.Registerer, c *Controller) (*metrics, error) {
	stat := func(f func(Stats) float64) func() float64 {
		return func() float64 { return f(c.Stats()) }
	}
	m := &metrics{
		admittedTotal: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmgate_admission_admitted_bytes_total",
			Help: "Planned tensor bytes admitted, in all."}),
		held: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mmgate_admission_held_bytes",
			Help: "Bytes kept beyond requests and counted in the tensor memory budget, by holder (tensor_cache, shm_reuse)."}, []string{"holder"}),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mmgate_admission_wait_seconds",
			Help:    "Time requests with media waited for tensor memory, by outcome (admitted, timeout, cancelled).",
			Buckets: []float64{0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}}, []string{"outcome"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmgate_admission_refused_total",
			Help: "Requests refused for their planned tensor bytes, by reason (too_large, over_budget, queue_timeout)."}, []string{"reason"}),
		live: []prometheus.Collector{
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mmgate_admission_budget_bytes", Help: "The tensor memory budget (--max-tensor-bytes-in-flight)."},
				stat(func(s Stats) float64 { return float64(s.Budget) })),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mmgate_admission_bytes", Help: "Planned tensor bytes of the requests admitted and not yet handed to their worker."},
				stat(func(s Stats) float64 { return float64(s.Admitted) })),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mmgate_admission_waiting_bytes", Help: "Planned tensor bytes of the requests waiting for tensor memory."},
				stat(func(s Stats) float64 { return float64(s.WaitingBytes) })),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mmgate_admission_waiting_requests", Help: "Requests waiting for tensor memory."},
				stat(func(s Stats) float64 { return float64(s.Waiting) })),
		},
	}
	for _, r := range []string{ReasonTooLarge, ReasonOverBudget, ReasonQueueTimeout} {
		m.refused.WithLabelValues(r)
	}
	if reg == nil {
		return m, nil
	}
	for _, col := range append([]prometheus.Collector{m.admittedTotal, m.held, m.wait, m.refused}, m.live...) {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) waited(outcome string, d time.Duration) {
	m.wait.WithLabelValues(outcome).Observe(d.Seconds())
}
