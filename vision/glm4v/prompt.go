package glm4v

import (
	"strconv"
	"strings"

	"github.com/mmgate/mmgate/vision"
)

// Prompt is the text one planned item puts in the prompt in place of its
// anchor (ImageAnchor, VideoAnchor).
type Prompt struct {
	// Text is the replacement, with each run of pad tokens written as a
	// single Pad.
	Text string
	// Pad is the placeholder token the runs repeat.
	Pad string
	// Runs are the lengths of the pad runs, in order.
	Runs []int
}

// ImageAnchor is what the chat template renders for an image:
// <|begin_of_image|><|image|><|end_of_image|>.
func (p *Processor) ImageAnchor() string {
	return p.cfg.BeginImage + p.cfg.ImageToken + p.cfg.EndImage
}

// VideoAnchor is what the chat template renders for a video:
// <|begin_of_video|><|video|><|end_of_video|>.
func (p *Processor) VideoAnchor() string {
	return p.cfg.BeginVideo + p.cfg.VideoToken + p.cfg.EndVideo
}

// ImagePrompt is Glm4vProcessor's expansion of one planned image: the
// anchor with its <|image|> repeated grid_t·gh·gw/merge² times.
func (p *Processor) ImagePrompt(plan vision.Plan) Prompt {
	return Prompt{Text: p.ImageAnchor(), Pad: p.cfg.ImageToken, Runs: []int{plan.Tokens}}
}

// VideoPrompt is Glm4vProcessor's expansion of one planned video:
// <|begin_of_video|>, then per temporal group <|begin_of_image|>, a run of
// gh·gw/merge² pads, <|end_of_image|> and the group's whole second
// (GroupSeconds), then <|end_of_video|>. The pad is Options.VideoFramePad.
func (p *Processor) VideoPrompt(plan vision.VideoPlan) Prompt {
	c := &p.cfg
	per := plan.Tokens / max(plan.GridT, 1)
	var b strings.Builder
	b.WriteString(c.BeginVideo)
	runs := make([]int, 0, plan.GridT)
	for _, sec := range GroupSeconds(plan.Indices, plan.SourceFPS, plan.GridT) {
		b.WriteString(c.BeginImage)
		b.WriteString(p.framePad)
		b.WriteString(c.EndImage)
		b.WriteString(strconv.Itoa(sec))
		runs = append(runs, per)
	}
	b.WriteString(c.EndVideo)
	return Prompt{Text: b.String(), Pad: p.framePad, Runs: runs}
}
