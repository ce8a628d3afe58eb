package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

func runTokenizeCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), &stdio{in: strings.NewReader(stdin), out: &out, err: &errb}, append([]string{"tokenize"}, args...))
	return code, out.String(), errb.String()
}

func TestTokenizeEncodeDecode(t *testing.T) {
	dir := tokenizertest.Qwen3Dir()
	file := filepath.Join(dir, "tokenizer.json.gz")
	tok := tokenizertest.Qwen3(t)
	for _, tc := range []struct {
		name, in string
		args     []string
	}{
		{"dir", "Hello <|im_start|>world\n", []string{"--tokenizer", dir}},
		{"file", "  tabs\tand 中文 😀", []string{"--tokenizer", file}},
		{"empty", "", []string{"--tokenizer", dir}},
		{"skip flag ignored when encoding", "x<think>y", []string{"--tokenizer", dir, "--skip-special-tokens"}},
	} {
		code, out, errs := runTokenizeCmd(t, tc.in, tc.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errs)
		}
		var got struct {
			IDs []uint32 `json:"ids"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %q: %v", tc.name, out, err)
		}
		if want := tok.Encode(tc.in); !slices.Equal(got.IDs, want) {
			t.Errorf("%s: ids %v, want %v", tc.name, got.IDs, want)
		}
		if tc.in == "" && strings.TrimSpace(out) != `{"ids":[]}` {
			t.Errorf("empty input printed %q", out)
		}
		// And back.
		code, out, errs = runTokenizeCmd(t, out, append(tc.args, "--decode")...)
		if code != 0 {
			t.Fatalf("%s decode: exit %d: %s", tc.name, code, errs)
		}
		var text struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(out), &text); err != nil || text.Text != tc.in {
			t.Errorf("%s decode: %q (%v), want text %q", tc.name, out, err, tc.in)
		}
	}
}

func TestTokenizeDecodeSkipSpecial(t *testing.T) {
	dir := tokenizertest.Qwen3Dir()
	// <|im_start|> (special) user \n <think> (added, not special) </s>-like unknown id.
	in := `{"ids": [151644, 872, 198, 151667, 9707, 99999999]}`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--decode"}, "<|im_start|>user\n<think>Hello"},
		{[]string{"--decode", "--skip-special-tokens"}, "user\n<think>Hello"},
	} {
		code, out, errs := runTokenizeCmd(t, in, append([]string{"--tokenizer", dir}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		var text struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(out), &text); err != nil || text.Text != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, out, tc.want)
		}
	}
}

func TestTokenizeErrors(t *testing.T) {
	dir := tokenizertest.Qwen3Dir()
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"no tokenizer", "x", nil, 2},
		{"unknown flag", "x", []string{"--tokenizer", dir, "--bogus"}, 2},
		{"positional", "x", []string{"--tokenizer", dir, "extra"}, 2},
		{"missing file", "x", []string{"--tokenizer", filepath.Join(t.TempDir(), "none.json")}, 1},
		{"decode not json", "1 2 3", []string{"--tokenizer", dir, "--decode"}, 1},
		{"decode no ids", `{"text": "x"}`, []string{"--tokenizer", dir, "--decode"}, 1},
		{"decode negative id", `{"ids": [-1]}`, []string{"--tokenizer", dir, "--decode"}, 1},
		{"decode fractional id", `{"ids": [1.5]}`, []string{"--tokenizer", dir, "--decode"}, 1},
	} {
		code, _, errs := runTokenizeCmd(t, tc.stdin, tc.args...)
		if code != tc.code || errs == "" {
			t.Errorf("%s: exit %d stderr %q, want exit %d and a reason", tc.name, code, errs, tc.code)
		}
	}
	if code, _, _ := runTokenizeCmd(t, "", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}
