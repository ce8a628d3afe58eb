package shm

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// value reads a counter or gauge.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		t.Fatal(err)
	}
	switch {
	case d.Counter != nil:
		return d.Counter.GetValue()
	case d.Gauge != nil:
		return d.Gauge.GetValue()
	}
	t.Fatal("not a counter or gauge")
	return 0
}

// gathered returns the value of each single-series metric family in reg.
func gathered(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch {
			case m.Counter != nil:
				out[mf.GetName()] += m.Counter.GetValue()
			case m.Gauge != nil:
				out[mf.GetName()] += m.Gauge.GetValue()
			case m.Histogram != nil:
				out[mf.GetName()] += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return out
}
