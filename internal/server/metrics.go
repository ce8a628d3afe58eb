package server

import "github.com/prometheus/client_golang/prometheus"

// httpMetrics are the HTTP layer's metrics.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	ttft     prometheus.Histogram
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
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
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.ttft} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
