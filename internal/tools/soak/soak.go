package soak

import (
	"bytes"
	"context"
	"fmt"
	goimage "image"
	"image/color"
	"image/jpeg"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mmgate/mmgate/internal/demomodel"
)

// deployment is the gateway, its workers and the shm directory.
type deployment struct {
	cfg     *Config
	prefix  []string // nsenter prefix, or nil
	shmDir  string   // as the processes see it
	shmView string   // as this process sees it
	url     string

	mu       sync.Mutex
	workers  []*proc
	wargs    [][]string
	wsock    []string
	gateway  *proc
	fillFile string
}

// Run performs one soak or load run and returns its report; the error is
// for setup failures (the checks themselves are Report.Failures).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(cfg.Log, "soak: "+format+"\n", a...) }
	if cfg.WorkDir == "" {
		d, err := os.MkdirTemp("", "mmgate-soak-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		cfg.WorkDir = d
	}
	if cfg.ModelDir == "" {
		d, err := demomodel.Materialize(filepath.Join(cfg.WorkDir, "model"))
		if err != nil {
			return nil, err
		}
		cfg.ModelDir = d
	}
	rep := &Report{Mode: "soak", Concurrency: cfg.Concurrency, Workers: cfg.Workers, CleanErrors: map[string]int{},
		Problems: []string{}, Failures: []string{}, SegmentsLeft: []string{}, SegmentsAfterStop: []string{},
		ShmFallbacks: map[string]float64{}, TensorsByPath: map[string]float64{}, CacheBudgetBytes: cfg.CacheBytes}
	if cfg.Load {
		rep.Mode = "load"
	} else {
		rep.RejectEvery, rep.CancelPercent = max(cfg.RejectEvery, 0), max(cfg.CancelPercent, 0)
	}

	imgs, err := makeImages(&cfg)
	if err != nil {
		return nil, err
	}
	logf("%d images fingerprinted with `mmgate preprocess --hash`", len(imgs))

	d := &deployment{cfg: &cfg}
	// Shared memory: a private small tmpfs when the fill fault runs, else a
	// private directory on the host's tmpfs (never filled).
	if !cfg.Load && cfg.FillEvery > 0 {
		mnt := filepath.Join(cfg.WorkDir, "shm")
		if err := os.MkdirAll(mnt, 0o755); err != nil {
			return nil, err
		}
		ns, err := newNamespace(mnt, cfg.TmpfsBytes)
		if err != nil {
			rep.ShmFillSkip = err.Error()
			logf("shm fill fault skipped: %v", err)
		} else {
			defer ns.close()
			d.prefix, d.shmDir, d.shmView = ns.prefix(), mnt, ns.hostPath()
			rep.ShmBudgetBytes = cfg.TmpfsBytes / 2
		}
	} else if !cfg.Load {
		rep.ShmFillSkip = "disabled"
	}
	if d.shmDir == "" {
		base := "/dev/shm"
		if st, err := os.Stat(base); err != nil || !st.IsDir() {
			base = os.TempDir()
		}
		dir, err := os.MkdirTemp(base, "mmgate-soak-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		d.shmDir, d.shmView = dir, dir
	}
	if cfg.ShmBudget > 0 {
		rep.ShmBudgetBytes = cfg.ShmBudget
	}
	if err := d.start(ctx); err != nil {
		d.stop()
		return nil, err
	}
	defer d.stop()
	logf("gateway %s with %d workers, shm in %s", d.url, cfg.Workers, d.shmDir)

	v := &verifier{imgs: imgs, seen: map[string]string{}}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency * 2}}
	defer hc.CloseIdleConnections()
	// Warm up: every image once, and the baseline.
	for i := range imgs {
		o := do(ctx, hc, d.url, job{text: "warm up", images: []int{i}}, v, cfg.RequestTimeout)
		if o.kind != "ok" {
			return nil, fmt.Errorf("soak: warm-up request failed: %s %s\n%s", o.kind, o.detail, d.gateway.stderr.String())
		}
	}
	time.Sleep(time.Second)
	m, err := metrics(d.url)
	if err != nil {
		return nil, err
	}
	rep.GoroutinesBaseline, rep.RSSBaselineMiB = m["go_goroutines"], m["process_resident_memory_bytes"]/(1<<20)
	logf("baseline: %v goroutines, %.1f MiB RSS", rep.GoroutinesBaseline, rep.RSSBaselineMiB)

	// Traffic and faults.
	start := time.Now()
	runCtx, stopRun := context.WithTimeout(ctx, cfg.Duration)
	defer stopRun()
	var (
		mu          sync.Mutex
		lat, lat429 []time.Duration
		wg          sync.WaitGroup
	)
	record := func(o outcome) {
		mu.Lock()
		defer mu.Unlock()
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
			lat = append(lat, o.latency)
		case "cancelled":
			rep.Cancelled++
		case "clean":
			rep.CleanErrors[o.detail]++
			if o.status == 429 {
				lat429 = append(lat429, o.latency)
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
	for c := 0; c < cfg.Concurrency; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(cfg.Seed + int64(c)))
			for runCtx.Err() == nil {
				j := job{text: "soak text " + strconv.Itoa(rng.Intn(8)), stream: rng.Intn(2) == 0}
				if rng.Intn(100) < 65 {
					j.images = []int{rng.Intn(len(imgs))}
					if rng.Intn(4) == 0 {
						j.images = append(j.images, rng.Intn(len(imgs)))
					}
				}
				j.cancel = j.stream && rng.Intn(100) < cfg.CancelPercent
				o := do(ctx, hc, d.url, j, v, cfg.RequestTimeout)
				if runCtx.Err() != nil && o.kind == "unclean" && ctx.Err() != nil {
					return
				}
				record(o)
				if o.status == 429 {
					time.Sleep(10 * time.Millisecond) // a client backing off
				}
			}
		}(c)
	}
	faults := &sync.WaitGroup{}
	if cfg.KillEvery > 0 {
		faults.Add(1)
		go func() {
			defer faults.Done()
			rng := rand.New(rand.NewSource(cfg.Seed - 1))
			t := time.NewTicker(cfg.KillEvery)
			defer t.Stop()
			for {
				select {
				case <-runCtx.Done():
					return
				case <-t.C:
				}
				if err := d.killAndRestart(rng.Intn(cfg.Workers)); err != nil {
					logf("restart: %v", err)
				}
				mu.Lock()
				rep.WorkerKills++
				mu.Unlock()
			}
		}()
	}
	if cfg.FillEvery > 0 && d.prefix != nil {
		faults.Add(1)
		go func() {
			defer faults.Done()
			t := time.NewTicker(cfg.FillEvery)
			defer t.Stop()
			for {
				select {
				case <-runCtx.Done():
					return
				case <-t.C:
				}
				if err := d.fill(runCtx, 1500*time.Millisecond); err != nil {
					logf("fill: %v", err)
					continue
				}
				mu.Lock()
				rep.ShmFills++
				mu.Unlock()
			}
		}()
	}
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := metrics(d.url); err == nil {
				mu.Lock()
				rep.GoroutinesPeak = max(rep.GoroutinesPeak, m["go_goroutines"])
				rep.RSSPeakMiB = max(rep.RSSPeakMiB, m["process_resident_memory_bytes"]/(1<<20))
				rep.ShmPeakBytes = max(rep.ShmPeakBytes, m["mmgate_shm_bytes_in_use"])
				rep.CachePeakBytes = max(rep.CachePeakBytes, m["mmgate_tensor_cache_bytes"])
				mu.Unlock()
			}
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
			}
		}
	}()
	lastLog := time.Now()
	for runCtx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		if time.Since(lastLog) >= 5*time.Second {
			lastLog = time.Now()
			mu.Lock()
			logf("%3.0fs: %d requests, %d ok, %d cancelled, %d clean errors, %d wrong, %d unclean, %d kills, %d fills",
				time.Since(start).Seconds(), rep.Requests, rep.OK, rep.Cancelled, sum(rep.CleanErrors), rep.WrongAnswers, rep.UncleanErrors, rep.WorkerKills, rep.ShmFills)
			mu.Unlock()
		}
	}
	wg.Wait()
	faults.Wait()
	<-pollDone
	rep.Seconds = time.Since(start).Seconds()
	rep.LatencyMS, rep.Overload429 = percentiles(lat), percentiles(lat429)

	// Settle: every worker back, the janitor's sweep, goroutines and RSS.
	if err := d.reviveAll(ctx); err != nil {
		rep.Failures = append(rep.Failures, err.Error())
	}
	if !d.gateway.alive() {
		rep.Failures = append(rep.Failures, "the gateway died: "+short(d.gateway.stderr.String()))
		return rep, nil
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
	hc.CloseIdleConnections()
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
	}
	// A graceful stop leaves nothing behind.
	d.stop()
	rep.SegmentsAfterStop = d.segments()
	check(&cfg, rep)
	logf("done: %d requests in %.0fs, %d ok, failures %v", rep.Requests, rep.Seconds, rep.OK, rep.Failures)
	return rep, nil
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

func (d *deployment) start(ctx context.Context) error {
	cfg := d.cfg
	for i := 0; i < cfg.Workers; i++ {
		sock := filepath.Join(cfg.WorkDir, "w"+strconv.Itoa(i)+".sock")
		args := []string{cfg.Binary, "worker", "--model", cfg.ModelDir, "--listen", "unix://" + sock, "--shm-dir", d.shmDir, "--log-level", "warn"}
		if cfg.RejectEvery > 0 {
			args = append(args, "--reject-every", strconv.Itoa(cfg.RejectEvery))
		}
		if cfg.TokenDelay > 0 {
			args = append(args, "--token-delay", cfg.TokenDelay.String())
		}
		d.wargs = append(d.wargs, args)
		d.wsock = append(d.wsock, sock)
		d.workers = append(d.workers, nil)
		if err := d.startWorker(i); err != nil {
			return err
		}
	}
	addr, err := freePort()
	if err != nil {
		return err
	}
	args := []string{cfg.Binary, "serve", "--listen", addr, "--model", cfg.ModelDir, "--shm-dir", d.shmDir,
		"--shm-ttl", cfg.JanitorTTL.String(), "--shm-sweep-interval", cfg.JanitorTick.String(), "--health-interval", "200ms",
		"--cache-bytes", strconv.FormatInt(cfg.CacheBytes, 10), "--log-level", "warn",
		// The RSS check looks for memory the gateway holds on to. At the
		// default collector target (300) garbage may reach three times the
		// live heap before a collection, slack that would hide a leak of
		// that size and moves with timing; at 100 it is one live heap.
		"--gc-percent", "100"}
	if cfg.ShmBudget > 0 {
		args = append(args, "--shm-budget", strconv.FormatInt(cfg.ShmBudget, 10))
	}
	if cfg.MaxInFlight > 0 {
		args = append(args, "--max-in-flight", strconv.Itoa(cfg.MaxInFlight))
	}
	for _, s := range d.wsock {
		args = append(args, "--worker", "unix://"+s)
	}
	p, err := startProc("gateway", d.prefix, args...)
	if err != nil {
		return err
	}
	d.gateway = p
	d.url = "http://" + addr
	return waitReady(ctx, p, d.url+"/health/ready", 30*time.Second)
}

func (d *deployment) startWorker(i int) error {
	os.Remove(d.wsock[i])
	p, err := startProc("worker "+strconv.Itoa(i), d.prefix, d.wargs[i]...)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.workers[i] = p
	d.mu.Unlock()
	return waitFile(d.wsock[i], p, 30*time.Second)
}

func (d *deployment) killAndRestart(i int) error {
	d.mu.Lock()
	p := d.workers[i]
	d.mu.Unlock()
	p.kill()
	time.Sleep(300 * time.Millisecond)
	return d.startWorker(i)
}

// reviveAll restarts any dead worker and waits until the gateway is ready.
func (d *deployment) reviveAll(ctx context.Context) error {
	for i := range d.workers {
		d.mu.Lock()
		p := d.workers[i]
		d.mu.Unlock()
		if !p.alive() {
			if err := d.startWorker(i); err != nil {
				return err
			}
		}
	}
	return waitReady(ctx, d.gateway, d.url+"/health/ready", 10*time.Second)
}

// fill takes all but 64 KiB of the tmpfs for hold, then frees it.
func (d *deployment) fill(ctx context.Context, hold time.Duration) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(d.shmView, &st); err != nil {
		return err
	}
	free := int64(st.Bavail)*int64(st.Bsize) - 64<<10
	if free <= 0 {
		return nil
	}
	path := filepath.Join(d.shmView, "soak-filler")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	buf := make([]byte, 1<<20)
	for free > 0 {
		n := min(free, int64(len(buf)))
		if _, err := f.Write(buf[:n]); err != nil {
			break // full: that is the point
		}
		free -= n
	}
	f.Close()
	select {
	case <-ctx.Done():
	case <-time.After(hold):
	}
	return nil
}

// segments lists what is left in the shm directory (the filler excluded).
func (d *deployment) segments() []string {
	ents, _ := os.ReadDir(d.shmView)
	out := []string{}
	for _, e := range ents {
		if e.Name() != "soak-filler" {
			out = append(out, e.Name())
		}
	}
	return out
}

func (d *deployment) stop() {
	if d.gateway != nil {
		d.gateway.stop(15 * time.Second)
	}
	d.mu.Lock()
	ws := slices.Clone(d.workers)
	d.mu.Unlock()
	for _, w := range ws {
		if w != nil {
			w.stop(10 * time.Second)
		}
	}
}

// makeImages writes cfg.Images synthetic JPEGs of assorted sizes and asks
// the binary for the fingerprint of each one's pixel_values.
func makeImages(cfg *Config) ([]image, error) {
	dir := filepath.Join(cfg.WorkDir, "images")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sizes := [][2]int{{640, 480}, {300, 200}, {97, 301}, {512, 512}, {1024, 160}, {56, 56}, {800, 600}, {333, 222}}
	var out []image
	for i := 0; i < cfg.Images; i++ {
		w, h := sizes[i%len(sizes)][0], sizes[i%len(sizes)][1]
		m := synthImage(w, h, i)
		var b bytes.Buffer
		if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: 85}); err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "img"+strconv.Itoa(i)+".jpg")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return nil, err
		}
		outb, err := exec.Command(cfg.Binary, "preprocess", "--model", cfg.ModelDir, "--dtype", "bfloat16", "--hash", path).Output()
		if err != nil {
			return nil, fmt.Errorf("soak: mmgate preprocess %s: %w", path, err)
		}
		k := strings.Index(string(outb), `"sha256":"`)
		if k < 0 || len(outb) < k+10+64 {
			return nil, fmt.Errorf("soak: preprocess output without sha256: %s", outb)
		}
		out = append(out, image{dataURL: dataURL(b.Bytes()), sha: string(outb[k+10 : k+10+64])})
	}
	return out, nil
}

// synthImage is a w×h gradient-and-bars picture that seed varies.
func synthImage(w, h, seed int) *goimage.NRGBA {
	m := goimage.NewNRGBA(goimage.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.Set(x, y, color.NRGBA{uint8(x*7 + seed*31), uint8(y*5 + seed*11), uint8((x ^ y) + seed*3), 255})
		}
	}
	return m
}

func percentiles(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(q float64) float64 {
		i := int(q * float64(len(ds)-1))
		return float64(ds[i].Microseconds()) / 1000
	}
	return Percentiles{N: len(ds), P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: float64(ds[len(ds)-1].Microseconds()) / 1000}
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
