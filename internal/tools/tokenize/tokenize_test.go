package tokenize

import (
	"reflect"
	"strings"
	"testing"
)

// ParseIDs takes whole numbers that fit in uint32 and says what else it
// refuses.
func TestParseIDs(t *testing.T) {
	ids, err := ParseIDs([]byte(`{"ids": [0, 1, 4294967295]}`))
	if err != nil || !reflect.DeepEqual(ids, []uint32{0, 1, 4294967295}) {
		t.Errorf("ids %v, err %v", ids, err)
	}
	for in, want := range map[string]string{
		`[1, 2]`:                "want {\"ids\": [...]}",
		`{"text": "x"}`:         "no \"ids\" list",
		`{"ids": [-1]}`:         "id -1 is not a token id",
		`{"ids": [1.5]}`:        "id 1.5 is not a token id",
		`{"ids": [4294967296]}`: "id 4294967296 is not a token id",
	} {
		if _, err := ParseIDs([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", in, err, want)
		}
	}
}
