package benchgw

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/tools/benchgw/fakegw"
)

// Sweep runs each level in order, writes each report as it comes (JSON
// lines, or tables a blank line apart) and says where it stopped.
func TestSweep(t *testing.T) {
	srv := httptest.NewServer(fakegw.New(fakegw.Options{}))
	defer srv.Close()
	o := Options{URL: srv.URL, Requests: 3, NoProbe: true, NoWarmUp: true}
	var progress, out bytes.Buffer
	o.Progress = &progress
	runs, stop, err := Sweep(context.Background(), o, testImages(t, 2), []int{1, 2}, &out, true)
	if err != nil || stop != Done || len(runs) != 2 {
		t.Fatalf("%d runs, stop %d, err %v", len(runs), stop, err)
	}
	if runs[0].Concurrency != 1 || runs[1].Concurrency != 2 || AnyFailed(runs) {
		t.Errorf("concurrency %d, %d; failed %v", runs[0].Concurrency, runs[1].Concurrency, AnyFailed(runs))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !json.Valid([]byte(lines[0])) || strings.Count(progress.String(), "bench gateway: 3 image requests at concurrency") != 2 {
		t.Errorf("output %q, progress %q", out.String(), progress.String())
	}
	out.Reset()
	if _, _, err := Sweep(context.Background(), o, testImages(t, 2), []int{1, 2}, &out, false); err != nil || !strings.HasPrefix(out.String(), "gateway") || !strings.Contains(out.String(), "\n\ngateway") {
		t.Errorf("tables: err %v, output %q", err, out.String())
	}
	o.URL = "http://192.0.2.1:1"
	if runs, stop, err := Sweep(context.Background(), o, testImages(t, 1), []int{1}, &out, true); stop != Refused || err == nil || runs != nil {
		t.Errorf("remote URL: %d runs, stop %d, err %v", len(runs), stop, err)
	}
}
