package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/prompt"
	"github.com/mmgate/mmgate/tokenizer"
)

// This file answers: which hashes and spans does vLLM's render give a
// request's media items (features.mm_hashes, features.mm_placeholders)?
//
// vLLM's span of an item is the token sequence its processor put in place
// of the prompt text it replaced (PlaceholderRange: offset, length; the
// is_embed mask of the pads inside is not on the HTTP wire). In mmgate's
// terms, from the item's Expansion:
//
//   - an item whose anchor stays (one run of pads: Qwen-VL images, Qwen2-VL
//     and Qwen2.5-VL videos, LLaVA) replaced only its pad: the span is the
//     pad run;
//   - an item laid out as Text (Gemma 3, InternVL, GLM-4V video) replaced
//     its anchor with all of Text: the span runs from Text's first token to
//     its last;
//   - a timestamped video (Groups: Qwen3-VL) replaced its anchor with every
//     group's timestamp and anchor: the span runs from the first group's
//     "<t seconds>" to the last group's <|vision_end|>.
//
// The tokens before the first run and after the last are those of the text
// parts tokenized alone, as vLLM tokenizes a replacement, and are checked
// against the prompt's ids. vLLM finds a replacement by its ids, and fails
// a prompt where the text before it merges with the replacement's first
// token (a Qwen3-VL video right after "Video 1: ": " <" is one token); such
// a request is refused here too (400), never given a guessed span. A model
// whose vLLM processor reads some merged tokens as their parts when it
// looks for a replacement (Gemma 3's newline runs: Specials.Splits) gets
// the same reading here: the span starts at the merged token and is as long
// as the replacement.

// errSpan is a layout whose text does not hold its pad: a family's bug.
var errSpan = errors.New("pipeline: media item span")

// vllmFeatures lists r's media items as vLLM's render does; nil for a
// prompt without media. kwargs_data and mm_metadata stay null: processor
// outputs are never serialized.
func vllmFeatures(r *Rendered, hashes []string) (*openai.MultiModalFeatures, error) {
	items := mediaOrder(r.Placeholders)
	if len(items) == 0 {
		return nil, nil
	}
	f := &openai.MultiModalFeatures{MMHashes: map[string][]string{}, MMPlaceholders: map[string][]openai.PlaceholderRange{}}
	for _, it := range items {
		span, err := vllmSpan(&r.Result, it.item, it.modality, r.Layouts[it.item], r.Assets.Specials, r.Assets.Tokenizer)
		if err != nil {
			return nil, err
		}
		key := it.modality.String()
		f.MMHashes[key] = append(f.MMHashes[key], hashes[it.item])
		f.MMPlaceholders[key] = append(f.MMPlaceholders[key], span)
	}
	return f, nil
}

// itemHashes are the items' mm_hashes: the cache keys the gateway sends
// vLLM workers as their mm_hashes (hex BLAKE3 of the media bytes, folded
// with the request's processing settings when it changes them), so that a
// router keying prefix-cache blocks by the render's hashes meets the same
// keys in a vLLM worker's KV events.
func itemHashes(r *Rendered) []string {
	out := make([]string, len(r.Media))
	for i, m := range r.Media {
		out[i] = m.CacheKey // identify sets it with the content hash
	}
	return out
}

// renderItem is one item of a rendered prompt: its index and modality.
type renderItem struct {
	item     int
	modality prompt.Modality
}

// mediaOrder are the items that have runs, each once, in prompt order.
func mediaOrder(runs []prompt.Placeholder) []renderItem {
	var out []renderItem
	for _, ph := range runs {
		if !slices.ContainsFunc(out, func(m renderItem) bool { return m.item == ph.Item }) {
			out = append(out, renderItem{ph.Item, ph.Modality})
		}
	}
	return out
}

// vllmSpan is item's span in res as vLLM gives it (see the file comment).
func vllmSpan(res *prompt.Result, item int, m prompt.Modality, e prompt.Expansion, sp *prompt.Specials, tok *tokenizer.Tokenizer) (openai.PlaceholderRange, error) {
	first, last := -1, -1
	for k, ph := range res.Placeholders {
		if ph.Item == item {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 {
		return openai.PlaceholderRange{}, fmt.Errorf("%w: item %d has no pads in the prompt", errSpan, item)
	}
	start := res.Placeholders[first].Offset
	end := res.Placeholders[last].Offset + res.Placeholders[last].Length
	before, after, err := layoutEdges(e, m, sp)
	if err != nil {
		return openai.PlaceholderRange{}, err
	}
	pre := tok.EncodeWith(before, tokenizer.EncodeOptions{NoSpecialTokens: true})
	post := tok.EncodeWith(after, tokenizer.EncodeOptions{NoSpecialTokens: true})
	offset, okPre := endsWith(res.IDs[:start], pre, sp.Splits)
	if !okPre || !startsWith(res.IDs[end:], post, sp.Splits) {
		return openai.PlaceholderRange{}, &prompt.Error{Kind: prompt.ErrUnsupported, Msg: fmt.Sprintf(
			"media item %d: the text around it merges with its layout's first or last token (%q … %q), so vLLM would not find its placeholder; change the text next to it", item, before, after)}
	}
	// vLLM's length is the replacement's own token count, also when its
	// first token sits inside a split token of the prompt.
	return openai.PlaceholderRange{Offset: offset, Length: len(pre) + end - start + len(post)}, nil
}

// parts is token id as vLLM reads it when it finds a replacement: its
// split, or itself.
func parts(id uint32, splits map[uint32][]uint32) []uint32 {
	if s, ok := splits[id]; ok {
		return s
	}
	return []uint32{id}
}

// endsWith reports whether ids, each read through splits, end with want,
// and the index of the id where that match begins.
func endsWith(ids, want []uint32, splits map[uint32][]uint32) (int, bool) {
	i, need := len(ids), len(want)
	for need > 0 {
		if i == 0 {
			return 0, false
		}
		i--
		p := parts(ids[i], splits)
		for k := len(p) - 1; k >= 0 && need > 0; k-- {
			if p[k] != want[need-1] {
				return 0, false
			}
			need--
		}
	}
	return i, true
}

// startsWith reports whether ids, each read through splits, start with
// want.
func startsWith(ids, want []uint32, splits map[uint32][]uint32) bool {
	got := 0
	for _, id := range ids {
		if got == len(want) {
			break
		}
		for _, x := range parts(id, splits) {
			if got == len(want) {
				break
			}
			if x != want[got] {
				return false
			}
			got++
		}
	}
	return got == len(want)
}

// layoutEdges are the texts an item's layout puts before its first pad and
// after its last; both empty when the item's anchor stays.
func layoutEdges(e prompt.Expansion, m prompt.Modality, sp *prompt.Specials) (before, after string, err error) {
	pad := sp.Pad[m].Text
	switch {
	case e.Text != "":
		i, j := strings.Index(e.Text, pad), strings.LastIndex(e.Text, pad)
		if pad == "" || i < 0 {
			return "", "", fmt.Errorf("%w: a %s layout without its pad %q", errSpan, m, pad)
		}
		return e.Text[:i], e.Text[j+len(pad):], nil
	case len(e.Groups) > 0:
		anchor, _ := sp.Placeholder(m)
		k := strings.Index(anchor, pad)
		if pad == "" || k < 0 {
			return "", "", fmt.Errorf("%w: a %s anchor %q without its pad %q", errSpan, m, anchor, pad)
		}
		return prompt.TimestampText(e.Groups[0].Seconds) + anchor[:k], anchor[k+len(pad):], nil
	}
	return "", "", nil
}
