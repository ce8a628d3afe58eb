package benchgw

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// errBadMetrics: a /metrics line is not in the Prometheus text format.
var errBadMetrics = errors.New("malformed metrics text")

// sample is one line of the Prometheus text exposition format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// metrics is a scrape: value by series key (name plus sorted labels).
type metrics map[string]sample

// seriesKey names a series: `name{a="x",b="y"}` with labels sorted.
func seriesKey(name string, labels map[string]string) string {
	if len(labels) == 0 {
		return name
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(strconv.Quote(labels[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// parseMetrics reads the Prometheus text format (version 0.0.4): comments
// and blank lines are skipped, each other line is
// `name[{label="value",...}] value [timestamp]`.
func parseMetrics(r io.Reader) (metrics, error) {
	out := metrics{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseSampleLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out[seriesKey(s.name, s.labels)] = s
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func parseSampleLine(line string) (sample, error) {
	s := sample{}
	i := 0
	for i < len(line) && line[i] != '{' && line[i] != ' ' && line[i] != '\t' {
		i++
	}
	s.name = line[:i]
	if s.name == "" {
		return s, fmt.Errorf("%w: no metric name in %q", errBadMetrics, line)
	}
	rest := line[i:]
	if strings.HasPrefix(rest, "{") {
		labels, after, err := parseLabels(rest[1:])
		if err != nil {
			return s, err
		}
		s.labels, rest = labels, after
	}
	fields := strings.Fields(rest)
	if len(fields) < 1 || len(fields) > 2 {
		return s, fmt.Errorf("%w: want a value after %q", errBadMetrics, s.name)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, fmt.Errorf("%w: value %q of %q", errBadMetrics, fields[0], s.name)
	}
	s.value = v
	return s, nil
}

// parseLabels reads `a="x",b="y"}` and returns the labels and what follows
// the closing brace. Values may escape \\, \" and \n.
func parseLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, "}") {
			return labels, s[1:], nil
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, "", fmt.Errorf("%w: label without '='", errBadMetrics)
		}
		name := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t")
		if !strings.HasPrefix(s, `"`) {
			return nil, "", fmt.Errorf("%w: label %q value not quoted", errBadMetrics, name)
		}
		var v strings.Builder
		i := 1
		closed := false
		for ; i < len(s); i++ {
			c := s[i]
			if c == '"' {
				closed = true
				break
			}
			if c == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					v.WriteByte('\n')
				default:
					v.WriteByte(s[i])
				}
				continue
			}
			v.WriteByte(c)
		}
		if !closed {
			return nil, "", fmt.Errorf("%w: label %q value not terminated", errBadMetrics, name)
		}
		labels[name] = v.String()
		s = strings.TrimLeft(s[i+1:], " \t")
		if strings.HasPrefix(s, ",") {
			s = s[1:]
		} else if !strings.HasPrefix(s, "}") {
			return nil, "", fmt.Errorf("%w: want ',' or '}' after label %q", errBadMetrics, name)
		}
	}
}

// delta returns, for each series of after named name, its value minus the
// same series' value in before (0 when before lacks it).
func delta(before, after metrics, name string) []sample {
	var out []sample
	for k, a := range after {
		if a.name != name {
			continue
		}
		d := a
		d.value = a.value - before[k].value
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		return seriesKey(out[i].name, out[i].labels) < seriesKey(out[j].name, out[j].labels)
	})
	return out
}
