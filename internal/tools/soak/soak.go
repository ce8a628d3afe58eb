package soak

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mmgate/mmgate/internal/demomodel"
	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/internal/tools/stats"
)

// run is one soak or load run in progress.
type run struct {
	cfg  *Config
	rep  *Report
	d    *deployment
	imgs []image
	v    *verifier
	hc   *http.Client

	mu          sync.Mutex // guards rep and the latencies while traffic runs
	lat, lat429 []time.Duration

	cleanups []func() // run in reverse order by close
}

// Run performs one soak or load run and returns its report; the error is
// for setup failures (the checks themselves are Report.Failures).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	r := &run{cfg: &cfg}
	defer r.close()
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	if err := r.warmUp(ctx); err != nil {
		return nil, err
	}
	r.traffic(ctx)
	r.settle(ctx)
	return r.rep, nil
}

func (r *run) logf(format string, a ...any) { fmt.Fprintf(r.cfg.Log, "soak: "+format+"\n", a...) }

// onClose registers f to run when the run closes.
func (r *run) onClose(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *run) close() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// setup makes the scratch directory, the model, the images and the shm
// directory, and starts the deployment.
func (r *run) setup(ctx context.Context) error {
	cfg := r.cfg
	if cfg.WorkDir == "" {
		d, err := os.MkdirTemp("", "mmgate-soak-")
		if err != nil {
			return err
		}
		r.onClose(func() { os.RemoveAll(d) })
		cfg.WorkDir = d
	}
	if cfg.ModelDir == "" {
		d, err := demomodel.Materialize(filepath.Join(cfg.WorkDir, "model"))
		if err != nil {
			return err
		}
		cfg.ModelDir = d
	}
	r.rep = newReport(cfg)
	imgs, err := makeImages(cfg)
	if err != nil {
		return err
	}
	r.imgs = imgs
	r.logf("%d images fingerprinted with `mmgate preprocess --hash`", len(imgs))
	r.d = &deployment{cfg: cfg}
	if err := r.shm(); err != nil {
		return err
	}
	if cfg.ShmBudget > 0 {
		r.rep.ShmBudgetBytes = cfg.ShmBudget
	}
	r.onClose(r.d.stop)
	if err := r.d.start(ctx); err != nil {
		return err
	}
	r.logf("gateway %s with %d workers, shm in %s", r.d.url, cfg.Workers, r.d.shmDir)
	return nil
}

func newReport(cfg *Config) *Report {
	rep := &Report{Mode: "soak", Concurrency: cfg.Concurrency, Workers: cfg.Workers, CleanErrors: map[string]int{},
		Problems: []string{}, Failures: []string{}, SegmentsLeft: []string{}, SegmentsAfterStop: []string{},
		ShmFallbacks: map[string]float64{}, TensorsByPath: map[string]float64{}, CacheBudgetBytes: cfg.CacheBytes,
		AdmissionBudgetBytes: cfg.TensorBudget, AdmissionRefused: map[string]float64{}}
	if cfg.Load {
		rep.Mode = "load"
	} else {
		rep.RejectEvery, rep.CancelPercent = max(cfg.RejectEvery, 0), max(cfg.CancelPercent, 0)
	}
	return rep
}

// shm picks the shared-memory directory: a private small tmpfs when the
// fill fault runs, else a private directory on the host's tmpfs (never
// filled).
func (r *run) shm() error {
	cfg, d := r.cfg, r.d
	if !cfg.Load && cfg.FillEvery > 0 {
		mnt := filepath.Join(cfg.WorkDir, "shm")
		if err := os.MkdirAll(mnt, 0o755); err != nil {
			return err
		}
		ns, err := newNamespace(mnt, cfg.TmpfsBytes)
		if err != nil {
			r.rep.ShmFillSkip = err.Error()
			r.logf("shm fill fault skipped: %v", err)
		} else {
			r.onClose(ns.close)
			d.prefix, d.shmDir, d.shmView = ns.prefix(), mnt, ns.hostPath()
			r.rep.ShmBudgetBytes = cfg.TmpfsBytes / 2
		}
	} else if !cfg.Load {
		r.rep.ShmFillSkip = "disabled"
	}
	if d.shmDir == "" {
		dir, err := procs.NewShmDir("mmgate-soak-")
		if err != nil {
			return err
		}
		r.onClose(func() { os.RemoveAll(dir) })
		d.shmDir, d.shmView = dir, dir
	}
	return nil
}

// warmUp sends every image once and reads the baseline.
func (r *run) warmUp(ctx context.Context) error {
	r.v = newVerifier(r.imgs)
	r.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: r.cfg.Concurrency * 2}}
	r.onClose(r.hc.CloseIdleConnections)
	for i := range r.imgs {
		o := do(ctx, r.hc, r.d.url, job{text: "warm up", images: []int{i}}, r.v, r.cfg.RequestTimeout)
		if o.kind != "ok" {
			return fmt.Errorf("soak: warm-up request failed: %s %s\n%s", o.kind, o.detail, r.d.gateway.Stderr.String())
		}
	}
	time.Sleep(time.Second)
	m, err := metrics(r.d.url)
	if err != nil {
		return err
	}
	r.rep.GoroutinesBaseline, r.rep.RSSBaselineMiB = m["go_goroutines"], m["process_resident_memory_bytes"]/(1<<20)
	r.logf("baseline: %v goroutines, %.1f MiB RSS", r.rep.GoroutinesBaseline, r.rep.RSSBaselineMiB)
	return nil
}

// traffic runs the clients, the faults and the metrics poller for
// cfg.Duration.
func (r *run) traffic(ctx context.Context) {
	cfg := r.cfg
	start := time.Now()
	runCtx, stopRun := context.WithTimeout(ctx, cfg.Duration)
	defer stopRun()
	var wg sync.WaitGroup
	for c := 0; c < cfg.Concurrency; c++ {
		wg.Go(func() { r.client(ctx, runCtx, c) })
	}
	if cfg.KillEvery > 0 {
		wg.Go(func() { r.every(runCtx, cfg.KillEvery, r.killFault(ctx)) })
	}
	if cfg.FillEvery > 0 && r.d.prefix != nil {
		wg.Go(func() { r.every(runCtx, cfg.FillEvery, r.fillFault(runCtx)) })
	}
	wg.Go(func() { r.poll(runCtx) })
	lastLog := time.Now()
	for runCtx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		if time.Since(lastLog) >= 5*time.Second {
			lastLog = time.Now()
			r.mu.Lock()
			rep := r.rep
			r.logf("%3.0fs: %d requests, %d ok, %d cancelled, %d clean errors, %d wrong, %d unclean, %d kills, %d fills",
				time.Since(start).Seconds(), rep.Requests, rep.OK, rep.Cancelled, sum(rep.CleanErrors), rep.WrongAnswers, rep.UncleanErrors, rep.WorkerKills, rep.ShmFills)
			r.mu.Unlock()
		}
	}
	wg.Wait()
	r.rep.Seconds = time.Since(start).Seconds()
	r.rep.LatencyMS, r.rep.Overload429 = percentiles(r.lat), percentiles(r.lat429)
}

// client is client c: it sends a random mix of requests until runCtx ends.
func (r *run) client(ctx, runCtx context.Context, c int) {
	cfg := r.cfg
	rng := rand.New(rand.NewSource(cfg.Seed + int64(c)))
	for runCtx.Err() == nil {
		j := job{text: "soak text " + strconv.Itoa(rng.Intn(8)), stream: rng.Intn(2) == 0}
		if rng.Intn(100) < 65 {
			j.images = []int{rng.Intn(len(r.imgs))}
			if rng.Intn(4) == 0 {
				j.images = append(j.images, rng.Intn(len(r.imgs)))
			}
		}
		j.cancel = j.stream && rng.Intn(100) < cfg.CancelPercent
		o := do(ctx, r.hc, r.d.url, j, r.v, cfg.RequestTimeout)
		if runCtx.Err() != nil && o.kind == "unclean" && ctx.Err() != nil {
			return
		}
		r.record(o)
		if o.status == 429 {
			time.Sleep(10 * time.Millisecond) // a client backing off
		}
	}
}

// record counts one outcome.
func (r *run) record(o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := r.rep
	rep.Requests++
	if o.status >= 500 {
		rep.ServerErrors5x++
	}
	switch o.kind {
	case "ok":
		rep.OK++
		if o.image {
			rep.ImageOK++
		}
		r.lat = append(r.lat, o.latency)
	case "cancelled":
		rep.Cancelled++
	case "clean":
		rep.CleanErrors[o.detail]++
		if o.status == 429 {
			r.lat429 = append(r.lat429, o.latency)
		}
	case "wrong":
		rep.WrongAnswers++
	default:
		rep.UncleanErrors++
	}
	if (o.kind == "wrong" || o.kind == "unclean") && len(rep.Problems) < 20 {
		rep.Problems = append(rep.Problems, o.kind+": "+o.detail)
	}
}

// every calls f each period until runCtx ends.
func (r *run) every(runCtx context.Context, period time.Duration, f func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-runCtx.Done():
			return
		case <-t.C:
		}
		f()
	}
}

// killFault kills a random worker with SIGKILL and restarts it.
func (r *run) killFault(ctx context.Context) func() {
	rng := rand.New(rand.NewSource(r.cfg.Seed - 1))
	return func() {
		if err := r.d.killAndRestart(ctx, rng.Intn(r.cfg.Workers)); err != nil {
			r.logf("restart: %v", err)
		}
		r.mu.Lock()
		r.rep.WorkerKills++
		r.mu.Unlock()
	}
}

// fillFault fills the shm tmpfs for 1.5 s.
func (r *run) fillFault(runCtx context.Context) func() {
	return func() {
		if err := r.d.fill(runCtx, 1500*time.Millisecond); err != nil {
			r.logf("fill: %v", err)
			return
		}
		r.mu.Lock()
		r.rep.ShmFills++
		r.mu.Unlock()
	}
}

// poll records the peaks of the gateway's metrics at once and then every
// 250 ms until runCtx ends.
func (r *run) poll(runCtx context.Context) {
	r.peaks()
	r.every(runCtx, 250*time.Millisecond, r.peaks)
}

// peaks scrapes the gateway's metrics and keeps the highest values seen.
func (r *run) peaks() {
	m, err := metrics(r.d.url)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := r.rep
	rep.GoroutinesPeak = max(rep.GoroutinesPeak, m["go_goroutines"])
	rep.RSSPeakMiB = max(rep.RSSPeakMiB, m["process_resident_memory_bytes"]/(1<<20))
	rep.ShmPeakBytes = max(rep.ShmPeakBytes, m["mmgate_shm_bytes_in_use"])
	rep.CachePeakBytes = max(rep.CachePeakBytes, m["mmgate_tensor_cache_bytes"])
	rep.AdmissionPeakBytes = max(rep.AdmissionPeakBytes, m["mmgate_admission_bytes"])
	rep.AdmissionWaitingPeak = max(rep.AdmissionWaitingPeak, m["mmgate_admission_waiting_requests"])
}

// settle brings every worker back, waits for the janitor's sweep and for
// the goroutines and RSS to come down, stops the deployment and checks.
func (r *run) settle(ctx context.Context) {
	cfg, rep, d := r.cfg, r.rep, r.d
	if err := d.reviveAll(ctx); err != nil {
		rep.Failures = append(rep.Failures, err.Error())
	}
	if !d.gateway.Alive() {
		rep.Failures = append(rep.Failures, "the gateway died: "+short(d.gateway.Stderr.String()))
		return
	}
	// Segments the gateway keeps for reuse go after a few idle TTLs; wait
	// for that, then for the janitor's sweep of what killed workers left.
	deadline := time.Now().Add(6*cfg.JanitorTTL + 4*cfg.JanitorTick + 5*time.Second)
	for {
		rep.SegmentsLeft = d.segments()
		if len(rep.SegmentsLeft) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Idle keep-alive connections hold a goroutine each in the gateway:
	// close ours before counting.
	r.hc.CloseIdleConnections()
	deadline = time.Now().Add(20 * time.Second)
	for {
		m, err := metrics(d.url)
		if err == nil {
			rep.GoroutinesAfter, rep.RSSAfterMiB = m["go_goroutines"], m["process_resident_memory_bytes"]/(1<<20)
		}
		if rep.GoroutinesAfter <= rep.GoroutinesBaseline+20 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if m, err := metrics(d.url); err == nil {
		rep.ShmFallbacks, rep.TensorsByPath = labelled(m, "mmgate_mm_shm_fallbacks_total"), labelled(m, "mmgate_mm_tensors_total")
		rep.AdmissionBytesAfter, rep.AdmissionRefused = m["mmgate_admission_bytes"], labelled(m, "mmgate_admission_refused_total")
		rep.AdmissionWaited = m[`mmgate_admission_wait_seconds_count{outcome="admitted"}`] - m[`mmgate_admission_wait_seconds_bucket{outcome="admitted",le="0"}`]
	}
	// A graceful stop leaves nothing behind.
	d.stop()
	rep.SegmentsAfterStop = d.segments()
	check(cfg, rep)
	r.logf("done: %d requests in %.0fs, %d ok, failures %v", rep.Requests, rep.Seconds, rep.OK, rep.Failures)
}

// check turns the figures into failures.
func check(cfg *Config, rep *Report) {
	fail := func(format string, a ...any) { rep.Failures = append(rep.Failures, fmt.Sprintf(format, a...)) }
	if rep.WrongAnswers > 0 {
		fail("%d wrong answers", rep.WrongAnswers)
	}
	if rep.UncleanErrors > 0 {
		fail("%d unclean errors", rep.UncleanErrors)
	}
	if rep.OK == 0 || rep.ImageOK == 0 {
		fail("no successful requests (%d) or image requests (%d)", rep.OK, rep.ImageOK)
	}
	if len(rep.SegmentsLeft) > 0 {
		fail("%d shm segments left after the janitor interval: %v", len(rep.SegmentsLeft), rep.SegmentsLeft)
	}
	if len(rep.SegmentsAfterStop) > 0 {
		fail("%d shm segments left after the gateway stopped: %v", len(rep.SegmentsAfterStop), rep.SegmentsAfterStop)
	}
	if rep.GoroutinesAfter > rep.GoroutinesBaseline+20 {
		fail("goroutine leak: %v after, baseline %v", rep.GoroutinesAfter, rep.GoroutinesBaseline)
	}
	limit := rep.RSSBaselineMiB + float64(cfg.CacheBytes)/(1<<20) + 256
	if rep.RSSAfterMiB > limit {
		fail("RSS %.0f MiB after the run, over baseline %.0f MiB + cache budget + 256 MiB", rep.RSSAfterMiB, rep.RSSBaselineMiB)
	}
	if rep.ShmBudgetBytes > 0 && rep.ShmPeakBytes > float64(rep.ShmBudgetBytes) {
		fail("shm bytes in use peaked at %.0f, over the budget %d", rep.ShmPeakBytes, rep.ShmBudgetBytes)
	}
	if rep.AdmissionBytesAfter != 0 {
		fail("%.0f planned tensor bytes still admitted after the run: an admission was not given back", rep.AdmissionBytesAfter)
	}
	if rep.CachePeakBytes > float64(cfg.CacheBytes) {
		fail("tensor cache peaked at %.0f bytes, over the budget %d", rep.CachePeakBytes, cfg.CacheBytes)
	}
	if cfg.Load {
		if rep.ServerErrors5x > 0 {
			fail("%d 5xx answers under load", rep.ServerErrors5x)
		}
		if rep.Overload429.N > 0 && rep.Overload429.P99 > 500 {
			fail("429s are not immediate: p99 %.0f ms", rep.Overload429.P99)
		}
	}
}

// percentiles summarises durations in milliseconds, to the microsecond.
func percentiles(ds []time.Duration) Percentiles {
	s := stats.Summarize(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return Percentiles{N: s.N, P50: ms(s.P50), P90: ms(s.P90), P99: ms(s.P99), Max: ms(s.Max)}
}

// labelled returns the series of metric name keyed by their labels.
func labelled(m map[string]float64, name string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if labels, ok := strings.CutPrefix(k, name+"{"); ok && labels != "*}" {
			out[strings.TrimSuffix(labels, "}")] = v
		}
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
