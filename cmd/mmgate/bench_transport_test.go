package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1,4,16", []int{1 << 20, 4 << 20, 16 << 20}, true},
		{" 64KiB , 2MiB,1GiB,2048B", []int{64 << 10, 2 << 20, 1 << 30, 2048}, true},
		{"1000B", nil, false},
		{"0", nil, false},
		{"-1", nil, false},
		{"x", nil, false},
		{"", nil, false},
	} {
		got, err := parseSizes(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("parseSizes(%q) = %v, %v", tc.in, got, err)
		}
	}
}

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
