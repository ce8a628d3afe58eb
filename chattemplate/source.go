package chattemplate

import (
	"fmt"
	"regexp"
	"strings"
)

// tag is one {{ … }}, {% … %} or {# … #} region of a template source.
type tag struct {
	kind       byte // '{', '%' or '#'
	start, end int  // byte offsets of the whole tag, delimiters included
	body       string
}

// scanTags splits src into its tags the way Jinja's lexer finds them:
// string literals inside expressions and statements may contain closers.
func scanTags(src string) ([]tag, error) {
	var tags []tag
	for i := 0; i+1 < len(src); {
		if src[i] != '{' || (src[i+1] != '{' && src[i+1] != '%' && src[i+1] != '#') {
			i++
			continue
		}
		kind := src[i+1]
		closer := "}}"
		switch kind {
		case '%':
			closer = "%}"
		case '#':
			closer = "#}"
		}
		start := i
		j := i + 2
		found := false
		for j < len(src) {
			c := src[j]
			if kind != '#' && (c == '\'' || c == '"') {
				j++
				for j < len(src) && src[j] != c {
					if src[j] == '\\' && j+1 < len(src) {
						j++
					}
					j++
				}
				j++
				continue
			}
			if strings.HasPrefix(src[j:], closer) {
				tags = append(tags, tag{kind: kind, start: start, end: j + 2, body: src[start+2 : j]})
				j += 2
				found = true
				break
			}
			j++
		}
		if !found {
			return nil, fmt.Errorf("unclosed tag at byte %d: %w", start, ErrBadTemplate)
		}
		i = j
	}
	return tags, nil
}

// normalizeSource applies what Jinja's lexer does before parsing: every
// "\r\n" and "\r" becomes "\n", and a single trailing newline is dropped
// (keep_trailing_newline=False). It refuses the '+' whitespace modifiers,
// which the engine does not implement.
func (x *syntax) normalizeSource(src string) (string, []tag, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	src = strings.TrimSuffix(src, "\n")
	tags, err := scanTags(src)
	if err != nil {
		return "", nil, err
	}
	for _, t := range tags {
		if t.kind == '#' {
			continue
		}
		if strings.HasPrefix(t.body, "+") || strings.HasSuffix(t.body, "+") {
			return "", nil, fmt.Errorf("whitespace modifier '+' at byte %d: %w", t.start, ErrUnsupported)
		}
		if t.kind == '%' && x.rawTag.MatchString(t.body) {
			return "", nil, fmt.Errorf("raw blocks at byte %d: %w", t.start, ErrUnsupported)
		}
	}
	return src, tags, nil
}

// syntax holds the regular expressions the source checks and rewrites
// match tags with. A template compile builds them (newSyntax), so that a
// process that compiles no template never parses them.
type syntax struct {
	rawTag, generationTag, tojsonUse, toolsIdent *regexp.Regexp
	forLoop, setStmt, contentPath, identExpr     *regexp.Regexp
}

func newSyntax() *syntax {
	return &syntax{
		rawTag:        regexp.MustCompile(`^-?\s*raw\s*-?$`),
		generationTag: regexp.MustCompile(`^(-?)\s*(end)?generation\s*(-?)$`),
		tojsonUse:     regexp.MustCompile(`\|\s*tojson\b`),
		toolsIdent:    regexp.MustCompile(`(^|[^\w.'"])tools\b`),
		forLoop:       regexp.MustCompile(`^-?\s*for\s+[\w\s,()]+?\s+in\s+(.+?)(\s+if\s+.*|\s+recursive\s*)?-?$`),
		setStmt:       regexp.MustCompile(`^-?\s*set\s+(\w+)\s*=\s*(.+?)\s*-?$`),
		contentPath:   regexp.MustCompile(`(\.content|\[\s*['"]content['"]\s*\])\s*$`),
		identExpr:     regexp.MustCompile(`^\w+$`),
	}
}

// tojsonName is the name the template's tojson filter is renamed to, so
// that the Python-compatible encoder in this package serves it (the engine
// resolves its built-in filters before the render context).
const tojsonName = "__chattemplate_tojson"

// rewriteTags rewrites what the engine reads differently from Jinja as
// Hugging Face configures it: the tojson filter is renamed (rewriteTojson)
// and generation blocks become plain blocks (rewriteGeneration).
func (x *syntax) rewriteTags(src string, tags []tag) string {
	var b strings.Builder
	last := 0
	for _, t := range tags {
		out, ok := x.rewriteGeneration(t)
		if !ok {
			out, ok = x.rewriteTojson(src, t)
		}
		if !ok {
			continue
		}
		b.WriteString(src[last:t.start])
		b.WriteString(out)
		last = t.end
	}
	if last == 0 {
		return src
	}
	b.WriteString(src[last:])
	return b.String()
}

// rewriteTojson renames the tojson filter inside the tag t of src.
func (x *syntax) rewriteTojson(src string, t tag) (string, bool) {
	if t.kind == '#' || !strings.Contains(t.body, "tojson") {
		return "", false
	}
	return x.rewriteOutsideStrings(src[t.start:t.end]), true
}

// rewriteGeneration turns {% generation %} … {% endgeneration %} into
// {% if true %} … {% endif %}, keeping the whitespace modifiers.
// transformers' AssistantTracker extension defines the block: it renders
// its body unchanged and only records, when asked for the assistant mask,
// where the body's text went.
func (x *syntax) rewriteGeneration(t tag) (string, bool) {
	if t.kind != '%' {
		return "", false
	}
	m := x.generationTag.FindStringSubmatch(t.body)
	if m == nil {
		return "", false
	}
	stmt := " if true "
	if m[2] != "" {
		stmt = " endif "
	}
	return "{%" + m[1] + stmt + m[3] + "%}", true
}

// rewriteOutsideStrings renames "| tojson" in code but not in string
// literals.
func (x *syntax) rewriteOutsideStrings(s string) string {
	var b strings.Builder
	code := 0
	flush := func(end int) {
		b.WriteString(x.tojsonUse.ReplaceAllStringFunc(s[code:end], func(m string) string {
			return strings.TrimSuffix(m, "tojson") + tojsonName
		}))
	}
	for i := 2; i < len(s)-2; i++ {
		c := s[i]
		if c != '\'' && c != '"' {
			continue
		}
		flush(i)
		j := i + 1
		for j < len(s)-2 && s[j] != c {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j > len(s)-2 {
			j = len(s) - 2
		}
		b.WriteString(s[i : j+1])
		i = j
		code = j + 1
	}
	flush(len(s))
	return b.String()
}

// codeOf returns the tag body with string literals blanked out.
func codeOf(body string) string {
	out := []byte(body)
	for i := 0; i < len(out); i++ {
		c := out[i]
		if c != '\'' && c != '"' {
			continue
		}
		j := i + 1
		for j < len(out) && out[j] != c {
			if out[j] == '\\' {
				j++
			}
			j++
		}
		for k := i + 1; k < j && k < len(out); k++ {
			out[k] = ' '
		}
		i = j
	}
	return string(out)
}

// mentionsTools reports whether any expression or statement reads the
// variable "tools" (vLLM's test for a tool-capable template).
func (x *syntax) mentionsTools(tags []tag) bool {
	for _, t := range tags {
		if t.kind != '#' && x.toolsIdent.MatchString(codeOf(t.body)) {
			return true
		}
	}
	return false
}

// filtered returns what a filter chain applies to: "x | f(a) | g" reads
// x, as vLLM's analysis of the template looks through filters (llava-hf's
// templates loop over message['content'] | selectattr(...)).
func filtered(expr string) string {
	code := codeOf(expr)
	depth := 0
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '|':
			if depth == 0 && (i+1 >= len(code) || code[i+1] != '|') {
				return strings.TrimSpace(expr[:i])
			}
		}
	}
	return strings.TrimSpace(expr)
}

// iteratesContent reports whether the template loops over a message's
// content parts: a for loop whose iterable ends in ".content" or
// "['content']", directly or through a variable set from such an
// expression. Templates that never do so can only take string content.
func (x *syntax) iteratesContent(tags []tag) bool {
	aliases := map[string]bool{}
	for _, t := range tags {
		if t.kind != '%' {
			continue
		}
		body := strings.TrimSpace(t.body)
		if m := x.setStmt.FindStringSubmatch(body); m != nil {
			if x.contentPath.MatchString(filtered(m[2])) {
				aliases[m[1]] = true
			}
			continue
		}
		m := x.forLoop.FindStringSubmatch(body)
		if m == nil {
			continue
		}
		iter := filtered(m[1])
		if x.contentPath.MatchString(iter) || (x.identExpr.MatchString(iter) && aliases[iter]) {
			return true
		}
	}
	return false
}
