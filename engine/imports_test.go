package engine

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/mmgate/mmgate/"

// goList runs `go list` with a template over packages.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// The generated protocol code stays behind the protocol seam: the pipeline
// does not depend on it at all, cmd/mmgate does not import it, and the only
// product packages that import it are the protocols' own (engine/<name>,
// not the engine, its seam or the built-in list) and their peer, the
// reference worker. Tools (the transport benchmark) may.
func TestProtocolCodeStaysBehindTheSeam(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	isProto := func(p string) bool { return strings.HasPrefix(p, module+"proto/") }
	for _, dep := range goList(t, "-deps", module+"internal/pipeline") {
		if isProto(dep) {
			t.Errorf("internal/pipeline depends on %s", dep)
		}
	}
	for _, imp := range goList(t, "-f", `{{join .Imports "\n"}}`, module+"cmd/mmgate") {
		if isProto(imp) {
			t.Errorf("cmd/mmgate imports %s", imp)
		}
	}
	allowed := func(p string) bool {
		rel := strings.TrimPrefix(p, module)
		if rel == "engine/protocol" || rel == "engine/builtin" {
			return false
		}
		for _, prefix := range []string{"proto/", "engine/", "refworker", "internal/tools/"} {
			if strings.HasPrefix(rel, prefix) {
				return true
			}
		}
		return false
	}
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if isProto(imp) && !allowed(pkg) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
