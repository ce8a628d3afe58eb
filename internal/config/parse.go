package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// NewFlagSet returns the FlagSet of a subcommand. Parse errors and usage go
// to out; usage is "usage: mmgate " + synopsis, then the flags.
func NewFlagSet(out io.Writer, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: mmgate %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args, then fills each flag the command line did not set from
// the environment (when lookupEnv is not nil), then from the config file
// named by a --config flag (when fs defines one and it is set). It returns
// the positional arguments. When err is not nil the reason has already been
// written to fs.Output(); ExitStatus maps it to the exit status.
func Parse(fs *flag.FlagSet, args []string, lookupEnv func(string) (string, bool)) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if lookupEnv != nil {
		if err := applyEnv(fs, lookupEnv, set); err != nil {
			fmt.Fprintln(fs.Output(), err)
			return nil, err
		}
	}
	if cf := fs.Lookup("config"); cf != nil && cf.Value.String() != "" {
		if err := applyFile(fs, cf.Value.String(), set); err != nil {
			fmt.Fprintln(fs.Output(), err)
			return nil, err
		}
	}
	return fs.Args(), nil
}

// ExitStatus is the exit status for an error of Parse: 0 for -h (usage
// was asked for), 2 for anything else.
func ExitStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// EnvName maps --some-name to MMGATE_SOME_NAME.
func EnvName(flagName string) string {
	return "MMGATE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Key maps --some-name to the config-file key some_name.
func Key(flagName string) string { return strings.ReplaceAll(flagName, "-", "_") }

// applyEnv sets each flag not in set from its environment variable and
// adds it to set.
func applyEnv(fs *flag.FlagSet, lookupEnv func(string) (string, bool), set map[string]bool) error {
	var ferr error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || ferr != nil {
			return
		}
		v, ok := lookupEnv(EnvName(f.Name))
		if !ok {
			return
		}
		if err := setValues(f, splitValue(f, v)); err != nil {
			ferr = fmt.Errorf("environment %s: %w", EnvName(f.Name), err)
			return
		}
		set[f.Name] = true
	})
	return ferr
}

// applyFile reads a YAML or JSON object and sets each flag that neither the
// command line nor the environment set. Keys that name no flag are left to
// the subcommand (Workers) and otherwise ignored.
func applyFile(fs *flag.FlagSet, path string, set map[string]bool) error {
	doc, err := ReadFile(path)
	if err != nil {
		return err
	}
	var ferr error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || ferr != nil || f.Name == "config" {
			return
		}
		raw, ok := doc[Key(f.Name)]
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
			vals = splitValue(f, fmt.Sprint(x))
		}
		if err := setValues(f, vals); err != nil {
			ferr = fmt.Errorf("config %s: key %s: %w", path, Key(f.Name), err)
		}
	})
	return ferr
}

// ReadFile parses a config file: a YAML (or JSON, which is YAML) object.
func ReadFile(path string) (map[string]any, error) {
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

// splitValue is v as the values of f: the items of a comma-separated list
// for a List, else v itself.
func splitValue(f *flag.Flag, v string) []string {
	if _, ok := f.Value.(List); ok {
		return SplitList(v)
	}
	return []string{v}
}

// SplitList splits a comma-separated value, trimming each item and
// dropping empty ones.
func SplitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func setValues(f *flag.Flag, vals []string) error {
	for _, v := range vals {
		if err := f.Value.Set(v); err != nil {
			return fmt.Errorf("invalid value %q for %s: %w", v, f.Name, err)
		}
	}
	return nil
}
