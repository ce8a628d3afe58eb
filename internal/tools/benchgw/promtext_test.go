package benchgw

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

const metricsText = `# HELP mmgate_mm_tensors_total Tensors.
# TYPE mmgate_mm_tensors_total counter
mmgate_mm_tensors_total{modality="image",path="shm",runtime="mmgate-reference"} 3
mmgate_mm_tensors_total{runtime="r",path="inline",modality="image"} 1.5e+01
mmgate_stage_duration_seconds_bucket{stage="decode",le="+Inf"} 4
mmgate_stage_duration_seconds_sum{stage="decode"} 0.25 1700000000000
mmgate_stage_duration_seconds_count{stage="decode"} 4
odd{a="x\"y\\z\nw" , b = "{,}"} -Inf
mmgate_shm_bytes_in_use 1.13246208e+08

`

func TestParseMetrics(t *testing.T) {
	m, err := parseMetrics(strings.NewReader(metricsText))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 7 {
		t.Errorf("%d series, want 7", len(m))
	}
	checks := map[string]float64{
		`mmgate_mm_tensors_total{modality="image",path="shm",runtime="mmgate-reference"}`: 3,
		`mmgate_mm_tensors_total{modality="image",path="inline",runtime="r"}`:             15,
		`mmgate_stage_duration_seconds_sum{stage="decode"}`:                               0.25,
		`mmgate_shm_bytes_in_use`:     113246208,
		`odd{a="x\"y\\z\nw",b="{,}"}`: math.Inf(-1),
	}
	for k, v := range checks {
		s, ok := m[k]
		if !ok || s.value != v {
			t.Errorf("%s = %v (present %v), want %v", k, s.value, ok, v)
		}
	}
	if s := m[`odd{a="x\"y\\z\nw",b="{,}"}`]; s.labels["a"] != "x\"y\\z\nw" || s.labels["b"] != "{,}" {
		t.Errorf("labels %q", s.labels)
	}
}

func TestParseMetricsErrors(t *testing.T) {
	for _, in := range []string{
		"name\n",
		"name{a=\"x\"\n",
		"name{a=x} 1\n",
		"name{a=\"x\" b=\"y\"} 1\n",
		"name one\n",
		"name 1 2 3\n",
		"{a=\"b\"} 1\n",
		"name{=\"b\"} 1\n",
	} {
		if _, err := parseMetrics(strings.NewReader(in)); !errors.Is(err, errBadMetrics) {
			t.Errorf("%q: %v, want errBadMetrics", in, err)
		}
	}
}

func TestDelta(t *testing.T) {
	before, _ := parseMetrics(strings.NewReader("c{p=\"a\"} 2\nc{p=\"b\"} 5\nother 1\n"))
	after, _ := parseMetrics(strings.NewReader("c{p=\"a\"} 7\nc{p=\"b\"} 5\nc{p=\"c\"} 1\nother 9\n"))
	var got []string
	for _, s := range delta(before, after, "c") {
		got = append(got, s.labels["p"]+"="+strconv.FormatFloat(s.value, 'g', -1, 64))
	}
	if strings.Join(got, ",") != "a=5,b=0,c=1" {
		t.Errorf("delta %v", got)
	}
}

func FuzzParseMetrics(f *testing.F) {
	f.Add([]byte(metricsText))
	f.Add([]byte("a{b=\"\\\\\"} 1\n"))
	f.Add([]byte("x NaN\n# c\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMetrics(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		// Every key re-parses to the same series.
		for k, s := range m {
			if seriesKey(s.name, s.labels) != k {
				t.Fatalf("key %q for %q %v", k, s.name, s.labels)
			}
		}
	})
}
