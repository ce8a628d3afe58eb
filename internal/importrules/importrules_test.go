package importrules

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mmgate/mmgate/"

// goList runs `go list` from the module's root and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// imports maps each package of the module (path relative to the module) to
// the module packages it imports directly.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		pkg, list, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(pkg, module)
		out[rel] = []string{}
		for _, imp := range strings.Fields(list) {
			if r, ok := strings.CutPrefix(imp, module); ok {
				out[rel] = append(out[rel], r)
			}
		}
	}
	return out
}

// deps is every package pkg depends on, the standard library's included,
// module packages relative to the module.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	var out []string
	for _, d := range goList(t, "-deps", "./"+pkg) {
		out = append(out, strings.TrimPrefix(d, module))
	}
	return out
}

// Data flows one way: the HTTP front hands requests to the pipeline through
// an interface, and the pipeline returns package openai's values; neither
// depends on the other.
func TestOneDirection(t *testing.T) {
	if slices.Contains(deps(t, "internal/pipeline"), "internal/server") {
		t.Error("internal/pipeline depends on internal/server")
	}
	if slices.Contains(deps(t, "internal/server"), "internal/pipeline") {
		t.Error("internal/server depends on internal/pipeline")
	}
}

// The OpenAI wire types are a leaf: package openai needs nothing but the
// standard library, and the libraries other programs import (openai,
// prompt) expose no internal package's type.
func TestWireTypesAreALeaf(t *testing.T) {
	for _, line := range goList(t, "-deps", "-f", `{{if not .Standard}}{{.ImportPath}}{{end}}`, "./openai") {
		if line != "" && line != module+"openai" {
			t.Errorf("openai depends on %s", line)
		}
	}
	all := imports(t)
	for _, lib := range []string{"openai", "prompt"} {
		for _, imp := range all[lib] {
			if strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s", lib, imp)
			}
		}
	}
}

// The programs reach families only through family/builtin and package
// family: the gateway, the command line (its preprocess and render engines
// included) and the reference worker import neither a family package nor a
// processor package (their tests may).
func TestFamiliesThroughTheRegistry(t *testing.T) {
	all := imports(t)
	for _, pkg := range []string{"cmd/mmgate", "internal/gateway", "internal/pipeline", "internal/preprocess", "internal/tools/render", "refworker"} {
		if _, ok := all[pkg]; !ok {
			t.Fatalf("go list did not list %s", pkg)
		}
		for _, imp := range all[pkg] {
			family := strings.HasPrefix(imp, "family/") && imp != "family/builtin"
			if family || strings.HasPrefix(imp, "vision/") {
				t.Errorf("%s imports %s: reach families through family/builtin and package family", pkg, imp)
			}
		}
	}
}

// The generated protocol code stays behind the protocol seam: the pipeline
// does not depend on it at all, cmd/mmgate does not import it, and the only
// product packages that import it are the protocols' own (engine/<name>,
// not the engine, its seam or the built-in list) and their peer, the
// reference worker. Tools (the transport benchmark) may.
func TestProtocolCodeStaysBehindTheSeam(t *testing.T) {
	isProto := func(p string) bool { return strings.HasPrefix(p, "proto/") }
	for _, dep := range deps(t, "internal/pipeline") {
		if isProto(dep) {
			t.Errorf("internal/pipeline depends on %s", dep)
		}
	}
	allowed := func(pkg string) bool {
		if pkg == "engine/protocol" || pkg == "engine/builtin" {
			return false
		}
		for _, prefix := range []string{"proto/", "engine/", "refworker", "internal/tools/"} {
			if strings.HasPrefix(pkg, prefix) {
				return true
			}
		}
		return false
	}
	for pkg, list := range imports(t) {
		for _, imp := range list {
			if isProto(imp) && !allowed(pkg) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}

// Only the commands read flags, the environment and config files: package
// internal/config, which does, is imported by cmd/ alone (tests aside).
func TestConfigOnlyInCommands(t *testing.T) {
	for pkg, list := range imports(t) {
		if slices.Contains(list, "internal/config") && !strings.HasPrefix(pkg, "cmd/") {
			t.Errorf("%s imports internal/config: only cmd/ reads the configuration", pkg)
		}
	}
}
