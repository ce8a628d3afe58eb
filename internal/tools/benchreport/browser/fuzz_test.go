package browser

import (
	"strings"
	"testing"
)

// FuzzNextTag: the start-tag reader never panics and returns an offset
// inside the document, just past a '>'.
func FuzzNextTag(f *testing.F) {
	f.Add(`<body data-check="done" data-x='a>b' hidden>`)
	f.Add(`<svg class="chart" id="a" data-marks-expected="3"></svg>`)
	f.Add(`<body a=b c="d`)
	f.Add(`<bodyx><body>`)
	f.Fuzz(func(t *testing.T, doc string) {
		for _, name := range []string{"body", "svg"} {
			attrs, end, ok := nextTag(doc, name)
			if !ok {
				continue
			}
			if end <= 0 || end > len(doc) || doc[end-1] != '>' || attrs == nil {
				t.Fatalf("nextTag(%q, %s) = %v, %d", doc, name, attrs, end)
			}
			if !strings.Contains(doc[:end], "<"+name) {
				t.Fatalf("tag %s not before offset %d in %q", name, end, doc)
			}
		}
	})
}
