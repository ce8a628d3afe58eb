// Package jsontest checks, in tests, the JSON output conventions every
// mmgate command and report follows: no null anywhere (empty lists are
// []) and snake_case keys. Its functions are safe for concurrent use.
package jsontest

import (
	"strconv"
	"strings"
)

// T is the part of testing.TB that CheckConventions uses.
type T interface {
	Helper()
	Errorf(format string, args ...any)
}

// CheckConventions reports, as test errors, every null in v (a document
// decoded into any) and every key that is not snake_case; path names v in
// the messages (e.g. "$").
func CheckConventions(t T, v any, path string) {
	t.Helper()
	switch x := v.(type) {
	case nil:
		t.Errorf("%s is null", path)
	case map[string]any:
		for k, e := range x {
			if strings.ToLower(k) != k || strings.ContainsAny(k, "- ") {
				t.Errorf("key %s.%s is not snake_case", path, k)
			}
			CheckConventions(t, e, path+"."+k)
		}
	case []any:
		for i, e := range x {
			CheckConventions(t, e, path+"["+strconv.Itoa(i)+"]")
		}
	}
}
