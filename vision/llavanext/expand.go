package llavanext

import "github.com/mmgate/mmgate/vision"

// Anchor is the text the chat template writes for an image: <image>.
func (p *Processor) Anchor() string { return p.cfg.Prompt.ImageToken }

// PadToken is the image token, written once by Expansion.
func (p *Processor) PadToken() string { return p.cfg.Prompt.ImageToken }

// Expansion returns what the anchor of a planned image becomes: the image
// token once, to be widened to plan.Tokens (LlavaNextProcessor repeats it).
func (p *Processor) Expansion(plan vision.Plan) (text string, runs []int) {
	return p.cfg.Prompt.ImageToken, []int{plan.Tokens}
}
