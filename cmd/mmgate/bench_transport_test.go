package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestBenchUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{nil, 2, "usage: mmgate bench"},
		{[]string{"gateway"}, 2, "--images DIR is required"},
		{[]string{"nope"}, 2, "unknown benchmark"},
		{[]string{"-h"}, 0, ""},
		{[]string{"transport", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"transport", "--sizes", "1000B"}, 2, "--sizes"},
		{[]string{"transport", "--paths", "carrier-pigeon"}, 2, "unknown path"},
		{[]string{"transport", "--runs", "0"}, 2, "--runs"},
	} {
		var out, errb bytes.Buffer
		code := runBench(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, tc.args)
		if code != tc.code || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("bench %v: exit %d, stderr %q", tc.args, code, errb.String())
		}
	}
}
