package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mmgate/mmgate/tokenizer"
)

// This file answers: how does `mmgate tokenize` encode stdin, or decode ids?

// maxTokenizeInput bounds what tokenize reads from stdin.
const maxTokenizeInput = 256 << 20

type tokenizeIDs struct {
	IDs []uint32 `json:"ids"`
}

type tokenizeText struct {
	Text string `json:"text"`
}

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
	in, err := io.ReadAll(io.LimitReader(s.in, maxTokenizeInput+1))
	if err != nil {
		return tokenizeFail(s, fmt.Errorf("reading stdin: %w", err))
	}
	if len(in) > maxTokenizeInput {
		return tokenizeFail(s, fmt.Errorf("stdin is over %d bytes", maxTokenizeInput))
	}
	if !*decode {
		return writeJSONLine(s, tokenizeIDs{IDs: tok.Encode(string(in))})
	}
	ids, err := parseTokenizeIDs(in)
	if err != nil {
		return tokenizeFail(s, err)
	}
	return writeJSONLine(s, tokenizeText{Text: tok.Decode(ids, *skip)})
}

// parseTokenizeIDs reads {"ids": [...]}: every id a whole number that fits
// in uint32.
func parseTokenizeIDs(in []byte) ([]uint32, error) {
	var doc struct {
		IDs *[]json.Number `json:"ids"`
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode input: want {\"ids\": [...]}: %v", err)
	}
	if doc.IDs == nil {
		return nil, fmt.Errorf("decode input: no \"ids\" list")
	}
	ids := make([]uint32, 0, len(*doc.IDs))
	for _, n := range *doc.IDs {
		var v uint32
		if err := json.Unmarshal([]byte(n), &v); err != nil {
			return nil, fmt.Errorf("decode input: id %s is not a token id", n)
		}
		ids = append(ids, v)
	}
	return ids, nil
}

// tokenizeFail reports a refused input: a {"error": ...} line on stdout,
// the reason on stderr, exit status 1.
func tokenizeFail(s *stdio, err error) int {
	fmt.Fprintln(s.err, "mmgate tokenize:", err)
	writeJSONLine(s, map[string]string{"error": err.Error()})
	return 1
}
