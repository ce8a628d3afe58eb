package prompt

import (
	"fmt"
	"strings"

	"github.com/mmgate/mmgate/chattemplate"
)

// Expansion says what one media item becomes in the prompt. The model's
// family fills it from the item's plan, one per media item in prompt order.
//
// The item's anchor (Specials.Placeholder: the text the chat template
// renders for it) is laid out in one of three ways, the first that applies:
//
//   - Text: the anchor is replaced by Text, in which each pad token of the
//     item's modality is written once and stands for one run, widened to
//     the matching entry of Runs (Gemma 3 views, InternVL's <img>…</img>).
//   - Groups: a timestamped video (Qwen3-VL): per group, TimestampText then
//     the anchor, each group's pad one run of the group's Tokens.
//   - otherwise the anchor stays and its pad is one run of Tokens (Qwen
//     images; Qwen2-VL / Qwen2.5-VL video: gt·gh·gw/4).
//
// The prompt is tokenized with one pad per run and each pad is then
// widened, so that text around the runs tokenizes exactly while thousands
// of pads are never tokenized.
type Expansion struct {
	// Tokens is the pad count of an item laid out as its anchor's single
	// run (and, by convention, the item's total in the other layouts).
	Tokens int
	// Groups lays a video out as timestamped temporal groups.
	Groups []VideoGroup
	// Text replaces the anchor when set; it holds len(Runs) pads.
	Text string
	// Runs are the lengths of the pad runs in Text, in order.
	Runs []int
	// Lead counts the tokens just before the item's first run that belong
	// to its structural range (Qwen3-VL video: its first <|vision_start|>).
	Lead int
	// Frame makes the item's structural range all of Text: Render counts
	// the tokens of Text before its first run and after its last run, each
	// part tokenized alone as vLLM tokenizes a prompt replacement (Gemma 3's
	// "\n\n<start_of_image>" … "<end_of_image>\n\n", InternVL's <img> …
	// </img>). Lead is then not used.
	Frame bool
}

// replaces reports whether the item's anchor is rewritten before
// tokenizing.
func (e *Expansion) replaces() bool { return e.Text != "" || len(e.Groups) > 0 }

// runs is the number of pad runs the item has in the final prompt.
func (e *Expansion) runs() int {
	switch {
	case e.Text != "":
		return len(e.Runs)
	case len(e.Groups) > 0:
		return len(e.Groups)
	}
	return 1
}

// run is the length of the k-th run.
func (e *Expansion) run(k int) int {
	switch {
	case e.Text != "":
		return e.Runs[k]
	case len(e.Groups) > 0:
		return e.Groups[k].Tokens
	}
	return e.Tokens
}

// Placeholder is one run of pad tokens in the final input ids.
type Placeholder struct {
	Modality Modality
	Item     int // index into Plan.Media
	Offset   int
	Length   int
}

// Result is a rendered, tokenized and expanded prompt.
type Result struct {
	// Text is the chat template's output, before any expansion.
	Text string
	// IDs are the final input ids.
	IDs []uint32
	// Placeholders are the pad runs in prompt order: one per image, one
	// per video (one per run of an item laid out in several runs).
	Placeholders []Placeholder
	// frames are the token counts before the first run and after the last
	// of the items whose Expansion has Frame, by item index.
	frames map[int][2]int
}

// Structural is media item's structural range: from e.Lead tokens before
// its first pad run to the end of its last run, where e is the item's
// Expansion given to Render; for an Expansion with Frame, from the first
// token of its Text to the last. For an item of one run without a lead it
// is that run. ok is false when the item has no run in r.
func (r *Result) Structural(item int, e Expansion) (p Placeholder, ok bool) {
	for _, ph := range r.Placeholders {
		if ph.Item != item {
			continue
		}
		if !ok {
			p, ok = ph, true
			continue
		}
		p.Length = ph.Offset + ph.Length - p.Offset
	}
	if !ok {
		return p, false
	}
	lead, trail := e.Lead, 0
	if f, framed := r.frames[item]; framed && e.Frame {
		lead, trail = f[0], f[1]
	}
	lead = min(lead, p.Offset)
	p.Offset -= lead
	p.Length += lead + trail
	return p, true
}

// Render renders the plan with t, lays out the items whose expansion
// replaces their anchor, tokenizes with tok and expands every pad token to
// its run. exp has one entry per plan.Media item.
func Render(t *chattemplate.Template, tok Tokenizer, sp *Specials, plan *Plan, exp []Expansion) (*Result, error) {
	text, err := t.Render(plan.Input)
	if err != nil {
		return nil, err
	}
	if len(plan.Media) == 0 {
		ids := EncodeChat(tok, text)
		if sp != nil {
			if err := checkAnchors(ids, plan, nil, sp); err != nil {
				return nil, err
			}
		}
		return &Result{Text: text, IDs: ids, Placeholders: []Placeholder{}}, nil
	}
	if sp == nil {
		return nil, fmt.Errorf("prompt: render: media without the model's special tokens: %w", ErrUnsupported)
	}
	if len(exp) != len(plan.Media) {
		return nil, fmt.Errorf("prompt: render: %d expansions for %d media items", len(exp), len(plan.Media))
	}
	expanded, err := layoutText(text, plan.Media, exp, sp)
	if err != nil {
		return nil, err
	}
	ids, ph, err := Expand(EncodeChat(tok, expanded), plan, exp, sp)
	if err != nil {
		return nil, err
	}
	return &Result{Text: text, IDs: ids, Placeholders: ph, frames: frames(tok, plan, exp, sp)}, nil
}

// frames counts, for each item whose Expansion has Frame, the tokens of its
// Text before the first pad and after the last, each part tokenized alone.
func frames(tok Tokenizer, plan *Plan, exp []Expansion, sp *Specials) map[int][2]int {
	var out map[int][2]int
	for i, e := range exp {
		if !e.Frame || e.Text == "" {
			continue
		}
		pad := sp.Pad[plan.Media[i].Modality].Text
		first, last := strings.Index(e.Text, pad), strings.LastIndex(e.Text, pad)
		if first < 0 {
			continue
		}
		if out == nil {
			out = map[int][2]int{}
		}
		out[i] = [2]int{len(EncodeChat(tok, e.Text[:first])), len(EncodeChat(tok, e.Text[last+len(pad):]))}
	}
	return out
}

// anchors returns how many pad tokens stand for item i before expansion:
// one per run.
func anchors(exp []Expansion, i int) int {
	if exp == nil {
		return 1
	}
	return exp[i].runs()
}

// checkAnchors requires the tokenized prompt to hold exactly one pad token
// per run for every modality, and, when the model wraps runs in start/end
// tokens, one pair per visual run.
func checkAnchors(ids []uint32, plan *Plan, exp []Expansion, sp *Specials) error {
	want := map[Modality]int{}
	for i, it := range plan.Media {
		want[it.Modality] += anchors(exp, i)
	}
	got := map[uint32]int{}
	for _, id := range ids {
		got[id]++
	}
	wrapped := 0
	for _, m := range []Modality{Image, Video, Audio} {
		pad, ok := sp.Pad[m]
		if !ok {
			continue
		}
		if got[pad.ID] != want[m] {
			return &Error{Kind: ErrBadRequest, Msg: fmt.Sprintf("the prompt has %d %s placeholder(s) %q for %d %s item(s); the chat template must render one per item (media in messages it does not render, or placeholder tokens in text or tools, cause this)",
				got[pad.ID], m, pad.Text, want[m], m)}
		}
		if m != Audio {
			wrapped += want[m]
		}
	}
	if sp.Start.Text != "" && sp.End.Text != "" && (got[sp.Start.ID] != wrapped || got[sp.End.ID] != wrapped) {
		return &Error{Kind: ErrBadRequest, Msg: fmt.Sprintf("the prompt has %d %q and %d %q tokens for %d visual placeholders; media tokens typed in text or tools are not allowed",
			got[sp.Start.ID], sp.Start.Text, got[sp.End.ID], sp.End.Text, wrapped)}
	}
	return nil
}

// Expand checks the pad tokens of a tokenized prompt against the plan and
// widens each to its run (one run per pad, in item order within each
// modality). It returns the final ids and the pad runs.
func Expand(ids []uint32, plan *Plan, exp []Expansion, sp *Specials) ([]uint32, []Placeholder, error) {
	if len(exp) != len(plan.Media) {
		return nil, nil, fmt.Errorf("prompt: expand: %d expansions for %d media items", len(exp), len(plan.Media))
	}
	if err := checkAnchors(ids, plan, exp, sp); err != nil {
		return nil, nil, err
	}
	// The k-th pad of modality m belongs to the k-th run of m.
	type anchor struct {
		item, tokens int
	}
	queues := map[uint32][]anchor{}
	total := len(ids)
	for i, it := range plan.Media {
		pad := sp.Pad[it.Modality].ID
		e := &exp[i]
		for k := range e.runs() {
			n := e.run(k)
			if n <= 0 {
				return nil, nil, fmt.Errorf("prompt: expand: item %d has a run of %d tokens: %w", i, n, ErrBadRequest)
			}
			queues[pad] = append(queues[pad], anchor{i, n})
			total += n - 1
		}
	}
	out := make([]uint32, 0, total)
	ph := make([]Placeholder, 0, len(plan.Media))
	for _, id := range ids {
		q, ok := queues[id]
		if !ok || len(q) == 0 {
			out = append(out, id)
			continue
		}
		a := q[0]
		queues[id] = q[1:]
		ph = append(ph, Placeholder{Modality: plan.Media[a.item].Modality, Item: a.item, Offset: len(out), Length: a.tokens})
		for range a.tokens {
			out = append(out, id)
		}
	}
	return out, ph, nil
}
