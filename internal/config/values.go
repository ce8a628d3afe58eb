package config

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A List is a repeatable flag: each Set appends one value. The environment
// gives it as a comma-separated list, the config file as a list.
type List interface {
	flag.Value
	Values() []string
}

// StringList is a repeatable string flag (--worker a --worker b).
type StringList []string

func (l *StringList) String() string { return strings.Join(*l, ",") }

// Set appends v.
func (l *StringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// Values returns the values given, in order.
func (l *StringList) Values() []string { return *l }

// Get is the value for the effective-configuration log.
func (l *StringList) Get() any { return []string(*l) }

// Secrets is a repeatable flag of secret values (API keys): the
// effective-configuration log shows how many were given, never the values.
type Secrets struct{ StringList }

// String never shows the values.
func (s *Secrets) String() string {
	if len(s.StringList) == 0 {
		return ""
	}
	return fmt.Sprintf("(%d secret values)", len(s.StringList))
}

// Get is the value for the effective-configuration log: the number of
// values.
func (s *Secrets) Get() any { return len(s.StringList) }

// ByteSize is a size flag: a number of bytes, optionally with a unit
// (KiB, MiB, GiB, KB, MB, GB; B).
type ByteSize int64

func (b *ByteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Set parses a size.
func (b *ByteSize) Set(s string) error {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("%q is not a size (bytes, or a number with KiB/MiB/GiB)", s)
	}
	*b = ByteSize(n * mult)
	return nil
}

// Get is the value for the effective-configuration log: bytes.
func (b *ByteSize) Get() any { return int64(*b) }

// GivenInt is an int flag that remembers whether any source (command line,
// environment, config file) gave it, for a default that depends on other
// flags when it was not given.
type GivenInt struct {
	N     int
	Given bool
}

func (g *GivenInt) String() string {
	if g == nil {
		return "0"
	}
	return strconv.Itoa(g.N)
}

// Set parses an integer and marks the flag given.
func (g *GivenInt) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	g.N, g.Given = n, true
	return nil
}

// Get is the value for the effective-configuration log.
func (g *GivenInt) Get() any { return g.N }
