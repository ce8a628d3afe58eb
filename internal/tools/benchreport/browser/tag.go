package browser

import (
	"html"
	"strings"
)

// findTag returns the attributes of the first <name …> start tag in doc.
func findTag(doc, name string) (map[string]string, bool) {
	attrs, _, ok := nextTag(doc, name)
	return attrs, ok
}

// nextTag finds the next <name …> start tag in doc (a serialised DOM, where
// every attribute value is double-quoted) and returns its attributes and the
// offset just past it.
func nextTag(doc, name string) (map[string]string, int, bool) {
	open := "<" + name
	from := 0
	for {
		i := strings.Index(doc[from:], open)
		if i < 0 {
			return nil, 0, false
		}
		i += from
		j := i + len(open)
		if j < len(doc) && (doc[j] == ' ' || doc[j] == '>' || doc[j] == '/' || doc[j] == '\n' || doc[j] == '\t') {
			attrs, end, ok := parseAttrs(doc, j)
			if !ok {
				return nil, 0, false
			}
			return attrs, end, true
		}
		from = j
	}
}

// parseAttrs reads name="value" pairs from doc[i:] up to the closing '>'.
func parseAttrs(doc string, i int) (map[string]string, int, bool) {
	attrs := map[string]string{}
	for i < len(doc) {
		switch c := doc[i]; {
		case c == '>':
			return attrs, i + 1, true
		case c == ' ' || c == '\n' || c == '\t' || c == '/' || c == '\r':
			i++
		default:
			k := i
			for i < len(doc) && !strings.ContainsRune("= \t\n\r/>", rune(doc[i])) {
				i++
			}
			name := strings.ToLower(doc[k:i])
			if i < len(doc) && doc[i] == '=' {
				i++
				if i < len(doc) && (doc[i] == '"' || doc[i] == '\'') {
					q := doc[i]
					end := strings.IndexByte(doc[i+1:], q)
					if end < 0 {
						return nil, 0, false
					}
					attrs[name] = html.UnescapeString(doc[i+1 : i+1+end])
					i += end + 2
				} else {
					k := i
					for i < len(doc) && !strings.ContainsRune(" \t\n\r>", rune(doc[i])) {
						i++
					}
					attrs[name] = html.UnescapeString(doc[k:i])
				}
			} else {
				attrs[name] = ""
			}
		}
	}
	return nil, 0, false
}
