package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmgate/mmgate/internal/limits"
)

// httpMetrics are the HTTP layer's metrics.
type httpMetrics struct {
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	ttft      prometheus.Histogram
	refused   *prometheus.CounterVec
	queueWait prometheus.Histogram
}

func newHTTPMetrics(reg prometheus.Registerer, a *admission) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mmgate_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mmgate_http_request_duration_seconds", Help: "HTTP request latency by route and status.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 18),
		}, []string{"route", "status"}),
		ttft: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "mmgate_time_to_first_token_seconds", Help: "Time from request arrival to the first streamed token.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 18),
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mmgate_http_refused_total", Help: "Requests refused or cut by a limit, by reason.",
		}, []string{"reason"}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "mmgate_http_queue_wait_seconds", Help: "Time requests waited in the queue for a processing slot.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 18),
		}),
	}
	// Every reason is exported (at 0) from the start.
	for _, r := range []string{limits.ReasonInFlight, limits.ReasonQueueTimeout, limits.ReasonUploads, limits.ReasonBodyTimeout,
		limits.ReasonClientStall, limits.ReasonRate, limits.ReasonClientInFlight} {
		m.refused.WithLabelValues(r)
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	cs := []prometheus.Collector{m.requests, m.latency, m.ttft, m.refused, m.queueWait,
		gauge("mmgate_http_in_flight_requests", "Requests holding a processing slot.",
			func() float64 { return float64(a.slots.Stats().InUse) }),
		gauge("mmgate_http_queued_requests", "Requests waiting for a processing slot.",
			func() float64 { return float64(a.slots.Stats().Waiting) }),
		gauge("mmgate_http_uploads", "Requests whose bodies are being received or wait for a slot.",
			func() float64 { return float64(a.uploads.Stats().InUse) }),
		gauge("mmgate_http_upload_bytes", "Bytes held by the bodies of those requests.",
			func() float64 { return float64(a.uploadBytes.Stats().InUse) }),
		gauge("mmgate_http_clients_tracked", "Clients tracked by the per-client limits.",
			func() float64 { return float64(a.clients.Tracked()) }),
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
