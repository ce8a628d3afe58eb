package main

import (
	"context"
	"flag"
	"os"
	"strings"

	"github.com/mmgate/mmgate/internal/tools/routebench"
)

// runBenchRouting is `mmgate bench routing`: multi-turn image
// conversations over reference workers behind a gateway, once per policy;
// one JSON line per policy on stdout, a table on stderr.
func runBenchRouting(ctx context.Context, s *stdio, args []string) int {
	const synopsis = "bench routing [--short] [--policies P,P...] [--workers N] [--conversations N] [--turns N] [--concurrency N] [flags]"
	fs := newFlagSet(s, "bench routing", synopsis)
	short := fs.Bool("short", false, "a quick run: 2 workers, 8 conversations of 3 turns, 4 at a time (flags given still win)")
	var cfg routebench.Config
	policies := fs.String("policies", "cache_aware,least_loaded,round_robin", "the gateway policies to compare, comma-separated")
	fs.IntVar(&cfg.Workers, "workers", 4, "reference worker processes")
	fs.IntVar(&cfg.Conversations, "conversations", 32, "conversations, each with its own image")
	fs.IntVar(&cfg.Turns, "turns", 4, "turns per conversation (each sends the whole history)")
	fs.IntVar(&cfg.Concurrency, "concurrency", 8, "conversations in flight")
	fs.IntVar(&cfg.ImageSize, "image-size", 512, "side of the conversations' square images, pixels")
	fs.IntVar(&cfg.MaxTokens, "max-tokens", 16, "tokens generated per turn")
	fs.Float64Var(&cfg.PrefillRate, "prefill-rate", 5000, "the workers' --prefill-rate: prompt tokens per second they charge for what their cache did not hold (negative: none)")
	fs.StringVar(&cfg.ModelDir, "model", "", "model folder (default: the demo model)")
	fs.String("config", "", "configuration file (YAML or JSON)")
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	if len(rest) > 0 {
		return benchFail(s, "routing", 2, "unexpected arguments", rest)
	}
	if *short {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		cfg.Shorten(func(name string) bool { return set[name] })
	}
	cfg.Policies = strings.Split(*policies, ",")
	if cfg.Binary, err = os.Executable(); err != nil {
		return benchFail(s, "routing", 1, err)
	}
	cfg.Log = s.err
	results, err := routebench.Run(ctx, cfg)
	for _, r := range results {
		if code := writeJSONLine(s, r); code != 0 {
			return code
		}
	}
	if err != nil {
		return benchFail(s, "routing", 1, err)
	}
	return 0
}
