package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mmgate/mmgate/internal/config"
	"github.com/mmgate/mmgate/internal/tools/benchgw"
	"github.com/mmgate/mmgate/internal/tools/benchreport"
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
	o := benchgw.Options{Progress: s.err}
	fs.StringVar(&o.URL, "url", "http://127.0.0.1:8080", "gateway base URL: http://HOST:PORT or unix:///path (loopback only unless --allow-remote)")
	images := fs.String("images", "", "directory of image files; request i sends file i mod count, in name order; each concurrency level goes on where the previous one stopped (required)")
	concurrency := config.GivenInt{N: benchgw.DefaultConcurrency}
	fs.Var(&concurrency, "concurrency", "keep `N` image requests in flight")
	sweep := fs.String("concurrency-sweep", "", "run once per concurrency level, e.g. 1,2,4,8 (default with --report and no --concurrency: "+benchgw.FormatLevels(benchgw.DefaultSweep())+")")
	report := fs.String("report", "", "also write report.json and index.html (charts) into this directory")
	fs.IntVar(&o.Requests, "requests", benchgw.DefaultRequests, "image requests to send (per concurrency level)")
	fs.DurationVar(&o.Duration, "duration", benchgw.DefaultDuration, "time cap: no request starts after it (per concurrency level)")
	fs.StringVar(&o.Model, "model", benchgw.DefaultModel, "model name sent in each request")
	fs.IntVar(&o.MaxTokens, "max-tokens", benchgw.DefaultMaxTokens, "max_tokens of each request")
	fs.StringVar(&o.Text, "text", benchgw.DefaultText, "text part sent after each image")
	fs.StringVar(&o.ProbeText, "probe-text", benchgw.DefaultProbeText, "message of the text-only probe requests")
	fs.BoolVar(&o.NoProbe, "no-probe", false, "do not run the text-only probe stream")
	fs.BoolVar(&o.NoWarmUp, "no-warm-up", false, "skip the unmeasured warm-up (3 text requests and one small generated image) before the run")
	probeInProcess := fs.Bool("probe-in-process", false, "send the text probes from a goroutine of this process instead of a process of their own (a separate text client)")
	fs.DurationVar(&o.ProbeInterval, "probe-interval", benchgw.DefaultProbeInterval, "one text probe starts every interval (negative: back to back)")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", benchgw.DefaultRequestTimeout, "limit for each request")
	fs.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a --url whose host is not loopback")
	fs.StringVar(&o.APIKey, "api-key", "", "API key sent as a bearer token")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	fs.String("config", "", "configuration file (YAML or JSON)")
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	if msg := checkGatewayFlags(rest, *images, concurrency.N, o); msg != "" {
		return benchFail(s, "gateway", 2, msg)
	}
	levels, err := benchgw.Levels(*sweep, concurrency.N, concurrency.Given, *report != "")
	if err != nil {
		return benchFail(s, "gateway", 2, "--concurrency-sweep: "+err.Error())
	}
	imgs, err := benchgw.LoadImages(*images)
	if err != nil {
		if errors.Is(err, benchgw.ErrNoImages) || errors.Is(err, os.ErrNotExist) {
			return benchFail(s, "gateway", 2, err.Error())
		}
		return benchFail(s, "gateway", 1, err.Error())
	}
	if *report != "" {
		if err := benchreport.PrepareDir(*report); err != nil {
			return benchFail(s, "gateway", 1, "--report: "+err.Error())
		}
	}
	if !*probeInProcess && !o.NoProbe {
		exe, err := os.Executable()
		if err != nil {
			return benchFail(s, "gateway", 1, "cannot start the probe process: "+err.Error())
		}
		o.ProbeProcess = []string{exe, "bench", benchProbeCommand}
	}
	return runGatewaySweep(ctx, s, o, imgs, levels, *images, *report, *asJSON)
}

// runGatewaySweep runs the levels, printing each report, and writes the
// --report page of the runs it has, if asked.
func runGatewaySweep(ctx context.Context, s *stdio, o benchgw.Options, imgs []benchgw.Image, levels []int, images, report string, asJSON bool) int {
	runs, stop, err := benchgw.Sweep(ctx, o, imgs, levels, s.out, asJSON)
	code := 0
	switch {
	case stop == benchgw.Refused:
		return benchFail(s, "gateway", 2, err)
	case stop == benchgw.OutputFailed:
		return 1
	case stop == benchgw.RunFailed:
		code = benchFail(s, "gateway", 1, err)
	case benchgw.AnyFailed(runs):
		code = 1
	}
	if report != "" && len(runs) > 0 {
		p := benchreport.GatewayParams{URL: o.URL, Images: images, Model: o.Model, ImageFiles: len(imgs), Requests: o.Requests,
			MaxTokens: o.MaxTokens, Levels: levels, Duration: o.Duration, Timeout: o.RequestTimeout, ProbeInterval: o.ProbeInterval, NoProbe: o.NoProbe}
		path, err := benchreport.SaveGateway(report, reportHost(), p.List(), runs)
		if c := saveReport(s, "gateway", path, err); c != 0 {
			return c
		}
	}
	return code
}

// checkGatewayFlags says what is wrong with the flags of `bench gateway`,
// or "".
func checkGatewayFlags(rest []string, images string, concurrency int, o benchgw.Options) string {
	switch {
	case len(rest) > 0:
		return fmt.Sprintf("unexpected argument %q", rest[0])
	case images == "":
		return "--images DIR is required"
	case concurrency < 1:
		return "--concurrency must be ≥ 1"
	case o.Requests < 1:
		return "--requests must be ≥ 1"
	case o.Duration <= 0:
		return "--duration must be > 0"
	case o.MaxTokens < 1:
		return "--max-tokens must be ≥ 1"
	case o.RequestTimeout <= 0:
		return "--request-timeout must be > 0"
	}
	return ""
}
