package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestBenchSoakUsage: bad flags are usage errors (exit 2) before anything
// starts. (The soak itself is tested in internal/tools/soak.)
func TestBenchSoakUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--duration", "0s"},
		{"--workers", "0"},
		{"--no-such-flag"},
		{"extra"},
		{"--tmpfs-size", "lots"},
	} {
		var out, errb bytes.Buffer
		code := runBenchSoak(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
		if code != 2 || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runBenchSoak(context.Background(), &stdio{out: &out, err: &errb}, []string{"-h"}); code != 0 || !strings.Contains(out.String()+errb.String(), "--load") {
		t.Errorf("-h: exit %d, %q %q", code, out.String(), errb.String())
	}
}
