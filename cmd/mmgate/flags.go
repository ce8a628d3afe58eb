package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file answers: how does a subcommand get its configuration?
// Precedence is flag > environment (MMGATE_SOME_NAME) > config file
// (--config FILE, YAML or JSON, key some_name) > default. Only cmd/ reads
// flags, the environment and files.

// newFlagSet returns a FlagSet for a subcommand whose usage goes to stderr.
// synopsis is printed after "usage: mmgate ".
func newFlagSet(s *stdio, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() {
		fmt.Fprintf(s.err, "usage: mmgate %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// errHelp means -h was given: print usage and exit 0.
var errHelp = flag.ErrHelp

// parseFlags parses args and then fills each flag not set on the command line
// from the environment, then from the config file named by a --config flag (if
// the FlagSet defines one). It returns the positional arguments. A usage error
// has already been reported on fs.Output() when err is not nil; callers map
// errHelp to exit 0 and anything else to exit 2.
func parseFlags(fs *flag.FlagSet, args []string, lookupEnv func(string) (string, bool)) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	if lookupEnv != nil {
		var ferr error
		fs.VisitAll(func(f *flag.Flag) {
			if set[f.Name] || ferr != nil {
				return
			}
			v, ok := lookupEnv(envName(f.Name))
			if !ok {
				return
			}
			if err := setValue(f, splitList(f, v)); err != nil {
				ferr = fmt.Errorf("environment %s: %w", envName(f.Name), err)
				return
			}
			set[f.Name] = true
		})
		if ferr != nil {
			fmt.Fprintln(fs.Output(), ferr)
			return nil, ferr
		}
	}

	if cf := fs.Lookup("config"); cf != nil && cf.Value.String() != "" {
		if err := applyConfigFile(fs, cf.Value.String(), set); err != nil {
			fmt.Fprintln(fs.Output(), err)
			return nil, err
		}
	}
	return fs.Args(), nil
}

// exitForParse maps a parseFlags error to an exit status.
func exitForParse(err error) int {
	if errors.Is(err, errHelp) {
		return 0
	}
	return 2
}

// envName maps --some-name to MMGATE_SOME_NAME.
func envName(flagName string) string {
	return "MMGATE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// configKey maps --some-name to some_name.
func configKey(flagName string) string { return strings.ReplaceAll(flagName, "-", "_") }

// listValue is implemented by repeatable flags: each Set appends one element.
type listValue interface {
	flag.Value
	isList()
}

// stringList is a repeatable string flag (--worker a --worker b).
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
func (l *stringList) isList() {}

func splitList(f *flag.Flag, v string) []string {
	if _, ok := f.Value.(listValue); ok {
		parts := strings.Split(v, ",")
		out := parts[:0]
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	return []string{v}
}

func setValue(f *flag.Flag, vals []string) error {
	for _, v := range vals {
		if err := f.Value.Set(v); err != nil {
			return fmt.Errorf("invalid value %q for %s: %w", v, f.Name, err)
		}
	}
	return nil
}

// applyConfigFile reads a YAML or JSON object and sets each flag that neither
// the command line nor the environment set. Keys that name no flag of this
// subcommand are kept for the subcommand (e.g. "workers") and otherwise ignored.
func applyConfigFile(fs *flag.FlagSet, path string, set map[string]bool) error {
	doc, err := readConfigFile(path)
	if err != nil {
		return err
	}
	var ferr error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || ferr != nil || f.Name == "config" {
			return
		}
		raw, ok := doc[configKey(f.Name)]
		if !ok {
			return
		}
		var vals []string
		switch x := raw.(type) {
		case []any:
			for _, e := range x {
				vals = append(vals, fmt.Sprint(e))
			}
		case nil:
			return
		default:
			vals = splitList(f, fmt.Sprint(x))
		}
		if err := setValue(f, vals); err != nil {
			ferr = fmt.Errorf("config %s: key %s: %w", path, configKey(f.Name), err)
		}
	})
	return ferr
}

// readConfigFile parses a YAML (or JSON, which is YAML) object.
func readConfigFile(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	doc := map[string]any{}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return doc, nil
}

// logFlags are --log-level and --log-format, shared by long-running commands.
type logFlags struct {
	level  string
	format string
}

func addLogFlags(fs *flag.FlagSet) *logFlags {
	l := &logFlags{}
	fs.StringVar(&l.level, "log-level", "info", "log level: debug|info|warn|error")
	fs.StringVar(&l.format, "log-format", "text", "log format: text|json")
	return l
}

// logger builds the process logger (to stderr) from the flags.
func (l *logFlags) logger(s *stdio) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(l.level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch l.format {
	case "text":
		return slog.New(slog.NewTextHandler(s.err, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(s.err, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", l.format)
}

// byteSize is a size flag: a number of bytes, optionally with a unit
// (KiB, MiB, GiB, KB, MB, GB; B).
type byteSize int64

func (b *byteSize) String() string {
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

func (b *byteSize) Set(s string) error {
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
	*b = byteSize(n * mult)
	return nil
}
