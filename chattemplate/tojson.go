package chattemplate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ardanlabs/jinja"
)

// filterTojson is Hugging Face's tojson filter:
// json.dumps(x, ensure_ascii=False, indent=indent, separators=separators,
// sort_keys=False). Dict keys keep their insertion order.
func filterTojson(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), fmt.Errorf("tojson: no value")
	}
	e := jsonEncoder{indent: -1, item: ", ", key: ": "}
	indent, hasIndent := kwargs["indent"]
	if !hasIndent && len(args) > 1 {
		indent, hasIndent = args[1], true
	}
	if hasIndent && !indent.IsNone() && !indent.IsUndefined() {
		switch {
		case indent.IsInt():
			e.indent = max(int(indent.AsInt()), 0)
			e.indentStr = strings.Repeat(" ", e.indent)
		case indent.IsString():
			e.indent = 0
			e.indentStr = indent.AsString()
		default:
			return jinja.Undefined(), fmt.Errorf("tojson: indent must be an int or a string")
		}
		e.item = ","
		e.pretty = true
	}
	if sep, ok := kwargs["separators"]; ok && !sep.IsNone() && !sep.IsUndefined() {
		if !sep.IsList() || sep.AsList().Len() != 2 || !sep.AsList().Items[0].IsString() || !sep.AsList().Items[1].IsString() {
			return jinja.Undefined(), fmt.Errorf("tojson: separators must be two strings")
		}
		e.item = sep.AsList().Items[0].AsString()
		e.key = sep.AsList().Items[1].AsString()
	}
	if sk, ok := kwargs["sort_keys"]; ok && sk.IsTruthy() {
		return jinja.Undefined(), fmt.Errorf("tojson: sort_keys: %w", ErrUnsupported)
	}
	var b strings.Builder
	if err := e.encode(&b, args[0], 0); err != nil {
		return jinja.Undefined(), err
	}
	return jinja.NewString(b.String()), nil
}

type jsonEncoder struct {
	indent    int // -1: no newlines
	indentStr string
	pretty    bool
	item, key string
}

func (e *jsonEncoder) newline(b *strings.Builder, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString(e.indentStr)
	}
}

func (e *jsonEncoder) encode(b *strings.Builder, v jinja.Value, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("tojson: nesting deeper than %d: %w", maxDepth, ErrBadInput)
	}
	switch {
	case v.IsUndefined(), v.IsNone():
		b.WriteString("null")
	case v.IsBool():
		if v.AsBool() {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case v.IsInt():
		b.WriteString(strconv.FormatInt(v.AsInt(), 10))
	case v.IsFloat():
		b.WriteString(pyFloatJSON(v.AsFloat()))
	case v.IsString():
		writePyJSONString(b, v.AsString())
	case v.IsList():
		items := v.AsList().Items
		if len(items) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteString(e.item)
			}
			if e.pretty {
				e.newline(b, depth+1)
			}
			if err := e.encode(b, it, depth+1); err != nil {
				return err
			}
		}
		if e.pretty {
			e.newline(b, depth)
		}
		b.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		if d.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range d.Keys {
			if i > 0 {
				b.WriteString(e.item)
			}
			if e.pretty {
				e.newline(b, depth+1)
			}
			writePyJSONString(b, k)
			b.WriteString(e.key)
			if err := e.encode(b, d.Data[k], depth+1); err != nil {
				return err
			}
		}
		if e.pretty {
			e.newline(b, depth)
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("tojson: value of this type is not JSON serializable: %w", ErrBadInput)
	}
	return nil
}

// pyFloatJSON formats f as Python's float.__repr__ (what json.dumps
// writes): shortest round-trip digits, fixed notation when the decimal
// exponent is in [-4, 16), a ".0" suffix for integral values.
func pyFloatJSON(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ePos := strings.IndexByte(s, 'e')
	mant, expStr := s[:ePos], s[ePos+1:]
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1
	var out string
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			out = "0." + strings.Repeat("0", -decpt) + digits
		case decpt >= len(digits):
			out = digits + strings.Repeat("0", decpt-len(digits)) + ".0"
		default:
			out = digits[:decpt] + "." + digits[decpt:]
		}
	} else {
		out = mant + "e" + expStr
	}
	if neg {
		out = "-" + out
	}
	return out
}

// writePyJSONString writes s as json.dumps(s, ensure_ascii=False) does:
// only '"', '\\' and control characters below U+0020 are escaped.
func writePyJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString("\ufffd")
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			} else {
				b.WriteByte(c)
			}
		}
		i++
	}
	b.WriteByte('"')
}
