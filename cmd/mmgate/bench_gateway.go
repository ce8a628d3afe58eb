package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mmgate/mmgate/internal/tools/benchgw"
)

// runBenchGateway is `mmgate bench gateway`: it load-tests a running gateway
// with streaming one-image chat requests plus a text-only probe stream, and
// prints throughput, latency/TTFT percentiles, errors, the transport mix and
// per-stage means (a table, or one JSON object with --json) for each
// concurrency level (one, or each of --concurrency-sweep, in order). With
// --report DIR it also writes DIR/report.json and DIR/index.html.
func runBenchGateway(ctx context.Context, s *stdio, args []string) int {
	const synopsis = "bench gateway --url URL --images DIR [--concurrency N | --concurrency-sweep 1,2,4,8] [--requests N] [--duration D] [--model NAME] [--max-tokens N] [--json] [--report DIR]"
	fs := newFlagSet(s, "bench gateway", synopsis)
	url := fs.String("url", "http://127.0.0.1:8080", "gateway base URL: http://HOST:PORT or unix:///path (loopback only unless --allow-remote)")
	images := fs.String("images", "", "directory of image files; request i sends file i mod count, in name order; each concurrency level goes on where the previous one stopped (required)")
	concurrency := trackedInt{v: benchgw.DefaultConcurrency}
	fs.Var(&concurrency, "concurrency", "keep `N` image requests in flight")
	sweep := fs.String("concurrency-sweep", "", "run once per concurrency level, e.g. 1,2,4,8 (default with --report and no --concurrency: "+strings.Join(itoaAll(defaultSweep), ",")+")")
	report := fs.String("report", "", "also write report.json and index.html (charts) into this directory")
	requests := fs.Int("requests", benchgw.DefaultRequests, "image requests to send (per concurrency level)")
	duration := fs.Duration("duration", benchgw.DefaultDuration, "time cap: no request starts after it (per concurrency level)")
	model := fs.String("model", benchgw.DefaultModel, "model name sent in each request")
	maxTokens := fs.Int("max-tokens", benchgw.DefaultMaxTokens, "max_tokens of each request")
	text := fs.String("text", benchgw.DefaultText, "text part sent after each image")
	probeText := fs.String("probe-text", benchgw.DefaultProbeText, "message of the text-only probe requests")
	noProbe := fs.Bool("no-probe", false, "do not run the text-only probe stream")
	noWarmUp := fs.Bool("no-warm-up", false, "skip the unmeasured warm-up (3 text requests and one small generated image) before the run")
	probeInProcess := fs.Bool("probe-in-process", false, "send the text probes from a goroutine of this process instead of a process of their own (a separate text client)")
	probeEvery := fs.Duration("probe-interval", benchgw.DefaultProbeInterval, "one text probe starts every interval (negative: back to back)")
	timeout := fs.Duration("request-timeout", benchgw.DefaultRequestTimeout, "limit for each request")
	allowRemote := fs.Bool("allow-remote", false, "allow a --url whose host is not loopback")
	apiKey := fs.String("api-key", "", "API key sent as a bearer token")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	fs.String("config", "", "configuration file (YAML or JSON)")
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	usage := func(msg string) int {
		fmt.Fprintln(s.err, "mmgate bench gateway:", msg)
		return 2
	}
	switch {
	case len(rest) > 0:
		return usage(fmt.Sprintf("unexpected argument %q", rest[0]))
	case *images == "":
		return usage("--images DIR is required")
	case concurrency.v < 1:
		return usage("--concurrency must be ≥ 1")
	case *requests < 1:
		return usage("--requests must be ≥ 1")
	case *duration <= 0:
		return usage("--duration must be > 0")
	case *maxTokens < 1:
		return usage("--max-tokens must be ≥ 1")
	case *timeout <= 0:
		return usage("--request-timeout must be > 0")
	}

	levels, err := sweepLevels(*sweep, concurrency, *report)
	if err != nil {
		return usage("--concurrency-sweep: " + err.Error())
	}

	imgs, err := benchgw.LoadImages(*images)
	if err != nil {
		if errors.Is(err, benchgw.ErrNoImages) || errors.Is(err, os.ErrNotExist) {
			return usage(err.Error())
		}
		fmt.Fprintln(s.err, "mmgate bench gateway:", err)
		return 1
	}
	if *report != "" {
		if err := prepareReportDir(*report); err != nil {
			fmt.Fprintln(s.err, "mmgate bench gateway: --report:", err)
			return 1
		}
	}
	var probeProc []string
	if !*probeInProcess && !*noProbe {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(s.err, "mmgate bench gateway: cannot start the probe process:", err)
			return 1
		}
		probeProc = []string{exe, "bench", benchProbeCommand}
	}
	code := 0
	var runs []*benchgw.Report
	for i, level := range levels {
		r, err := benchgw.New(benchgw.Options{
			URL: *url, Images: levelImages(imgs, i, *requests), Concurrency: level, Requests: *requests, Duration: *duration,
			Model: *model, MaxTokens: *maxTokens, Text: *text, ProbeText: *probeText, NoProbe: *noProbe, NoWarmUp: *noWarmUp, ProbeProcess: probeProc, ProbeInterval: *probeEvery,
			AllowRemote: *allowRemote, RequestTimeout: *timeout, APIKey: *apiKey, Progress: s.err,
		})
		if err != nil {
			return usage(err.Error())
		}
		fmt.Fprintf(s.err, "bench gateway: %d image requests at concurrency %d to %s (%d image files)\n", *requests, level, *url, len(imgs))
		rep, err := r.Run(ctx)
		if err != nil {
			fmt.Fprintln(s.err, "mmgate bench gateway:", err)
			code = 1
			break
		}
		runs = append(runs, rep)
		if rep.Image.Failed > 0 || rep.Image.OK == 0 {
			code = 1
		}
		if *asJSON {
			if c := writeJSONLine(s, rep); c != 0 {
				return c
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(s.out)
		}
		if err := benchgw.WriteTable(s.out, rep); err != nil {
			return 1
		}
	}
	if *report != "" && len(runs) > 0 {
		p := gatewayReportParams{url: *url, images: *images, model: *model, imageFiles: len(imgs), requests: *requests,
			maxTokens: *maxTokens, levels: levels, duration: *duration, timeout: *timeout, probeInterval: *probeEvery, noProbe: *noProbe}
		if c := writeGatewayReport(s, *report, p, runs); c != 0 {
			return c
		}
	}
	return code
}
