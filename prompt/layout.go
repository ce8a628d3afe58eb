package prompt

import (
	"fmt"
	"strings"
)

// layoutText rewrites the rendered prompt for the items whose expansion
// replaces their anchor (Text or Groups). Modalities without such an item
// are left as they are, without a copy.
func layoutText(text string, media []MediaItem, exp []Expansion, sp *Specials) (string, error) {
	for _, m := range []Modality{Image, Video, Audio} {
		replaced := false
		for i, it := range media {
			replaced = replaced || it.Modality == m && exp[i].replaces()
		}
		if !replaced {
			continue
		}
		var err error
		if text, err = layoutModality(text, m, media, exp, sp); err != nil {
			return "", err
		}
	}
	return text, nil
}

// layoutModality lays out the items of modality m: the k-th anchor of m
// (Specials.Placeholder, or failing that the bare pad when the anchor holds
// it, as Hugging Face processors fall back) belongs to the k-th item of m
// and becomes its Text, its timestamped groups, or stays.
func layoutModality(text string, m Modality, media []MediaItem, exp []Expansion, sp *Specials) (string, error) {
	pad := sp.Pad[m].Text
	anchor, _ := sp.Placeholder(m)
	var b strings.Builder
	pos := 0
	for i, it := range media {
		if it.Modality != m {
			continue
		}
		rest := text[pos:]
		at, n := strings.Index(rest, anchor), len(anchor)
		if at < 0 && anchor != pad && strings.Contains(anchor, pad) {
			at, n = strings.Index(rest, pad), len(pad)
		}
		if at < 0 {
			return "", &Error{Kind: ErrBadRequest, Param: it.Param, Msg: "the chat template rendered no placeholder for this " + m.String()}
		}
		b.WriteString(rest[:at])
		e := &exp[i]
		switch {
		case e.Text != "":
			if k := strings.Count(e.Text, pad); k != len(e.Runs) || k == 0 {
				return "", fmt.Errorf("prompt: layout: item %d: its text holds %d %q for %d runs", i, k, pad, len(e.Runs))
			}
			b.WriteString(e.Text)
		case len(e.Groups) > 0:
			for _, g := range e.Groups {
				b.WriteString(TimestampText(g.Seconds))
				b.WriteString(anchor)
			}
		default:
			b.WriteString(rest[at : at+n])
		}
		pos += at + n
	}
	b.WriteString(text[pos:])
	return b.String(), nil
}
