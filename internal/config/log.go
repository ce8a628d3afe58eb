package config

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
)

// LogFlags are --log-level and --log-format, which every long-running
// subcommand has.
type LogFlags struct {
	Level  string // debug|info|warn|error
	Format string // text|json
}

// Register adds the flags to fs.
func (l *LogFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&l.Level, "log-level", "info", "log level: debug|info|warn|error")
	fs.StringVar(&l.Format, "log-format", "text", "log format: text|json")
}

// Logger is the process logger, writing to w.
func (l *LogFlags) Logger(w io.Writer) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(l.Level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch l.Format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", l.Format)
}

// Effective is the effective configuration as log attributes: the facts
// first, in their order, then every flag of fs in name order under
// LogKey, with its value as flag.Getter gives it (Secrets: their count),
// unless a fact has that key. Facts are what a command resolves at start
// (the model folder it materialized, the shared-memory budget it probed,
// the workers it ended up with); one replaces the flag it resolves.
func Effective(fs *flag.FlagSet, facts ...slog.Attr) []slog.Attr {
	out := slices.Clone(facts)
	have := map[string]bool{}
	for _, a := range facts {
		have[a.Key] = true
	}
	fs.VisitAll(func(f *flag.Flag) {
		key := LogKey(f)
		if have[key] {
			return
		}
		have[key] = true
		out = append(out, slog.Any(key, value(f)))
	})
	return out
}

// LogKey is the key of f in the effective-configuration log: its
// config-file key, in the plural for a repeatable flag, which holds a list
// (--trusted-proxy: trusted_proxies).
func LogKey(f *flag.Flag) string {
	key := Key(f.Name)
	if _, ok := f.Value.(List); !ok {
		return key
	}
	if stem, ok := strings.CutSuffix(key, "y"); ok && stem != "" && !strings.ContainsRune("aeiou", rune(stem[len(stem)-1])) {
		return stem + "ies"
	}
	return key + "s"
}

// value is f's value for the log: typed when the flag can say (every
// flag.FlagSet flag and this package's values can), else its text.
func value(f *flag.Flag) any {
	if g, ok := f.Value.(flag.Getter); ok {
		return g.Get()
	}
	return f.Value.String()
}
