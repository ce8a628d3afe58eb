package jsontest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// recorder collects the errors CheckConventions reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheckConventions(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{`{"a_b": [1, {"c": []}], "d": {}}`, nil},
		{`null`, []string{"$ is null"}},
		{`{"a": [1, null]}`, []string{"$.a[1] is null"}},
		{`{"camelCase": 1}`, []string{"key $.camelCase is not snake_case"}},
		{`{"x": {"kebab-case": 1, "with space": 2}}`, []string{"key $.x.kebab-case is not snake_case", "key $.x.with space is not snake_case"}},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
			t.Fatal(err)
		}
		var r recorder
		CheckConventions(&r, v, "$")
		slices.Sort(r.errs)
		if !slices.Equal(r.errs, tc.want) {
			t.Errorf("%s: %q, want %q", tc.doc, r.errs, tc.want)
		}
	}
}
