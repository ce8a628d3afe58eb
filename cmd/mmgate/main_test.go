package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/buildinfo"
)

func TestDispatch(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := dispatch(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
		return code, out.String(), errb.String()
	}
	if code, _, _ := run(); code != 2 {
		t.Errorf("no args: exit %d", code)
	}
	if code, _, e := run("frobnicate"); code != 2 || !strings.Contains(e, "unknown subcommand") {
		t.Errorf("unknown: exit %d %q", code, e)
	}
	if code, out, _ := run("help"); code != 0 || !strings.Contains(out, "preprocess") {
		t.Errorf("help: exit %d %q", code, out)
	}
	code, out, _ := run("version")
	var v buildinfo.Info
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Go == "" || v.Version == "" {
		t.Errorf("version: exit %d %q", code, out)
	}
	if code, _, _ := run("version", "-h"); code != 0 {
		t.Errorf("version -h: exit %d", code)
	}
}
