package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Message is one chat message.
type Message struct {
	Role string
	// Content is the message's content: a string, parts, or absent/null
	// (then Null is true).
	Content          Content
	Name             string
	ToolCallID       string
	ToolCalls        []ToolCallParam
	ReasoningContent *string
}

// Content is a string or a list of parts.
type Content struct {
	Null   bool // absent or null
	IsText bool // a plain string
	Text   string
	Parts  []Part
}

// Part is one content part.
type Part struct {
	Type string // text, image_url, video_url, input_audio, audio_url
	Text string
	// URL is the media URL of image_url / video_url / audio_url parts.
	URL    string
	Detail string // image_url.detail
	// Data and Format are input_audio's base64 data and format.
	Data   string
	Format string
}

// ToolCallParam is one tool call of an assistant message in a request.
type ToolCallParam struct {
	ID   string
	Type string
	Name string
	// Arguments is the JSON value the client sent (usually a string
	// holding a JSON object; an object is accepted too).
	Arguments json.RawMessage
}

// knownRole reports whether a message role is one OpenAI defines.
func knownRole(role string) bool {
	switch role {
	case "system", "developer", "user", "assistant", "tool":
		return true
	}
	return false
}

// messageJSON is one message as sent; content is decoded separately (a
// string or a list of parts).
type messageJSON struct {
	Role             *string         `json:"role"`
	Content          json.RawMessage `json:"content"`
	Name             *string         `json:"name"`
	ToolCallID       *string         `json:"tool_call_id"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
	ReasoningContent *string         `json:"reasoning_content"`
}

// parseMessages decodes the messages in one typed pass; only when that fails
// does it go message by message, to name the field at fault.
func parseMessages(raw json.RawMessage) ([]Message, error) {
	if len(nonNull(raw)) == 0 {
		return nil, BadRequest("messages", "must be a list of messages")
	}
	var typed []messageJSON
	if err := json.Unmarshal(raw, &typed); err == nil {
		return buildMessages(typed)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, BadRequest("messages", "must be a list of messages")
	}
	typed = make([]messageJSON, len(list))
	for i, m := range list {
		if err := json.Unmarshal(m, &typed[i]); err != nil {
			param := fmt.Sprintf("messages[%d]", i)
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return nil, BadRequest(param+"."+te.Field, "expected "+te.Type.String())
			}
			return nil, BadRequest(param, "must be a message object")
		}
	}
	return buildMessages(typed)
}

func buildMessages(typed []messageJSON) ([]Message, error) {
	if len(typed) == 0 {
		return nil, BadRequest("messages", "must not be empty")
	}
	msgs := make([]Message, len(typed))
	for i, m := range typed {
		var err error
		if msgs[i], err = buildMessage(m, fmt.Sprintf("messages[%d]", i)); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

func buildMessage(m messageJSON, param string) (Message, error) {
	if m.Role == nil || !knownRole(*m.Role) {
		return Message{}, BadRequest(param+".role", "must be one of system, developer, user, assistant, tool")
	}
	msg := Message{Role: *m.Role, ReasoningContent: m.ReasoningContent}
	if m.Name != nil {
		msg.Name = *m.Name
	}
	if m.ToolCallID != nil {
		msg.ToolCallID = *m.ToolCallID
	}
	var err error
	if msg.Content, err = parseContent(m.Content, param+".content"); err != nil {
		return Message{}, err
	}
	if tc := nonNull(m.ToolCalls); tc != nil {
		if msg.Role != "assistant" {
			return Message{}, BadRequest(param+".tool_calls", "only assistant messages have tool calls")
		}
		if msg.ToolCalls, err = parseToolCalls(tc, param+".tool_calls"); err != nil {
			return Message{}, err
		}
	}
	if msg.Content.Null && msg.Role != "assistant" {
		return Message{}, BadRequest(param+".content", "is required")
	}
	return msg, nil
}

func parseToolCalls(raw json.RawMessage, param string) ([]ToolCallParam, error) {
	var list []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function *struct {
			Name      *string         `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, BadRequest(param, "must be a list of tool calls")
	}
	calls := make([]ToolCallParam, len(list))
	for i, c := range list {
		p := fmt.Sprintf("%s[%d].function", param, i)
		if c.Function == nil || c.Function.Name == nil {
			return nil, BadRequest(p+".name", "is required")
		}
		calls[i] = ToolCallParam{ID: c.ID, Type: c.Type, Name: *c.Function.Name, Arguments: nonNull(c.Function.Arguments)}
	}
	return calls, nil
}

// partJSON is one content part as sent. Media URLs in their object form
// decode in the same pass; the bare-string form (accepted too) makes the
// typed pass fail and the part is read again on its own.
type partJSON struct {
	Type       string   `json:"type"`
	Text       *string  `json:"text"`
	ImageURL   *urlJSON `json:"image_url"`
	VideoURL   *urlJSON `json:"video_url"`
	AudioURL   *urlJSON `json:"audio_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
}

type urlJSON struct {
	URL    *string `json:"url"`
	Detail string  `json:"detail"`
}

func parseContent(raw json.RawMessage, param string) (Content, error) {
	raw = nonNull(raw)
	if raw == nil {
		return Content{Null: true}, nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return Content{IsText: true, Text: s}, nil
		}
	}
	var typed []partJSON
	if err := json.Unmarshal(raw, &typed); err == nil {
		parts := make([]Part, len(typed))
		for i, p := range typed {
			var err error
			if parts[i], err = buildPart(p, nil, fmt.Sprintf("%s[%d]", param, i)); err != nil {
				return Content{}, err
			}
		}
		return Content{Parts: parts}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return Content{}, BadRequest(param, "must be a string or a list of content parts")
	}
	parts := make([]Part, len(list))
	for i, p := range list {
		var err error
		if parts[i], err = parsePart(p, fmt.Sprintf("%s[%d]", param, i)); err != nil {
			return Content{}, err
		}
	}
	return Content{Parts: parts}, nil
}

// parsePart reads one part on its own, media URLs as objects or strings.
func parsePart(raw json.RawMessage, param string) (Part, error) {
	var p struct {
		partJSON
		ImageURL json.RawMessage `json:"image_url"`
		VideoURL json.RawMessage `json:"video_url"`
		AudioURL json.RawMessage `json:"audio_url"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return Part{}, BadRequest(param, "must be a content part object")
	}
	urls := map[string]json.RawMessage{"image_url": p.ImageURL, "video_url": p.VideoURL, "audio_url": p.AudioURL}
	return buildPart(p.partJSON, urls, param)
}

// buildPart checks a part. urls, when not nil, holds the media URL fields as
// raw JSON (string or object); otherwise the typed object fields are used.
func buildPart(p partJSON, urls map[string]json.RawMessage, param string) (Part, error) {
	out := Part{Type: p.Type}
	media := func(name string, typed *urlJSON) (url, detail string, err error) {
		if urls != nil {
			return parseURL(urls[name], param+"."+name)
		}
		if typed == nil {
			return "", "", BadRequest(param+"."+name, "is required")
		}
		if typed.URL == nil {
			return "", "", BadRequest(param+"."+name+".url", "is required")
		}
		if strings.TrimSpace(*typed.URL) == "" {
			return "", "", BadRequest(param+"."+name+".url", "must not be empty")
		}
		return *typed.URL, typed.Detail, nil
	}
	var err error
	switch p.Type {
	case "text":
		if p.Text == nil {
			return Part{}, BadRequest(param+".text", "is required")
		}
		out.Text = *p.Text
	case "image_url":
		out.URL, out.Detail, err = media("image_url", p.ImageURL)
	case "video_url":
		out.URL, _, err = media("video_url", p.VideoURL)
	case "audio_url":
		out.URL, _, err = media("audio_url", p.AudioURL)
	case "input_audio":
		if p.InputAudio == nil || p.InputAudio.Data == "" {
			return Part{}, BadRequest(param+".input_audio.data", "is required")
		}
		out.Data, out.Format = p.InputAudio.Data, p.InputAudio.Format
	case "":
		return Part{}, BadRequest(param+".type", "is required")
	default:
		return Part{}, BadRequest(param+".type", fmt.Sprintf("unknown content part type %q", p.Type))
	}
	return out, err
}

// parseURL reads {"url": …, "detail": …} or a bare URL string.
func parseURL(raw json.RawMessage, param string) (url, detail string, err error) {
	raw = nonNull(raw)
	if raw == nil {
		return "", "", BadRequest(param, "is required")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		url = s
	} else {
		var o struct {
			URL    *string `json:"url"`
			Detail string  `json:"detail"`
		}
		if err := json.Unmarshal(raw, &o); err != nil || o.URL == nil {
			return "", "", BadRequest(param+".url", "is required")
		}
		url, detail = *o.URL, o.Detail
	}
	if strings.TrimSpace(url) == "" {
		return "", "", BadRequest(param+".url", "must not be empty")
	}
	return url, detail, nil
}
