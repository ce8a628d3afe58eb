package internvl

import "github.com/mmgate/mmgate/vision"

// Prompt is the text one planned image puts in the prompt in place of its
// anchor (ImageAnchor).
type Prompt struct {
	// Text is the replacement, with each run of pad tokens written as a
	// single Pad.
	Text string
	// Pad is the placeholder token the runs repeat (<IMG_CONTEXT>).
	Pad string
	// Runs are the lengths of the pad runs, in order.
	Runs []int
}

// ImageAnchor is the text the chat template renders for each image
// (followed by a newline that stays): <IMG_CONTEXT>. InternVLProcessor
// replaces each occurrence, in order, with the next image's Prompt.
func (p *Processor) ImageAnchor() string { return p.cfg.ContextToken }

// ImagePrompt is InternVLProcessor's replacement for one planned image:
// <img> + image_seq_length·num_patches <IMG_CONTEXT> + </img>, the pad run
// written once.
func (p *Processor) ImagePrompt(plan vision.Plan) Prompt {
	c := &p.cfg
	return Prompt{
		Text: c.StartToken + c.ContextToken + c.EndToken,
		Pad:  c.ContextToken,
		Runs: []int{c.ImageSeqLength * plan.Views},
	}
}
