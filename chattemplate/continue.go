package chattemplate

import (
	"fmt"
	"strings"
	"unicode"
)

// continueFinal cuts rendered right after the final message's content,
// following transformers' apply_chat_template(continue_final_message=True):
// the content is the message's string content or its last part with a
// "text" key; it must appear in the rendered text (compared without
// surrounding whitespace), and its trailing whitespace is kept only when
// the template kept it.
func continueFinal(rendered string, final Object) (string, error) {
	text, ok := finalText(final)
	if !ok {
		return "", fmt.Errorf("chattemplate: continue_final_message: the final message has no text to continue: %w", ErrBadInput)
	}
	stripped := strings.TrimFunc(text, pyIsSpace)
	loc := strings.LastIndex(rendered, stripped)
	if loc < 0 {
		return "", fmt.Errorf("chattemplate: continue_final_message: the final message does not appear in the rendered chat: %w", ErrBadInput)
	}
	left := strings.TrimLeftFunc(text, pyIsSpace)
	if end := loc + len(left); end <= len(rendered) && rendered[loc:end] == text {
		return rendered[:end], nil
	}
	return rendered[:loc+len(stripped)], nil
}

func finalText(m Object) (string, bool) {
	c, _ := m.Get("content")
	switch x := c.(type) {
	case string:
		return x, true
	case []Object:
		for i := len(x) - 1; i >= 0; i-- {
			if t, ok := x[i].Get("text"); ok {
				s, ok := t.(string)
				return s, ok
			}
		}
	case []any:
		for i := len(x) - 1; i >= 0; i-- {
			if o, ok := x[i].(Object); ok {
				if t, ok := o.Get("text"); ok {
					s, ok := t.(string)
					return s, ok
				}
			}
		}
	}
	return "", false
}

// pyIsSpace is Python's str.isspace for one character.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
