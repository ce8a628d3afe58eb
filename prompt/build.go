package prompt

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/openai"
)

// DefaultMaxMediaItems is the media item limit when Options.MaxMediaItems
// is zero.
const DefaultMaxMediaItems = 16

// Options configure Build. The zero value is the default.
type Options struct {
	// Specials are the model's media tokens. A modality without a pad
	// token is refused as unsupported; text containing any of them is
	// refused. Required when the request has media.
	Specials *Specials

	// MediaOrder applies to requests that set no media_order; "" means
	// MediaFirst.
	MediaOrder openai.MediaOrder

	// StringContent flattens every message's content to a string, for
	// templates that never iterate content parts
	// (chattemplate.Template.IteratesContentParts is false): the model's
	// placeholder once per media item, then the text parts, all joined
	// with "\n" (vLLM's rule for such templates; no text, no trailing
	// "\n").
	StringContent bool

	// EnableVideo accepts video_url parts. Without it they are refused
	// with ErrUnsupported.
	EnableVideo bool

	// MaxMediaItems bounds the media items of a request: 0 means
	// DefaultMaxMediaItems, a negative value means no limit.
	MaxMediaItems int
}

// Plan is a request split into its media items (prompt order) and the
// chat template's input.
type Plan struct {
	Media []MediaItem
	Input chattemplate.Input
}

// Count returns how many items of modality m the plan has.
func (p *Plan) Count(m Modality) int {
	n := 0
	for _, it := range p.Media {
		if it.Modality == m {
			n++
		}
	}
	return n
}

// Build turns a request into its media items and the template input.
// Media parts become {"type": "image"} / {"type": "video"} /
// {"type": "audio"}, text parts {"type": "text", "text": …}; inside each
// message media parts come first (stable) unless the order is Authored.
// A null content becomes "". Assistant tool-call arguments given as a
// JSON string are parsed into the value they hold, as vLLM does (an
// empty string or null becomes {}); key order is kept, as in
// chat_template_kwargs.
func Build(req *openai.ChatRequest, o Options) (*Plan, error) {
	order := req.MediaOrder
	if order == "" {
		order = o.MediaOrder
	}
	if order == "" {
		order = openai.MediaFirst
	}
	maxItems := o.MaxMediaItems
	if maxItems == 0 {
		maxItems = DefaultMaxMediaItems
	}
	kwargs, err := templateKwargs(req.ChatTemplateKwargs)
	if err != nil {
		return nil, err
	}
	p := &Plan{Input: chattemplate.Input{
		AddGenerationPrompt:  req.AddGenerationPrompt,
		ContinueFinalMessage: req.ContinueFinalMessage,
		Kwargs:               kwargs,
	}}
	if req.Tools != nil {
		p.Input.Tools = req.Tools
	}
	if req.Documents != nil {
		p.Input.Documents = req.Documents
	}
	for i, m := range req.Messages {
		param := fmt.Sprintf("messages[%d]", i)
		obj := chattemplate.Object{{Key: "role", Value: m.Role}}
		content, err := buildContent(p, m.Content, param+".content", order, o)
		if err != nil {
			return nil, err
		}
		obj = append(obj, chattemplate.Field{Key: "content", Value: content})
		if m.Name != "" {
			obj = append(obj, chattemplate.Field{Key: "name", Value: m.Name})
		}
		if m.ToolCallID != "" {
			obj = append(obj, chattemplate.Field{Key: "tool_call_id", Value: m.ToolCallID})
		}
		if m.ReasoningContent != nil {
			if err := checkText(*m.ReasoningContent, param+".reasoning_content", o.Specials); err != nil {
				return nil, err
			}
			obj = append(obj, chattemplate.Field{Key: "reasoning_content", Value: *m.ReasoningContent})
		}
		if len(m.ToolCalls) > 0 {
			calls, err := buildToolCalls(m.ToolCalls, param+".tool_calls")
			if err != nil {
				return nil, err
			}
			obj = append(obj, chattemplate.Field{Key: "tool_calls", Value: calls})
		}
		p.Input.Messages = append(p.Input.Messages, obj)
	}
	if maxItems > 0 && len(p.Media) > maxItems {
		return nil, &Error{Kind: ErrTooMany, Param: "messages", Msg: fmt.Sprintf("%d media items, at most %d allowed", len(p.Media), maxItems)}
	}
	return p, nil
}

func partModality(typ string) (Modality, bool) {
	switch typ {
	case "image_url":
		return Image, true
	case "video_url":
		return Video, true
	case "input_audio", "audio_url":
		return Audio, true
	}
	return 0, false
}

func buildContent(p *Plan, c openai.Content, param string, order openai.MediaOrder, o Options) (any, error) {
	switch {
	case c.Null:
		return "", nil
	case c.IsText:
		if err := checkText(c.Text, param, o.Specials); err != nil {
			return nil, err
		}
		return c.Text, nil
	}
	type item struct {
		part  chattemplate.Object
		media bool
	}
	var media, texts []item
	var all []item
	var textParts []string
	var placeholders []string
	for i, part := range c.Parts {
		pp := fmt.Sprintf("%s[%d]", param, i)
		if part.Type == "text" {
			if err := checkText(part.Text, pp+".text", o.Specials); err != nil {
				return nil, err
			}
			it := item{part: chattemplate.Object{{Key: "type", Value: "text"}, {Key: "text", Value: part.Text}}}
			texts, all = append(texts, it), append(all, it)
			textParts = append(textParts, part.Text)
			continue
		}
		m, ok := partModality(part.Type)
		if !ok {
			return nil, badRequest(pp+".type", fmt.Sprintf("unknown content part type %q", part.Type))
		}
		if m == Video && !o.EnableVideo {
			return nil, &Error{Kind: ErrUnsupported, Param: pp, Msg: "video not supported yet"}
		}
		if o.Specials == nil {
			return nil, &Error{Kind: ErrUnsupported, Param: pp, Msg: "the model takes no media"}
		}
		ph, ok := o.Specials.Placeholder(m)
		if !ok {
			return nil, &Error{Kind: ErrUnsupported, Param: pp, Msg: fmt.Sprintf("%s is not supported for this model", m)}
		}
		placeholders = append(placeholders, ph)
		p.Media = append(p.Media, MediaItem{Modality: m, URL: part.URL, Detail: part.Detail, AudioData: part.Data, AudioFormat: part.Format, Param: pp})
		it := item{part: chattemplate.Object{{Key: "type", Value: m.String()}}, media: true}
		media, all = append(media, it), append(all, it)
	}
	if o.StringContent {
		text := strings.Join(textParts, "\n")
		if text != "" {
			placeholders = append(placeholders, text)
		}
		return strings.Join(placeholders, "\n"), nil
	}
	if order == openai.MediaFirst {
		all = append(media, texts...)
	}
	parts := make([]chattemplate.Object, len(all))
	for i, it := range all {
		parts[i] = it.part
	}
	return parts, nil
}

// templateKwargs decodes chat_template_kwargs (an object, as parsed) into
// ordered template values.
func templateKwargs(raw []byte) (chattemplate.Object, error) {
	if raw == nil {
		return nil, nil
	}
	v, err := chattemplate.DecodeJSON(raw)
	obj, ok := v.(chattemplate.Object)
	if err != nil || !ok {
		return nil, badRequest("chat_template_kwargs", "must be an object")
	}
	return obj, nil
}

// checkText refuses text that contains a media special token: the
// tokenizer would read it as a placeholder.
func checkText(s, param string, sp *Specials) error {
	if sp == nil {
		return nil
	}
	for _, t := range sp.Reserved {
		if t.Text != "" && strings.Contains(s, t.Text) {
			return badRequest(param, fmt.Sprintf("contains the media placeholder token %q", t.Text))
		}
	}
	return nil
}

func buildToolCalls(calls []openai.ToolCallParam, param string) ([]any, error) {
	out := make([]any, len(calls))
	for i, c := range calls {
		args, err := toolArguments(c.Arguments, fmt.Sprintf("%s[%d].function.arguments", param, i))
		if err != nil {
			return nil, err
		}
		typ := c.Type
		if typ == "" {
			typ = "function"
		}
		call := chattemplate.Object{}
		if c.ID != "" {
			call = append(call, chattemplate.Field{Key: "id", Value: c.ID})
		}
		call = append(call,
			chattemplate.Field{Key: "type", Value: typ},
			chattemplate.Field{Key: "function", Value: chattemplate.Object{
				{Key: "name", Value: c.Name},
				{Key: "arguments", Value: args},
			}})
		out[i] = call
	}
	return out, nil
}

// toolArguments parses tool-call arguments the way vLLM does before
// rendering: a string holding JSON becomes that JSON value, an empty or
// missing value becomes {}, an object or array is kept.
func toolArguments(raw json.RawMessage, param string) (any, error) {
	if raw == nil {
		return chattemplate.Object{}, nil
	}
	v, err := chattemplate.DecodeJSON(raw)
	if err != nil {
		return nil, badRequest(param, "invalid JSON")
	}
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return chattemplate.Object{}, nil
		}
		inner, err := chattemplate.DecodeJSON([]byte(x))
		if err != nil {
			return nil, badRequest(param, "is not valid JSON")
		}
		return inner, nil
	case chattemplate.Object, []any:
		return x, nil
	}
	return nil, badRequest(param, "must be a JSON string or object")
}
