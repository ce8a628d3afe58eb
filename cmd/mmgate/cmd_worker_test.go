package main

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/mmgate/mmgate/refworker"
)

// The routing-measurement flags of `mmgate worker` reach refworker's
// options: --prefix-cache-tokens 0 turns the cache off (negative there,
// where 0 is the default size) and --prefill-rate is passed as given.
func TestWorkerOptionsPrefixCache(t *testing.T) {
	check := func(cache int, rate float64, args ...string) {
		t.Helper()
		var errb bytes.Buffer
		fs := newFlagSet(&stdio{err: &errb}, "worker", "worker")
		var w workerFlags
		w.register(fs)
		if _, err := parseFlags(fs, append([]string{"--model", "m"}, args...), nil); err != nil {
			t.Fatalf("%v: %v: %s", args, err, errb.String())
		}
		o, err := w.options(slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if o.PrefixCache != cache || o.PrefillRate != rate {
			t.Errorf("%v: PrefixCache %d, PrefillRate %v; want %d, %v", args, o.PrefixCache, o.PrefillRate, cache, rate)
		}
	}
	check(refworker.DefaultPrefixCache, 0)
	check(-1, 0, "--prefix-cache-tokens", "0")
	check(4096, 2500, "--prefix-cache-tokens", "4096", "--prefill-rate", "2500")
}
