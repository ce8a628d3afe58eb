package prompt

import (
	"strconv"
	"strings"
)

// VideoGroup is one temporal group of a timestamped (Qwen3-VL) video: its
// time in seconds and its pad tokens.
type VideoGroup struct {
	Seconds float64
	Tokens  int
}

// TimestampText is the text before a group: "<" + seconds with one
// decimal (round half to even on the binary value, as Python's {:.1f}) +
// " seconds>".
func TimestampText(seconds float64) string {
	return "<" + strconv.FormatFloat(seconds, 'f', 1, 64) + " seconds>"
}

// expandVideoText rewrites the rendered prompt for timestamped videos: the
// k-th video's "<start><video_pad><end>" (or, failing that, its bare
// video pad) becomes, per group, the timestamp text followed by
// "<start><video_pad><end>" with a single pad, which Expand later widens.
// Videos without groups keep their placeholder.
func expandVideoText(text string, media []MediaItem, exp []Expansion, sp *Specials) (string, error) {
	pad, ok := sp.Pad[Video]
	if !ok {
		return text, nil
	}
	wrapped := sp.Start.Text + pad.Text + sp.End.Text
	var b strings.Builder
	pos := 0
	for i, it := range media {
		if it.Modality != Video {
			continue
		}
		rest := text[pos:]
		at, n := strings.Index(rest, wrapped), len(wrapped)
		if at < 0 || sp.Start.Text == "" {
			at, n = strings.Index(rest, pad.Text), len(pad.Text)
		}
		if at < 0 {
			return "", &Error{Kind: ErrBadRequest, Param: it.Param, Msg: "the chat template rendered no placeholder for this video"}
		}
		b.WriteString(rest[:at])
		if len(exp[i].Groups) == 0 {
			b.WriteString(rest[at : at+n])
		} else {
			for _, g := range exp[i].Groups {
				b.WriteString(TimestampText(g.Seconds))
				b.WriteString(wrapped)
			}
		}
		pos += at + n
	}
	if pos == 0 {
		return text, nil
	}
	b.WriteString(text[pos:])
	return b.String(), nil
}
