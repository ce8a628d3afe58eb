package main

import (
	"flag"
	"log/slog"

	"github.com/mmgate/mmgate/internal/config"
)

// This file answers: how does a subcommand get its configuration? Through
// package config: flag > environment (MMGATE_SOME_NAME) > config file
// (--config FILE, key some_name) > default. These are the subcommands'
// shorthands for it.

// The flag values the subcommands use most.
type (
	stringList = config.StringList
	byteSize   = config.ByteSize
)

// newFlagSet returns a FlagSet for a subcommand whose usage and errors go
// to stderr. synopsis is printed after "usage: mmgate ".
func newFlagSet(s *stdio, name, synopsis string) *flag.FlagSet {
	return config.NewFlagSet(s.err, name, synopsis)
}

// parseFlags resolves the flags of fs (config.Parse) and returns the
// positional arguments; exitForParse maps its error to the exit status.
func parseFlags(fs *flag.FlagSet, args []string, lookupEnv func(string) (string, bool)) ([]string, error) {
	return config.Parse(fs, args, lookupEnv)
}

// exitForParse maps a parseFlags error to an exit status: 0 for -h, else 2.
func exitForParse(err error) int { return config.ExitStatus(err) }

// logFlags are --log-level and --log-format.
type logFlags struct{ config.LogFlags }

func addLogFlags(fs *flag.FlagSet) *logFlags {
	l := &logFlags{}
	l.Register(fs)
	return l
}

// logger builds the process logger (to stderr) from the flags.
func (l *logFlags) logger(s *stdio) (*slog.Logger, error) { return l.Logger(s.err) }
