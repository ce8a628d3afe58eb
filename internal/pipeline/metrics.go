package pipeline

import "github.com/prometheus/client_golang/prometheus"

// metrics are the per-stage histograms and cache counters.
type metrics struct {
	stage      *prometheus.HistogramVec
	cacheHits  prometheus.Counter
	cacheMiss  prometheus.Counter
	cacheBytes prometheus.GaugeFunc
	media      *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, c *tensorCache) (*metrics, error) {
	m := &metrics{
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mmgate_stage_duration_seconds",
			Help:    "Wall time of each request stage (fetch, decode, resize, normalize_patchify, tokenize, admission, transport, generate).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 20),
		}, []string{"stage"}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmgate_tensor_cache_hits_total", Help: "Preprocessed-tensor cache hits."}),
		cacheMiss: prometheus.NewCounter(prometheus.CounterOpts{Name: "mmgate_tensor_cache_misses_total", Help: "Preprocessed-tensor cache misses."}),
		cacheBytes: prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mmgate_tensor_cache_bytes", Help: "Bytes held by the preprocessed-tensor cache."},
			func() float64 { b, _ := c.usage(); return float64(b) }),
		media: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mmgate_media_items_total", Help: "Media items by modality and outcome."}, []string{"modality", "outcome"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, col := range []prometheus.Collector{m.stage, m.cacheHits, m.cacheMiss, m.cacheBytes, m.media} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}
