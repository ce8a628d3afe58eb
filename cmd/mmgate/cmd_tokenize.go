package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mmgate/mmgate/internal/tools/tokenize"
	"github.com/mmgate/mmgate/tokenizer"
)

// This file answers: how does `mmgate tokenize` encode stdin, or decode ids?

func runTokenize(_ context.Context, s *stdio, args []string) int {
	fs := newFlagSet(s, "tokenize", "tokenize --tokenizer FILE_OR_DIR [--decode] [--skip-special-tokens] < input\n\n"+
		"Encodes UTF-8 text read verbatim from stdin and prints {\"ids\": [...]}; with --decode reads\n"+
		"{\"ids\": [...]} and prints {\"text\": \"...\"}. A directory means its tokenizer.json.")
	path := fs.String("tokenizer", "", "tokenizer.json file, or a directory holding one")
	decode := fs.Bool("decode", false, "decode {\"ids\": [...]} from stdin instead of encoding text")
	skip := fs.Bool("skip-special-tokens", false, "with --decode: leave out special added tokens (no effect when encoding)")
	fs.String("config", "", "config file (YAML or JSON)")
	rest, err := parseFlags(fs, args, os.LookupEnv)
	if err != nil {
		return exitForParse(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(s.err, "mmgate tokenize: unexpected argument %q\n", rest[0])
		return 2
	}
	if *path == "" {
		fmt.Fprintln(s.err, "mmgate tokenize: --tokenizer is required")
		return 2
	}
	tok, err := tokenizer.Load(*path)
	if err != nil {
		return tokenizeFail(s, err)
	}
	out, err := tokenize.Run(tok, s.in, *decode, *skip)
	if err != nil {
		return tokenizeFail(s, err)
	}
	return writeJSONLine(s, out)
}

// tokenizeFail reports a refused input: a {"error": ...} line on stdout,
// the reason on stderr, exit status 1.
func tokenizeFail(s *stdio, err error) int {
	fmt.Fprintln(s.err, "mmgate tokenize:", err)
	writeJSONLine(s, map[string]string{"error": err.Error()})
	return 1
}
