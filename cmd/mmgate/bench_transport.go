package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mmgate/mmgate/internal/tools/transportbench"
	"github.com/mmgate/mmgate/shm"
)

// benchWorkerCommand is the hidden `mmgate bench` subcommand that runs the
// worker side of the transport benchmark in its own process.
const benchWorkerCommand = "transport-worker"

// benchReusePrefix names the shm-reuse segments; it does not start with the
// default "mmgate-" so that gateways' janitors leave them alone.
const benchReusePrefix = "mmgatebench-"

func runBenchTransport(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "bench transport", "bench transport [--json] [--sizes 1,4,16,64,256] [--runs N] [--report DIR]")
	asJSON := fs.Bool("json", false, "print {\"results\": [...]} as JSON instead of a table")
	report := fs.String("report", "", "also write report.json and index.html (charts) into this directory")
	sizes := fs.String("sizes", "1,4,16,64,256", "tensor sizes, comma-separated, in MiB unless suffixed (B, KiB, MiB, GiB)")
	runs := fs.Int("runs", 10, "measured runs per size and path")
	warmup := fs.Int("warmup", 2, "unmeasured runs per size and path before measuring")
	paths := fs.String("paths", strings.Join(transportbench.AllPaths, ","), "paths to measure: inline-tcp, inline-unix, shm, memcpy, and shm-reuse (a pre-faulted segment refilled each run, read by a worker that keeps it)")
	shmDir := fs.String("shm-dir", shm.DefaultDir, "shared-memory directory (a tmpfs)")
	logs := addLogFlags(fs)
	if _, err := parseFlags(fs, args, os.LookupEnv); err != nil {
		return exitForParse(err)
	}
	log, err := logs.logger(s)
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport:", err)
		return 2
	}
	sz, err := parseSizes(*sizes)
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport: --sizes:", err)
		return 2
	}
	if *runs < 1 || *warmup < 0 {
		fmt.Fprintln(s.err, "mmgate bench transport: --runs must be ≥ 1 and --warmup ≥ 0")
		return 2
	}
	pl := splitComma(*paths)
	for _, p := range pl {
		if !contains(transportbench.KnownPaths, p) {
			fmt.Fprintf(s.err, "mmgate bench transport: --paths: unknown path %q\n", p)
			return 2
		}
	}

	if *report != "" {
		if err := prepareReportDir(*report); err != nil {
			fmt.Fprintln(s.err, "mmgate bench transport: --report:", err)
			return 1
		}
	}

	pool, err := shm.New(shm.Options{Dir: *shmDir, Budget: -1, Logger: log})
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport:", err)
		return 1
	}
	defer pool.Close()
	// The shm-reuse segments live for the whole run: their own prefix and
	// a long TTL keep every janitor on the directory away from them.
	reusePool, err := shm.New(shm.Options{Dir: *shmDir, Budget: -1, Prefix: benchReusePrefix, TTL: 24 * time.Hour, Logger: log})
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport:", err)
		return 1
	}
	defer reusePool.Close()
	if pr := pool.Probe(); pr.Writable {
		huge := pr.HugePages
		if huge == "" {
			huge = "none (4 KiB pages)"
		}
		fmt.Fprintf(s.err, "shared memory: %s, %d MiB tmpfs, huge pages: %s\n", pr.Dir, pr.Size>>20, huge)
	}
	if contains(pl, transportbench.PathShm) && !pool.Usable() {
		fmt.Fprintln(s.err, "mmgate bench transport: shared memory not usable:", pool.Probe().Err)
		return 1
	}

	tmp, err := os.MkdirTemp("", "mmgate-bench-")
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport:", err)
		return 1
	}
	cmd := exec.CommandContext(ctx, exe, "bench", benchWorkerCommand,
		"--listen", "127.0.0.1:0", "--listen", "unix://"+filepath.Join(tmp, "worker.sock"),
		"--shm-dir", *shmDir, "--max-msg", strconv.Itoa(512<<20))
	cmd.Stderr = s.err
	child, err := transportbench.StartChild(ctx, cmd, 2)
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport:", err)
		return 1
	}
	defer child.Stop()
	keepAddr := ""
	if contains(pl, transportbench.PathShmReuse) {
		kcmd := exec.CommandContext(ctx, exe, "bench", benchWorkerCommand,
			"--listen", "unix://"+filepath.Join(tmp, "keep.sock"), "--shm-dir", *shmDir, "--keep-files", "--prefix", benchReusePrefix)
		kcmd.Stderr = s.err
		keep, err := transportbench.StartChild(ctx, kcmd, 1)
		if err != nil {
			fmt.Fprintln(s.err, "mmgate bench transport:", err)
			return 1
		}
		defer keep.Stop()
		keepAddr = keep.Addrs[0]
	}

	res, err := transportbench.Run(ctx, transportbench.Config{
		Sizes: sz, Paths: pl, Runs: *runs, Warmup: *warmup,
		TCPAddr: child.Addrs[0], UnixAddr: child.Addrs[1], KeepAddr: keepAddr, Pool: pool, ReusePool: reusePool, Progress: s.err,
	})
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport:", err)
		return 1
	}
	code := 0
	if *asJSON {
		if res == nil {
			res = []transportbench.Result{}
		}
		code = writeJSONLine(s, map[string]any{"results": res})
	} else {
		printTransportTable(s.out, res)
	}
	if *report != "" && code == 0 {
		code = writeTransportReport(s, *report, transportReportParams(sz, pl, *runs, *warmup, pool.Probe()), transportReportResults(res))
	}
	return code
}

// printTransportTable prints one row per size and path, with the ratio to
// inline over TCP and to the memcpy floor when those were measured.
func printTransportTable(w io.Writer, res []transportbench.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "size MiB\tpath\tmedian ms\tp90 ms\tinline-tcp / this\tthis / memcpy\t")
	byKey := map[string]transportbench.Result{}
	for _, r := range res {
		byKey[fmt.Sprint(r.Bytes, r.Path)] = r
	}
	for _, r := range res {
		speed, floor := "-", "-"
		if t, ok := byKey[fmt.Sprint(r.Bytes, transportbench.PathInlineTCP)]; ok && r.MedianMS > 0 {
			speed = fmt.Sprintf("%.2f×", t.MedianMS/r.MedianMS)
		}
		if m, ok := byKey[fmt.Sprint(r.Bytes, transportbench.PathMemcpy)]; ok && m.MedianMS > 0 {
			floor = fmt.Sprintf("%.2f×", r.MedianMS/m.MedianMS)
		}
		fmt.Fprintf(tw, "%g\t%s\t%.3f\t%.3f\t%s\t%s\t\n", float64(r.Bytes)/(1<<20), r.Path, r.MedianMS, r.P90MS, speed, floor)
	}
	tw.Flush()
}

// runBenchWorker is the worker process of `bench transport`: it serves until
// its stdin closes.
func runBenchWorker(ctx context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "bench "+benchWorkerCommand, "bench "+benchWorkerCommand+" --listen ADDR [--listen ADDR] [--shm-dir DIR]")
	var listen stringList
	fs.Var(&listen, "listen", "HOST:PORT or unix:///path (repeatable)")
	shmDir := fs.String("shm-dir", shm.DefaultDir, "shared-memory directory")
	maxMsg := fs.Int("max-msg", shm.DefaultMaxInline, "gRPC message limit in bytes")
	copyMode := fs.Bool("copy", false, "read segments with pread instead of mapping them")
	keepFiles := fs.Bool("keep-files", false, "do not unlink segments after reading them")
	var prefixes stringList
	fs.Var(&prefixes, "prefix", "accepted segment name prefix (repeatable; default mmgate's and SMG's)")
	if _, err := parseFlags(fs, args, nil); err != nil {
		return exitForParse(err)
	}
	ctx, cancel := transportbench.ExitOnStdinClose(ctx, s.in)
	defer cancel()
	err := transportbench.RunWorker(ctx, transportbench.WorkerConfig{
		Listen: listen, Dir: *shmDir, MaxMsg: *maxMsg, Copy: *copyMode, KeepFiles: *keepFiles, Prefixes: prefixes,
	}, s.out)
	if err != nil {
		fmt.Fprintln(s.err, "mmgate bench "+benchWorkerCommand+":", err)
		return 1
	}
	return 0
}

// parseSizes reads "1,4,16" (MiB) or values with a B/KiB/MiB/GiB suffix.
func parseSizes(v string) ([]int, error) {
	var out []int
	for _, f := range splitComma(v) {
		mult := 1 << 20
		num := f
		for _, u := range []struct {
			suffix string
			mult   int
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
			if n, ok := strings.CutSuffix(f, u.suffix); ok {
				num, mult = n, u.mult
				break
			}
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		b := n * mult
		if b%1024 != 0 {
			return nil, fmt.Errorf("size %q is not a multiple of 1 KiB", f)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes")
	}
	return out, nil
}

func splitComma(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
