package charttest

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// serveHelp is mmgate's serve flags and --policy values.
type serveHelp struct{ flags, policies map[string]bool }

var readHelp = sync.OnceValues(func() (serveHelp, error) {
	// The help of the mmgate built from this repository.
	cmd := exec.Command("go", "run", "./cmd/mmgate", "help", "serve")
	cmd.Dir = "../../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		return serveHelp{}, fmt.Errorf("%v\n%s", err, out)
	}
	h := serveHelp{flags: map[string]bool{}, policies: map[string]bool{}}
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1) {
		h.flags[m[1]] = true
	}
	if m := regexp.MustCompile(`worker selection: ([a-z_|]+)`).FindStringSubmatch(string(out)); m != nil {
		for _, p := range strings.Split(m[1], "|") {
			h.policies[p] = true
		}
	}
	return h, nil
})

// checkFlags: every --flag the chart passes to mmgate serve is one mmgate
// has, and --policy is one of its policies.
func checkFlags(t *testing.T, args []string) {
	t.Helper()
	h, err := readHelp()
	if err != nil {
		t.Fatalf("mmgate help serve: %v", err)
	}
	real := h.flags
	if len(real) < 20 || !real["listen"] || !real["shutdown-timeout"] || !h.policies["least_loaded"] {
		t.Fatalf("could not read mmgate's flags: %v %v", real, h.policies)
	}
	if p, _ := flagValue(args, "policy"); !h.policies[p] {
		t.Errorf("--policy=%s is not an mmgate policy", p)
	}
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("args %q do not start with serve", args)
	}
	for i, a := range args[1:] {
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			if i > 0 && strings.HasPrefix(args[i], "--") && !strings.Contains(args[i], "=") {
				continue // the value of "--flag value" from extraArgs
			}
			t.Fatalf("argument %q is not a flag", a)
		}
		name, _, _ = strings.Cut(name, "=")
		if !real[name] {
			t.Errorf("--%s is not an mmgate serve flag", name)
		}
	}
}
