package benchgw

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDist(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 1..100 ms, unsorted
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	d := dist(ds)
	want := Dist{Count: 100, Mean: 50.5, P50: 50, P90: 90, P99: 99, Max: 100}
	if d != want {
		t.Errorf("dist = %+v, want %+v", d, want)
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("dist sorted its input")
	}
	if d := dist([]time.Duration{7 * time.Millisecond}); d != (Dist{1, 7, 7, 7, 7, 7}) {
		t.Errorf("one sample: %+v", d)
	}
	if d := dist(nil); d != (Dist{}) {
		t.Errorf("no sample: %+v", d)
	}
	three := []time.Duration{1e6, 2e6, 3e6}
	if d := dist(three); d.P50 != 2 || d.P90 != 3 || d.P99 != 3 {
		t.Errorf("three samples: %+v", d)
	}
}

func TestTransportsInReply(t *testing.T) {
	tests := []struct {
		text        string
		shm, inline int
	}{
		{"prompt: 1220 tokens, crc32c 00\nimage 1: grid 1x60x80, bfloat16 via shm, crc32c 1a2b3c4d\n", 1, 0},
		{"image 1: grid 1x2x2, float32 via inline, crc32c 0\nimage 2: grid 1x4x4, bfloat16 via shm, sha256 ab\nimage 3: grid 1x4x4, bfloat16 via inline\n", 1, 2},
		{"the image 1: via shm is quoted mid-line", 0, 0},
		{"image 1: grid 1x60x80, bfloat16 via shmx", 0, 0},
		{"hello", 0, 0},
		{"image 2: via inline then via shm\nimage 3: xvia shm\nimage : via shm\nimage 4: via shm_x via inline", 1, 1},
		{"image 5: avia inline, via  shm", 0, 0},
	}
	for _, tc := range tests {
		if s, i := transportsInReply(tc.text); s != tc.shm || i != tc.inline {
			t.Errorf("%q: shm %d inline %d, want %d %d", tc.text, s, i, tc.shm, tc.inline)
		}
	}
}

func TestReportJSONAndTable(t *testing.T) {
	r := &Runner{opts: Options{URL: "http://127.0.0.1:1", Model: "m", Concurrency: 2, Requests: 3,
		Images: []Image{{Name: "a", Bytes: 10}, {Name: "b", Bytes: 30}}}}
	rep := r.report([]outcome{
		{latency: 100 * time.Millisecond, ttft: 90 * time.Millisecond, status: 200, shm: 1},
		{latency: 300 * time.Millisecond, ttft: 250 * time.Millisecond, status: 200},
		{latency: time.Millisecond, status: 429, code: "overloaded", message: "busy"},
	}, []outcome{{probe: true, latency: 5 * time.Millisecond, ttft: 4 * time.Millisecond, status: 200}}, 2*time.Second, "requests")
	if rep.Image.OK != 2 || rep.Image.Failed != 1 || rep.ImagesPerSec != 1 || rep.ImageBytesMean != 20 {
		t.Errorf("report %+v", rep)
	}
	if rep.Transport.ReplyShm != 1 || rep.Transport.ReplyUnknown != 1 {
		t.Errorf("transport %+v", rep.Transport)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"images_per_second", "requests_per_second", "text_probe", "image", "errors", "transport", "stages", "stopped_by"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if !strings.Contains(string(b), `"stages":[]`) || !strings.Contains(string(b), `"metrics":[]`) || strings.Contains(string(b), "null") {
		t.Errorf("JSON has null lists: %s", b)
	}
	if !strings.Contains(string(b), `"latency_ms":{"count":2,"mean":200,"p50":100,"p90":300,"p99":300,"max":300}`) {
		t.Errorf("image latency JSON: %s", b)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1.00 images/s", "overloaded", "text probe", "shm 1, inline 0, unnamed 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
