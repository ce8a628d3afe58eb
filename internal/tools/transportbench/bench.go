package transportbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mmgate/mmgate/engine/tokenspeed/tensordata"
	"github.com/mmgate/mmgate/internal/tools/stats"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
)

// The measured paths.
const (
	PathInlineTCP  = "inline-tcp"
	PathInlineUnix = "inline-unix"
	PathShm        = "shm"
	PathMemcpy     = "memcpy"
	// PathShmReuse: one pre-faulted segment per size, refilled for every
	// run, sent to a worker that does not unlink what it reads. It measures
	// what a pool of reusable segments would give; it is not measured
	// unless asked for.
	PathShmReuse = "shm-reuse"
)

// AllPaths lists the paths measured by default, in table order.
var AllPaths = []string{PathInlineTCP, PathInlineUnix, PathShm, PathMemcpy}

// KnownPaths lists every path Run accepts.
var KnownPaths = []string{PathInlineTCP, PathInlineUnix, PathShm, PathMemcpy, PathShmReuse}

// Config describes one benchmark run. Addresses come from a worker process
// running RunWorker (TCP first, then unix socket).
type Config struct {
	Sizes    []int    // bytes, multiples of 1024
	Paths    []string // subset of AllPaths; nil = all
	Runs     int      // measured runs per size and path (default 10)
	Warmup   int      // unmeasured runs first (default 2)
	TCPAddr  string   // "HOST:PORT" of the worker
	UnixAddr string   // "unix:///path" of the worker
	KeepAddr string   // "unix:///path" of a worker that keeps segments (shm-reuse)
	MaxMsg   int      // gRPC message limit on the client (default 512 MiB)
	Pool     *shm.Pool
	// ReusePool makes the shm-reuse segments. Its prefix should not start
	// with another pool's prefix and its TTL should outlast the run, so
	// that no janitor (this process's or another gateway's) removes them.
	ReusePool *shm.Pool
	Progress  io.Writer // per-size progress lines; nil discards
}

// Result is one row: the median and 90th percentile, in milliseconds, of the
// time from the producer starting to write the tensor to the worker having
// read every byte.
type Result struct {
	Bytes    int     `json:"bytes"`
	Path     string  `json:"path"`
	MedianMS float64 `json:"median_ms"`
	P90MS    float64 `json:"p90_ms"`
}

// Run measures every size × path, interleaving the paths run by run.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if cfg.Runs <= 0 {
		cfg.Runs = 10
	}
	if cfg.Warmup < 0 {
		cfg.Warmup = 0
	}
	if cfg.MaxMsg == 0 {
		cfg.MaxMsg = 512 << 20
	}
	if cfg.Paths == nil {
		cfg.Paths = AllPaths
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	clients, closeAll, err := dial(cfg)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	var results []Result
	seed := uint64(1)
	for _, n := range cfg.Sizes {
		if n <= 0 || n%1024 != 0 {
			return nil, fmt.Errorf("bench: size %d is not a positive multiple of 1024", n)
		}
		times, err := measureSize(ctx, cfg, n, clients, &seed)
		if err != nil {
			return nil, err
		}
		for _, p := range cfg.Paths {
			r := summarize(n, p, times[p])
			results = append(results, r)
			fmt.Fprintf(cfg.Progress, "%6.0f MiB %-12s median %9.3f ms  p90 %9.3f ms\n", float64(n)/(1<<20), p, r.MedianMS, r.P90MS)
		}
	}
	return results, nil
}

// dial connects to the worker of every path that has one.
func dial(cfg Config) (map[string]schedulerpb.TokenSpeedSchedulerClient, func(), error) {
	clients := map[string]schedulerpb.TokenSpeedSchedulerClient{}
	var conns []*grpc.ClientConn
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for _, p := range cfg.Paths {
		var target string
		switch p {
		case PathInlineTCP:
			target = "passthrough:///" + cfg.TCPAddr
		case PathInlineUnix, PathShm:
			target = cfg.UnixAddr
		case PathShmReuse:
			target = cfg.KeepAddr
		case PathMemcpy:
			continue
		default:
			closeAll()
			return nil, nil, fmt.Errorf("bench: unknown path %q", p)
		}
		if (p == PathShm && cfg.Pool == nil) || (p == PathShmReuse && cfg.ReusePool == nil) {
			closeAll()
			return nil, nil, fmt.Errorf("bench: path %s needs a pool", p)
		}
		conn, err := grpc.NewClient(target,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.MaxMsg), grpc.MaxCallSendMsgSize(cfg.MaxMsg)))
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("bench: dial %s: %w", target, err)
		}
		conns = append(conns, conn)
		clients[p] = schedulerpb.NewTokenSpeedSchedulerClient(conn)
	}
	return clients, closeAll, nil
}

// measureSize runs the warm-up and measured runs of every path for tensors
// of n bytes, interleaving the paths run by run, and returns the measured
// times by path. Every transfer gets a pattern of its own (seed counts them).
func measureSize(ctx context.Context, cfg Config, n int, clients map[string]schedulerpb.TokenSpeedSchedulerClient, seed *uint64) (map[string][]time.Duration, error) {
	times := map[string][]time.Duration{}
	var seg *shm.Segment
	if slices.Contains(cfg.Paths, PathShmReuse) {
		reuse := cfg.ReusePool.NewBatch(ctx, "bench-reuse")
		defer reuse.Release()
		var err error
		if seg, err = reuse.Alloc(n); err != nil {
			return nil, fmt.Errorf("bench: shm-reuse %d bytes: %w", n, err)
		}
	}
	for run := 0; run < cfg.Warmup+cfg.Runs; run++ {
		for _, p := range cfg.Paths {
			*seed++
			pat := NewPattern(*seed)
			freshMemory()
			d, err := measure(ctx, p, n, pat, clients[p], cfg.Pool, seg, fmt.Sprintf("bench-%d", *seed))
			if err != nil {
				return nil, fmt.Errorf("bench: %s %d bytes: %w", p, n, err)
			}
			if run >= cfg.Warmup {
				times[p] = append(times[p], d)
			}
		}
	}
	return times, nil
}

// freshMemory returns freed heap memory to the OS so that each run's
// buffers are fresh pages, as in a process that has not just done the same.
func freshMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

func summarize(n int, path string, ds []time.Duration) Result {
	s := stats.Summarize(ds)
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	return Result{Bytes: n, Path: path, MedianMS: ms(s.Median), P90MS: ms(s.P90)}
}

// measure runs one transfer of n bytes and returns its duration.
func measure(ctx context.Context, path string, n int, pat *Pattern, c schedulerpb.TokenSpeedSchedulerClient, pool *shm.Pool, reuse *shm.Segment, id string) (time.Duration, error) {
	want := pat.Sum64(n)
	switch path {
	case PathMemcpy:
		t0 := time.Now()
		a := make([]byte, n)
		pat.Fill(a)
		b := make([]byte, n)
		copy(b, a)
		got := Sum64(b)
		d := time.Since(t0)
		if got != want {
			return 0, fmt.Errorf("memcpy checksum %x, want %x", got, want)
		}
		return d, nil
	case PathInlineTCP, PathInlineUnix:
		t0 := time.Now()
		buf := make([]byte, n)
		pat.Fill(buf)
		td := tensorData(n)
		td.Payload = &schedulerpb.TensorData_Inline{Inline: buf}
		return generate(ctx, c, id, td, want, t0)
	case PathShmReuse:
		t0 := time.Now()
		pat.Fill(reuse.Bytes())
		td := tensorData(n)
		td.Payload = &schedulerpb.TensorData_Shm{Shm: tensordata.Handle(reuse.Handle())}
		return generate(ctx, c, id, td, want, t0)
	case PathShm:
		t0 := time.Now()
		b := pool.NewBatch(ctx, id)
		defer b.Release()
		seg, err := b.Alloc(n)
		if err != nil {
			return 0, err
		}
		pat.Fill(seg.Bytes())
		if err := seg.Seal(); err != nil {
			return 0, err
		}
		td := tensorData(n)
		td.Payload = &schedulerpb.TensorData_Shm{Shm: tensordata.Handle(seg.Handle())}
		d, err := generate(ctx, c, id, td, want, t0)
		if err != nil {
			return 0, err
		}
		b.Commit() // drops the producer's mapping, after the clock stopped
		return d, nil
	}
	return 0, fmt.Errorf("unknown path %q", path)
}

// tensorData describes n bytes as a float32 [n/1024, 256] tensor.
func tensorData(n int) *schedulerpb.TensorData {
	return &schedulerpb.TensorData{Shape: []uint32{uint32(n / 1024), 256}, Dtype: "float32"}
}

// generate sends one request carrying td, checks the worker's digest and
// returns the time from t0 to the worker's answer (the worker answers once it
// has read every byte).
func generate(ctx context.Context, c schedulerpb.TokenSpeedSchedulerClient, id string, td *schedulerpb.TensorData, want uint64, t0 time.Time) (time.Duration, error) {
	req := &schedulerpb.GenerateRequest{
		RequestId: id,
		Tokenized: &schedulerpb.TokenizedInput{InputIds: []uint32{1, 2, 3}},
		MmInputs: &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{{
			Modality:     commonpb.Modality_IMAGE,
			EncoderInput: td,
			Placeholders: []*schedulerpb.PlaceholderRange{{Offset: 1, Length: 1}},
		}}},
	}
	st, err := c.Generate(ctx, req)
	if err != nil {
		return 0, err
	}
	resp, err := st.Recv()
	if err != nil {
		return 0, err
	}
	d := time.Since(t0)
	ids := resp.GetComplete().GetOutputIds()
	if len(ids) != 2 || uint64(ids[0])|uint64(ids[1])<<32 != want {
		return 0, fmt.Errorf("worker digest %v, want %x", ids, want)
	}
	for {
		if _, err := st.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return d, nil
			}
			return 0, err
		}
	}
}
