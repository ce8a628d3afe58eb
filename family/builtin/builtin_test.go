package builtin

import (
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/family"
)

// The built-in list, in order. Changing the order or a family's claims
// changes which family serves a model: this test must be updated on
// purpose.
func TestBuiltinOrder(t *testing.T) {
	type entry struct {
		name                  string
		types, archs, presets []string
	}
	want := []entry{
		{"qwen2-vl", []string{"qwen2_vl"}, []string{"Qwen2VLForConditionalGeneration"}, []string{"qwen2-vl"}},
		{"qwen2.5-vl", []string{"qwen2_5_vl"}, []string{"Qwen2_5_VLForConditionalGeneration"}, []string{"qwen2.5-vl"}},
		{"qwen3-vl", []string{"qwen3_vl", "qwen3_vl_moe"}, []string{"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration"}, []string{"qwen3-vl"}},
	}
	var got []entry
	for _, f := range New().Families() {
		got = append(got, entry{f.Name(), f.ModelTypes(), f.Architectures(), f.Presets()})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("built-in families\n got %+v\nwant %+v", got, want)
	}
}

// Which family serves which config.json, through the built-in registry.
func TestBuiltinMatches(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		modelType string
		archs     []string
		want      string
	}{
		{"qwen2_vl", nil, "qwen2-vl"},
		{"qwen2_5_vl", []string{"Qwen3VLForConditionalGeneration"}, "qwen2.5-vl"},
		{"qwen3_vl", nil, "qwen3-vl"},
		{"qwen3_vl_moe", nil, "qwen3-vl"},
		{"custom", []string{"Qwen2_5_VLForConditionalGeneration"}, "qwen2.5-vl"},
		{"", []string{"Qwen3VLMoeForConditionalGeneration"}, "qwen3-vl"},
	} {
		f, err := r.Match(tc.modelType, tc.archs)
		if err != nil || f.Name() != tc.want {
			t.Errorf("Match(%q, %v) = %v, %v; want %s", tc.modelType, tc.archs, f, err, tc.want)
		}
	}
	_, err := r.Match("llava", []string{"LlavaForConditionalGeneration"})
	want := `family: model_type "llava" (architectures [LlavaForConditionalGeneration]) is not supported; supported model types: qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe`
	if !errors.Is(err, family.ErrUnknownModel) || err.Error() != want {
		t.Errorf("unknown model: %v\nwant %s", err, want)
	}
	if New() == New() {
		t.Error("New returns a shared registry")
	}
}

// The programs reach families only through this package: the gateway, the
// command line and the reference worker import neither a family package
// nor a processor package (their tests may).
func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const mod = "github.com/mmgate/mmgate/"
	pkgs := []string{"./cmd/mmgate", "./internal/pipeline", "./refworker"}
	cmd := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`}, pkgs...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pkgs) {
		t.Fatalf("go list printed %d packages, want %d", len(lines), len(pkgs))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			rel, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			family := strings.HasPrefix(rel, "family/") && rel != "family/builtin"
			processor := strings.HasPrefix(rel, "vision/")
			if family || processor {
				t.Errorf("%s imports %s: reach families through family/builtin and package family", fields[0], imp)
			}
		}
	}
}
