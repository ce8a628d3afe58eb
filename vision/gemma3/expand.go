package gemma3

import (
	"strings"

	"github.com/mmgate/mmgate/vision"
)

// Anchor is the text the chat template writes for an image: the boi token.
func (p *Processor) Anchor() string { return p.cfg.Tokens.BOI }

// Tokens returns the special tokens of the expansion.
func (p *Processor) Tokens() Tokens { return p.cfg.Tokens }

// Expansion returns what the anchor of a planned image becomes in the
// prompt, with each run of image tokens written once, and the length of
// each run (image_seq_length per view, the whole image first). Widening
// every run gives the text Gemma3Processor substitutes for the boi token.
func (p *Processor) Expansion(plan vision.Plan) (text string, runs []int) {
	t := p.cfg.Tokens
	view := "\n\n" + t.BOI + t.Image + t.EOI + "\n\n"
	views := max(plan.Views, 1)
	runs = make([]int, views)
	for i := range runs {
		runs[i] = p.cfg.ImageSeqLength
	}
	if views == 1 {
		return view, runs
	}
	var b strings.Builder
	b.WriteString("Here is the original image ")
	b.WriteString(view)
	b.WriteString(" and here are some crops to help you see better ")
	for i := 1; i < views; i++ {
		if i > 1 {
			b.WriteByte(' ')
		}
		b.WriteString(view)
	}
	return b.String(), runs
}

// PadToken is the image token, written once per run by Expansion.
func (p *Processor) PadToken() string { return p.cfg.Tokens.Image }
