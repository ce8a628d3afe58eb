package prompt

import (
	"fmt"

	"github.com/mmgate/mmgate/chattemplate"
)

// Expansion says how many placeholder tokens one media item takes; the
// caller fills it from the vision planner (vision.Plan.Tokens), one per
// media item in prompt order.
type Expansion struct {
	// Tokens is the item's pad count: an image, or a video laid out as a
	// single run (Qwen2-VL / Qwen2.5-VL: gt·gh·gw/4).
	Tokens int
	// Groups, when set, lays a video out as timestamped temporal groups
	// (Qwen3-VL); Tokens is then ignored.
	Groups []VideoGroup
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
	// per video (one per temporal group for a timestamped video).
	Placeholders []Placeholder
}

// Render renders the plan with t, lays timestamped videos out, tokenizes
// with tok and expands every pad token to its item's count. exp has one
// entry per plan.Media item.
func Render(t *chattemplate.Template, tok Tokenizer, sp *Specials, plan *Plan, exp []Expansion) (*Result, error) {
	text, err := t.Render(plan.Input)
	if err != nil {
		return nil, err
	}
	if len(plan.Media) == 0 {
		ids := tok.Encode(text)
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
	expanded, err := expandVideoText(text, plan.Media, exp, sp)
	if err != nil {
		return nil, err
	}
	ids, ph, err := Expand(tok.Encode(expanded), plan, exp, sp)
	if err != nil {
		return nil, err
	}
	return &Result{Text: text, IDs: ids, Placeholders: ph}, nil
}

// anchors returns, per item, how many pad tokens stand for it before
// expansion: one, or one per group.
func anchors(exp []Expansion, i int) int {
	if exp == nil || len(exp[i].Groups) == 0 {
		return 1
	}
	return len(exp[i].Groups)
}

// checkAnchors requires the tokenized prompt to hold exactly one pad token
// per item (per group of a timestamped video) for every modality, and, when
// the model wraps items in start/end tokens, one pair per pad.
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
// widens each to its item's token count (each group's count for a
// timestamped video). It returns the final ids and the pad runs.
func Expand(ids []uint32, plan *Plan, exp []Expansion, sp *Specials) ([]uint32, []Placeholder, error) {
	if len(exp) != len(plan.Media) {
		return nil, nil, fmt.Errorf("prompt: expand: %d expansions for %d media items", len(exp), len(plan.Media))
	}
	if err := checkAnchors(ids, plan, exp, sp); err != nil {
		return nil, nil, err
	}
	// The k-th pad of modality m belongs to the k-th anchor of m.
	type anchor struct {
		item, tokens int
	}
	queues := map[uint32][]anchor{}
	total := len(ids)
	for i, it := range plan.Media {
		pad := sp.Pad[it.Modality].ID
		if len(exp[i].Groups) == 0 {
			if exp[i].Tokens <= 0 {
				return nil, nil, fmt.Errorf("prompt: expand: item %d has %d tokens: %w", i, exp[i].Tokens, ErrBadRequest)
			}
			queues[pad] = append(queues[pad], anchor{i, exp[i].Tokens})
			total += exp[i].Tokens - 1
			continue
		}
		for _, g := range exp[i].Groups {
			if g.Tokens <= 0 {
				return nil, nil, fmt.Errorf("prompt: expand: item %d has a group of %d tokens: %w", i, g.Tokens, ErrBadRequest)
			}
			queues[pad] = append(queues[pad], anchor{i, g.Tokens})
			total += g.Tokens - 1
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
