package benchgw

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/tools/benchgw/fakegw"
)

// probeChildEnv makes the test binary run ServeProbe instead of the tests:
// the probe process of TestProbeProcess.
const probeChildEnv = "BENCHGW_TEST_PROBE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(probeChildEnv) == "1" {
		if err := ServeProbe(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestProbeProcess: the probes come from a child process (which does the
// text warm-up), are measured only while the image load runs, and a child
// that cannot start or never gets ready fails the run with its reason.
func TestProbeProcess(t *testing.T) {
	fake := fakegw.New(fakegw.Options{ImageDelay: 20 * time.Millisecond, TextDelay: time.Millisecond})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	t.Setenv(probeChildEnv, "1")
	imgs := testImages(t, 4)
	r, err := New(Options{URL: srv.URL, Images: imgs, Concurrency: 2, Requests: 20,
		ProbeInterval: 5 * time.Millisecond, ProbeProcess: []string{os.Args[0]}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ProbeProcess || rep.ProbeError != "" || rep.TextProbe.OK < 3 || rep.TextProbe.Failed != 0 || rep.Image.OK != 20 {
		t.Fatalf("report: process %v error %q probes %+v images %+v", rep.ProbeProcess, rep.ProbeError, rep.TextProbe, rep.Image)
	}
	texts := 0
	for _, q := range fake.Requests() {
		if len(q.Images) == 0 {
			texts++
		}
	}
	if texts < rep.TextProbe.Sent+warmTextRequests {
		t.Errorf("%d text requests reached the server, want the %d measured and %d warm-up", texts, rep.TextProbe.Sent, warmTextRequests)
	}

	for _, argv := range [][]string{{"/nonexistent/probe"}, {"/bin/true"}} {
		r, err := New(Options{URL: srv.URL, Images: imgs, Requests: 1, ProbeProcess: argv})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "probe process") {
			t.Errorf("%v: err = %v, want a probe process error", argv, err)
		}
	}
}
