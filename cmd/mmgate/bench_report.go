package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
	"github.com/mmgate/mmgate/internal/tools/benchreport"
	"github.com/mmgate/mmgate/internal/tools/transportbench"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: how do the bench subcommands write a report directory
// (--report DIR: report.json and index.html, see internal/tools/benchreport)?

// defaultSweep is the concurrency sweep of `bench gateway --report` when
// neither --concurrency nor --concurrency-sweep is given.
var defaultSweep = []int{1, 2, 4, 8}

// trackedInt is an int flag that remembers whether any source (command line,
// environment, config file) set it.
type trackedInt struct {
	v   int
	set bool
}

func (t *trackedInt) String() string {
	if t == nil {
		return "0"
	}
	return strconv.Itoa(t.v)
}

func (t *trackedInt) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	t.v, t.set = n, true
	return nil
}

// parseLevels reads a concurrency sweep: "1,2,4,8" (each ≥ 1, no repeats).
func parseLevels(v string) ([]int, error) {
	var out []int
	for _, f := range splitComma(v) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad concurrency %q (want integers ≥ 1)", f)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("concurrency %d given twice", n)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no concurrency levels")
	}
	return out, nil
}

func itoaAll(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}

// sweepLevels decides the concurrency levels of a gateway bench: an explicit
// sweep; else, with a report and no explicit --concurrency, the default
// sweep; else the single --concurrency.
func sweepLevels(sweep string, conc trackedInt, report string) ([]int, error) {
	switch {
	case strings.TrimSpace(sweep) != "":
		return parseLevels(sweep)
	case report != "" && !conc.set:
		return append([]int(nil), defaultSweep...), nil
	}
	return []int{conc.v}, nil
}

// levelImages is the image list of the i-th level of a sweep: it starts
// where the previous levels' requests stopped, so that with enough files no
// level sends a picture an earlier level sent (which the gateway's tensor
// cache would answer without preprocessing).
func levelImages(imgs []benchgw.Image, i, requests int) []benchgw.Image {
	k := (i * requests) % len(imgs)
	if k == 0 {
		return imgs
	}
	return append(append(make([]benchgw.Image, 0, len(imgs)), imgs[k:]...), imgs[:k]...)
}

// prepareReportDir makes sure DIR can hold the report before a long run.
func prepareReportDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// reportHost describes this machine and build.
func reportHost() benchreport.Host {
	h := benchreport.RuntimeHost()
	h.Hostname, _ = os.Hostname()
	h.CPUModel = cpuModel()
	h.MmgateVersion = version
	h.Cgo = cgoEnabled
	return h
}

// cpuModel is the first "model name" of /proc/cpuinfo ("" elsewhere).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// gatewayReportParams lists the run parameters shown on the report page.
type gatewayReportParams struct {
	url, images, model               string
	imageFiles, requests, maxTokens  int
	levels                           []int
	duration, timeout, probeInterval time.Duration
	noProbe                          bool
}

func (p gatewayReportParams) list() []benchreport.Param {
	probe := "off"
	if !p.noProbe {
		probe = "one text request every " + p.probeInterval.String()
		if p.probeInterval < 0 {
			probe = "text requests back to back"
		}
	}
	return []benchreport.Param{
		{Name: "gateway", Value: p.url},
		{Name: "model", Value: p.model},
		{Name: "images", Value: fmt.Sprintf("%s (%d files)", p.images, p.imageFiles)},
		{Name: "concurrency levels", Value: strings.Join(itoaAll(p.levels), ", ")},
		{Name: "image requests per level", Value: strconv.Itoa(p.requests)},
		{Name: "time cap per level", Value: p.duration.String()},
		{Name: "max_tokens", Value: strconv.Itoa(p.maxTokens)},
		{Name: "text probe", Value: probe},
		{Name: "request timeout", Value: p.timeout.String()},
	}
}

// writeGatewayReport writes DIR/report.json and DIR/index.html for runs.
func writeGatewayReport(s *stdio, dir string, p gatewayReportParams, runs []*benchgw.Report) int {
	g := &benchreport.Gateway{
		Meta: benchreport.Meta{Title: "mmgate gateway benchmark", GeneratedAt: time.Now().UTC(), Host: reportHost(), Parameters: p.list()},
		Runs: runs,
	}
	if err := benchreport.WriteGateway(dir, g); err != nil {
		fmt.Fprintln(s.err, "mmgate bench gateway: --report:", err)
		return 1
	}
	fmt.Fprintf(s.err, "report: %s\n", filepath.Join(dir, benchreport.HTMLFile))
	return 0
}

// writeTransportReport writes DIR/report.json and DIR/index.html for the
// transport results.
func writeTransportReport(s *stdio, dir string, params []benchreport.Param, res []benchreport.TransportResult) int {
	t := &benchreport.Transport{
		Meta:    benchreport.Meta{Title: "mmgate transport benchmark", GeneratedAt: time.Now().UTC(), Host: reportHost(), Parameters: params},
		Results: res,
	}
	if err := benchreport.WriteTransport(dir, t); err != nil {
		fmt.Fprintln(s.err, "mmgate bench transport: --report:", err)
		return 1
	}
	fmt.Fprintf(s.err, "report: %s\n", filepath.Join(dir, benchreport.HTMLFile))
	return 0
}

// transportReportParams lists the run parameters of a transport bench.
func transportReportParams(sizes []int, paths []string, runs, warmup int, pr shm.Probe) []benchreport.Param {
	sz := make([]string, len(sizes))
	for i, n := range sizes {
		sz[i] = fmt.Sprintf("%g MiB", float64(n)/(1<<20))
	}
	ps := []benchreport.Param{
		{Name: "sizes", Value: strings.Join(sz, ", ")},
		{Name: "paths", Value: strings.Join(paths, ", ")},
		{Name: "measured runs per size and path", Value: strconv.Itoa(runs)},
		{Name: "warm-up runs", Value: strconv.Itoa(warmup)},
	}
	if pr.Writable {
		huge := pr.HugePages
		if huge == "" {
			huge = "none (4 KiB pages)"
		}
		ps = append(ps, benchreport.Param{Name: "shared memory", Value: fmt.Sprintf("%s, %d MiB tmpfs, huge pages: %s", pr.Dir, pr.Size>>20, huge)})
	}
	return ps
}

func transportReportResults(res []transportbench.Result) []benchreport.TransportResult {
	out := make([]benchreport.TransportResult, len(res))
	for i, r := range res {
		out[i] = benchreport.TransportResult{Bytes: r.Bytes, Path: r.Path, MedianMS: r.MedianMS, P90MS: r.P90MS}
	}
	return out
}
