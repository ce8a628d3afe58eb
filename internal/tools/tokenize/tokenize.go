// Package tokenize is what `mmgate tokenize` runs: it encodes text read
// verbatim, or decodes {"ids": [...]}, with a Hugging Face tokenizer, and
// returns the values the command prints as JSON.
package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mmgate/mmgate/tokenizer"
)

// MaxInput bounds what Run reads.
const MaxInput = 256 << 20

// IDs is an encoding's output (and a decoding's input).
type IDs struct {
	IDs []uint32 `json:"ids"`
}

// Text is a decoding's output.
type Text struct {
	Text string `json:"text"`
}

// Run reads at most MaxInput bytes from in and returns IDs of the text,
// or, with decode, the Text of the {"ids": [...]} read; skipSpecial leaves
// out special added tokens when decoding.
func Run(tok *tokenizer.Tokenizer, in io.Reader, decode, skipSpecial bool) (any, error) {
	b, err := io.ReadAll(io.LimitReader(in, MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(b) > MaxInput {
		return nil, fmt.Errorf("stdin is over %d bytes", MaxInput)
	}
	if !decode {
		return IDs{IDs: tok.Encode(string(b))}, nil
	}
	ids, err := ParseIDs(b)
	if err != nil {
		return nil, err
	}
	return Text{Text: tok.Decode(ids, skipSpecial)}, nil
}

// ParseIDs reads {"ids": [...]}: every id a whole number that fits in
// uint32.
func ParseIDs(in []byte) ([]uint32, error) {
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
