package chattemplate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// strftimeNow returns the strftime_now global: Python's
// datetime.now().strftime(format) on the given clock.
func strftimeNow(now func() time.Time) jinja.Value {
	return jinja.NewCallable("strftime_now", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) != 1 || !args[0].IsString() {
			return jinja.Undefined(), fmt.Errorf("strftime_now: want one format string: %w", ErrBadInput)
		}
		return jinja.NewString(strftime(now(), args[0].AsString())), nil
	})
}

// strftime formats t like C strftime in the C locale for the common
// directives; an unknown directive is kept as written, as glibc does.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		writeDirective(&b, t, format[i])
	}
	return b.String()
}

// writePadded writes n in decimal, zero-padded to width digits.
func writePadded(b *strings.Builder, n, width int) {
	s := strconv.Itoa(n)
	for i := len(s); i < width; i++ {
		b.WriteByte('0')
	}
	b.WriteString(s)
}

// writeDirective writes what the directive %c gives for t.
func writeDirective(b *strings.Builder, t time.Time, c byte) {
	switch c {
	case 'Y':
		writePadded(b, t.Year(), 1)
	case 'y':
		writePadded(b, t.Year()%100, 2)
	case 'm':
		writePadded(b, int(t.Month()), 2)
	case 'd':
		writePadded(b, t.Day(), 2)
	case 'e':
		fmt.Fprintf(b, "%2d", t.Day())
	case 'H':
		writePadded(b, t.Hour(), 2)
	case 'I':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		writePadded(b, h, 2)
	case 'M':
		writePadded(b, t.Minute(), 2)
	case 'S':
		writePadded(b, t.Second(), 2)
	case 'f':
		writePadded(b, t.Nanosecond()/1000, 6)
	case 'j':
		writePadded(b, t.YearDay(), 3)
	case 'p':
		if t.Hour() < 12 {
			b.WriteString("AM")
		} else {
			b.WriteString("PM")
		}
	case 'B':
		b.WriteString(t.Month().String())
	case 'b', 'h':
		b.WriteString(t.Month().String()[:3])
	case 'A':
		b.WriteString(t.Weekday().String())
	case 'a':
		b.WriteString(t.Weekday().String()[:3])
	case 'w':
		writePadded(b, int(t.Weekday()), 1)
	case 'Z':
		name, _ := t.Zone()
		b.WriteString(name)
	case 'z':
		_, off := t.Zone()
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		b.WriteByte(sign)
		writePadded(b, off/3600, 2)
		writePadded(b, off%3600/60, 2)
	case 'F':
		b.WriteString(strftime(t, "%Y-%m-%d"))
	case 'T':
		b.WriteString(strftime(t, "%H:%M:%S"))
	case '%':
		b.WriteByte('%')
	default:
		b.WriteByte('%')
		b.WriteByte(c)
	}
}
