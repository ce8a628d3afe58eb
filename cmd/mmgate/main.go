// Command mmgate is the multimodal model gateway: it serves the OpenAI chat API
// in front of TokenSpeed, vLLM and SGLang workers, runs the reference worker,
// and carries the tools used to check and measure each stage (preprocess,
// tokenize, render, bench).
//
// Usage: mmgate <subcommand> [flags] [arguments]. See `mmgate help`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand: a one-line summary for `mmgate help` and the
// function that runs it. run returns the process exit status (0 ok, 1 some
// input refused, 2 usage error).
type command struct {
	summary string
	run     func(ctx context.Context, io *stdio, args []string) int
}

// stdio carries the process streams so that subcommands can be tested without
// touching the real ones.
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// commands lists every subcommand. Each lives in its own cmd_<name>.go file.
func commands() map[string]command {
	return map[string]command{
		"version":    {"print the version, Go version and built-in decoders", runVersion},
		"preprocess": {"decode and preprocess images for a model; print grids, token counts, hashes", runPreprocess},
		"tokenize":   {"encode text (or decode ids) with a Hugging Face tokenizer.json", runTokenize},
		"render":     {"render an OpenAI chat request into the model's prompt and token ids", runRender},
		"worker":     {"run the reference TokenSpeed worker", runWorker},
		"serve":      {"run the gateway (OpenAI API → TokenSpeed workers)", runServe},
		"bench":      {"benchmarks: transport, gateway", runBench},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, s *stdio, args []string) int {
	cmds := commands()
	if len(args) == 0 {
		usage(s.err, cmds)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "--help", "-help":
		if len(rest) == 0 {
			usage(s.out, cmds)
			return 0
		}
		c, ok := cmds[rest[0]]
		if !ok {
			fmt.Fprintf(s.err, "mmgate: unknown subcommand %q\n", rest[0])
			return 2
		}
		return c.run(ctx, s, []string{"-h"})
	}
	c, ok := cmds[name]
	if !ok {
		fmt.Fprintf(s.err, "mmgate: unknown subcommand %q\n\n", name)
		usage(s.err, cmds)
		return 2
	}
	return c.run(ctx, s, rest)
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: mmgate <subcommand> [flags] [arguments]")
	fmt.Fprintln(w, "\nsubcommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun `mmgate help <subcommand>` for its flags.")
}
