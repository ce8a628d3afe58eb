package soak

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

var (
	long     = flag.Bool("soak.long", false, "run the long soak (see -soak.duration) and the 60 s load test")
	duration = flag.Duration("soak.duration", 5*time.Minute, "duration of the long soak")
)

// mmgateBin is the binary TestMain builds once for every test.
var mmgateBin string

func TestMain(m *testing.M) {
	os.Exit(procs.Main(m, "mmgate-soak-test-", func(bin, _ string) { mmgateBin = bin }))
}

func buildBinary(t *testing.T) string {
	t.Helper()
	return mmgateBin
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func runAndCheck(t *testing.T, cfg Config) *Report {
	t.Helper()
	cfg.Log = testLog{t}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("report:\n%s", b)
	for _, f := range rep.Failures {
		t.Error(f)
	}
	for _, p := range rep.Problems {
		t.Log(p)
	}
	return rep
}

// TestSoakShort is the default-suite soak: ~20 s of mixed traffic through
// three workers while clients cancel, workers are killed and restarted,
// reject requests, and the shm tmpfs is filled.
func TestSoakShort(t *testing.T) {
	bin := buildBinary(t)
	rep := runAndCheck(t, Config{Binary: bin, Duration: 20 * time.Second, KillEvery: 3 * time.Second, FillEvery: 5 * time.Second, Seed: 1})
	if rep.WorkerKills == 0 {
		t.Error("no worker was killed")
	}
	if rep.Cancelled == 0 {
		t.Error("no request was cancelled")
	}
	if rep.ShmFillSkip == "" && rep.ShmFills == 0 {
		t.Error("the shm tmpfs was never filled")
	}
	if rep.ShmFillSkip != "" {
		t.Logf("shm fill fault skipped: %s", rep.ShmFillSkip)
	}
}

// TestSoakVLLM is a shorter soak through workers serving vLLM's protocol
// (each request's images in one segment, unlinked by the worker after its
// one read): nothing leaked in shared memory, no request lost.
func TestSoakVLLM(t *testing.T) {
	rep := runAndCheck(t, Config{Binary: buildBinary(t), Protocol: "vllm", Duration: 10 * time.Second, KillEvery: 3 * time.Second, FillEvery: -1, Seed: 5})
	if rep.WorkerKills == 0 || rep.Cancelled == 0 {
		t.Errorf("faults: %d kills, %d cancelled", rep.WorkerKills, rep.Cancelled)
	}
}

// TestLoadSmoke is a 5 s load run at concurrency 64 over max in-flight 48.
func TestLoadSmoke(t *testing.T) {
	bin := buildBinary(t)
	rep := runAndCheck(t, Config{Binary: bin, Load: true, Duration: 5 * time.Second, Seed: 2})
	if rep.Overload429.N == 0 {
		t.Log("no 429 in the smoke run (the machine kept up)")
	}
}

// TestSoakLong and TestLoadLong run with -soak.long only.
func TestSoakLong(t *testing.T) {
	if !*long {
		t.Skip("long soak: go test ./internal/tools/soak -run TestSoakLong -soak.long [-soak.duration 10m] -timeout 0")
	}
	runAndCheck(t, Config{Binary: buildBinary(t), Duration: *duration, Seed: 3})
}

func TestLoadLong(t *testing.T) {
	if !*long {
		t.Skip("load test: go test ./internal/tools/soak -run TestLoadLong -soak.long -timeout 0")
	}
	runAndCheck(t, Config{Binary: buildBinary(t), Load: true, Duration: 60 * time.Second, Seed: 4})
}
