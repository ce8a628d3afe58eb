package prompt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mmgate/mmgate/chattemplate"
)

// Request is an OpenAI chat completions request with the extensions vLLM
// accepts. Optional numbers are pointers (nil: not given).
type Request struct {
	Model    string
	Messages []Message

	// Tools is the request's tools array exactly as sent (nil when absent
	// or null), so templates see its key order.
	Tools      json.RawMessage
	ToolChoice json.RawMessage
	// ParallelToolCalls is false when the request set
	// parallel_tool_calls: false (at most one tool call is returned).
	ParallelToolCalls bool
	// Documents is the request's documents array as sent (RAG templates);
	// nil when absent.
	Documents json.RawMessage

	Stream         bool
	IncludeUsage   bool // stream_options.include_usage
	MaxTokens      *int // max_completion_tokens, else max_tokens
	N              *int
	Temperature    *float64
	TopP           *float64
	TopK           *int
	MinP           *float64
	Seed           *int64
	Stop           []string
	StopTokenIDs   []uint32
	Presence       *float64 // presence_penalty
	Frequency      *float64 // frequency_penalty
	Repetition     *float64 // repetition_penalty
	LogitBias      map[string]float64
	Logprobs       bool
	TopLogprobs    *int
	IgnoreEOS      bool
	SkipSpecial    bool // skip_special_tokens, default true
	MinTokens      *int
	User           string
	ResponseFormat json.RawMessage

	// AddGenerationPrompt defaults to true, except that a request with
	// continue_final_message that does not set it gets false.
	AddGenerationPrompt  bool
	ContinueFinalMessage bool
	// MediaOrder is "" (the server default), MediaFirst or Authored.
	MediaOrder MediaOrder

	ChatTemplateKwargs chattemplate.Object
	MMProcessorKwargs  MMProcessorKwargs
}

// MMProcessorKwargs are the per-request processor overrides.
type MMProcessorKwargs struct {
	MinPixels   *int
	MaxPixels   *int
	FPS         *float64
	NumFrames   *int
	TotalPixels *int
}

// MediaOrder says where media parts go inside a message.
type MediaOrder string

const (
	// MediaFirst moves every media part of a message before its text
	// parts, keeping their relative order (the default).
	MediaFirst MediaOrder = "media_first"
	// Authored keeps the parts in the order the client wrote them.
	Authored MediaOrder = "authored"
)

// Message is one chat message.
type Message struct {
	Role string
	// Content is the message's content: a string, parts, or absent/null
	// (then Null is true).
	Content          Content
	Name             string
	ToolCallID       string
	ToolCalls        []ToolCall
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

// ToolCall is one assistant tool call.
type ToolCall struct {
	ID   string
	Type string
	Name string
	// Arguments is the JSON value the client sent (usually a string
	// holding a JSON object; an object is accepted too).
	Arguments json.RawMessage
}

// maxRequestDepth bounds JSON nesting in the parts Parse decodes itself.
const maxRequestDepth = 128

// MaxTopLogprobs is the largest top_logprobs accepted, as OpenAI and vLLM
// (max_logprobs) accept.
const MaxTopLogprobs = 20

type rawRequest struct {
	Model         string          `json:"model"`
	Messages      json.RawMessage `json:"messages"`
	Tools         json.RawMessage `json:"tools"`
	ToolChoice    json.RawMessage `json:"tool_choice"`
	ParallelTools *bool           `json:"parallel_tool_calls"`
	Documents     json.RawMessage `json:"documents"`
	Stream        *bool           `json:"stream"`
	StreamOptions *struct {
		IncludeUsage *bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens            *int               `json:"max_tokens"`
	MaxCompletionTokens  *int               `json:"max_completion_tokens"`
	N                    *int               `json:"n"`
	Temperature          *float64           `json:"temperature"`
	TopP                 *float64           `json:"top_p"`
	TopK                 *int               `json:"top_k"`
	MinP                 *float64           `json:"min_p"`
	Seed                 *int64             `json:"seed"`
	Stop                 json.RawMessage    `json:"stop"`
	StopTokenIDs         []uint32           `json:"stop_token_ids"`
	PresencePenalty      *float64           `json:"presence_penalty"`
	FrequencyPenalty     *float64           `json:"frequency_penalty"`
	RepetitionPenalty    *float64           `json:"repetition_penalty"`
	LogitBias            map[string]float64 `json:"logit_bias"`
	Logprobs             *bool              `json:"logprobs"`
	TopLogprobs          *int               `json:"top_logprobs"`
	IgnoreEOS            *bool              `json:"ignore_eos"`
	SkipSpecialTokens    *bool              `json:"skip_special_tokens"`
	MinTokens            *int               `json:"min_tokens"`
	User                 string             `json:"user"`
	ResponseFormat       json.RawMessage    `json:"response_format"`
	AddGenerationPrompt  *bool              `json:"add_generation_prompt"`
	ContinueFinalMessage *bool              `json:"continue_final_message"`
	MediaOrder           *string            `json:"media_order"`
	ChatTemplateKwargs   json.RawMessage    `json:"chat_template_kwargs"`
	MMProcessorKwargs    *struct {
		MinPixels   *int     `json:"min_pixels"`
		MaxPixels   *int     `json:"max_pixels"`
		FPS         *float64 `json:"fps"`
		NumFrames   *int     `json:"num_frames"`
		TotalPixels *int     `json:"total_pixels"`
	} `json:"mm_processor_kwargs"`
}

// Parse parses a chat completions request body. Errors are *Error values
// wrapping ErrBadRequest, with Param set where one field is at fault.
// Unknown fields are ignored, as OpenAI-compatible servers do. Large media
// URLs in the Request share body's memory: body must not be modified while
// the Request is in use.
func Parse(body []byte) (*Request, error) { return parseLifting(body, blobMin) }

// parseLifting is Parse with media strings of min bytes and more lifted out
// of the JSON decoder's way (see blobs.go).
func parseLifting(body []byte, min int) (*Request, error) {
	small, blobs := liftBlobs(body, min)
	if blobs != nil {
		r, err := parse(small)
		if err == nil && restoreBlobs(r.Messages, blobs) {
			return r, nil
		}
		// An error, or a stand-in outside a media part: decode the body as
		// sent, so that results and messages never depend on the lifting.
	}
	return parse(body)
}

func parse(body []byte) (*Request, error) {
	if err := checkDepth(body); err != nil {
		return nil, err
	}
	var raw rawRequest
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, jsonError(err)
	}
	r := &Request{
		Model:          raw.Model,
		ToolChoice:     nonNull(raw.ToolChoice),
		Documents:      nonNull(raw.Documents),
		N:              raw.N,
		Temperature:    raw.Temperature,
		TopP:           raw.TopP,
		TopK:           raw.TopK,
		MinP:           raw.MinP,
		Seed:           raw.Seed,
		StopTokenIDs:   raw.StopTokenIDs,
		Presence:       raw.PresencePenalty,
		Frequency:      raw.FrequencyPenalty,
		Repetition:     raw.RepetitionPenalty,
		LogitBias:      raw.LogitBias,
		TopLogprobs:    raw.TopLogprobs,
		MinTokens:      raw.MinTokens,
		User:           raw.User,
		ResponseFormat: nonNull(raw.ResponseFormat),
		SkipSpecial:    raw.SkipSpecialTokens == nil || *raw.SkipSpecialTokens,
	}
	r.Stream = raw.Stream != nil && *raw.Stream
	r.ParallelToolCalls = raw.ParallelTools == nil || *raw.ParallelTools
	r.IncludeUsage = raw.StreamOptions != nil && raw.StreamOptions.IncludeUsage != nil && *raw.StreamOptions.IncludeUsage
	r.Logprobs = raw.Logprobs != nil && *raw.Logprobs
	r.IgnoreEOS = raw.IgnoreEOS != nil && *raw.IgnoreEOS
	r.MaxTokens = raw.MaxTokens
	if raw.MaxCompletionTokens != nil {
		r.MaxTokens = raw.MaxCompletionTokens
	}
	if r.MaxTokens != nil && *r.MaxTokens < 0 {
		return nil, badRequest("max_tokens", "must not be negative")
	}
	if r.N != nil && *r.N < 1 {
		return nil, badRequest("n", "must be at least 1")
	}
	if r.TopLogprobs != nil && (*r.TopLogprobs < 0 || *r.TopLogprobs > MaxTopLogprobs) {
		return nil, badRequest("top_logprobs", fmt.Sprintf("must be between 0 and %d", MaxTopLogprobs))
	}
	r.ContinueFinalMessage = raw.ContinueFinalMessage != nil && *raw.ContinueFinalMessage
	switch {
	case raw.AddGenerationPrompt != nil:
		r.AddGenerationPrompt = *raw.AddGenerationPrompt
	default:
		r.AddGenerationPrompt = !r.ContinueFinalMessage
	}
	if r.AddGenerationPrompt && r.ContinueFinalMessage {
		return nil, badRequest("continue_final_message", "cannot be true together with add_generation_prompt")
	}
	if raw.MediaOrder != nil {
		switch mo := MediaOrder(*raw.MediaOrder); mo {
		case MediaFirst, Authored:
			r.MediaOrder = mo
		default:
			return nil, badRequest("media_order", fmt.Sprintf("must be %q or %q", MediaFirst, Authored))
		}
	}
	if k := raw.MMProcessorKwargs; k != nil {
		r.MMProcessorKwargs = MMProcessorKwargs{MinPixels: k.MinPixels, MaxPixels: k.MaxPixels, FPS: k.FPS, NumFrames: k.NumFrames, TotalPixels: k.TotalPixels}
		for name, v := range map[string]*int{"min_pixels": k.MinPixels, "max_pixels": k.MaxPixels, "num_frames": k.NumFrames, "total_pixels": k.TotalPixels} {
			if v != nil && *v < 0 {
				return nil, badRequest("mm_processor_kwargs."+name, "must not be negative")
			}
		}
		if k.FPS != nil && !(*k.FPS > 0) {
			return nil, badRequest("mm_processor_kwargs.fps", "must be positive")
		}
	}
	var err error
	if r.Stop, err = parseStop(raw.Stop); err != nil {
		return nil, err
	}
	if raw := nonNull(raw.ChatTemplateKwargs); raw != nil {
		v, err := chattemplate.DecodeJSON(raw)
		obj, ok := v.(chattemplate.Object)
		if err != nil || !ok {
			return nil, badRequest("chat_template_kwargs", "must be an object")
		}
		r.ChatTemplateKwargs = obj
	}
	if tools := nonNull(raw.Tools); tools != nil {
		if err := checkTools(tools); err != nil {
			return nil, err
		}
		r.Tools = tools
	}
	if r.Messages, err = parseMessages(raw.Messages); err != nil {
		return nil, err
	}
	return r, nil
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

// jsonError turns an encoding/json error into a request error.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return badRequest(te.Field, fmt.Sprintf("expected %s, got JSON %s", te.Type, te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return badRequest("", fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se))
	}
	return badRequest("", "invalid JSON: "+err.Error())
}

// checkDepth refuses bodies nested deeper than maxRequestDepth (beyond
// what encoding/json itself allows), so ordered decoding stays bounded.
func checkDepth(body []byte) error {
	depth := 0
	inString := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxRequestDepth {
				return badRequest("", fmt.Sprintf("JSON nested deeper than %d", maxRequestDepth))
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

func parseStop(raw json.RawMessage) ([]string, error) {
	raw = nonNull(raw)
	if raw == nil {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badRequest("stop", "must be a string or a list of strings")
	}
	return list, nil
}

// checkTools requires an array of objects, each with a function name.
func checkTools(raw json.RawMessage) error {
	var tools []struct {
		Type     string `json:"type"`
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		return badRequest("tools", "must be a list of tool objects")
	}
	for i, t := range tools {
		if t.Function == nil || t.Function.Name == "" {
			return badRequest(fmt.Sprintf("tools[%d].function.name", i), "is required")
		}
		if t.Type != "" && t.Type != "function" {
			return badRequest(fmt.Sprintf("tools[%d].type", i), "must be \"function\"")
		}
	}
	return nil
}

var roles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true}

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
		return nil, badRequest("messages", "must be a list of messages")
	}
	var typed []messageJSON
	if err := json.Unmarshal(raw, &typed); err == nil {
		return buildMessages(typed)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badRequest("messages", "must be a list of messages")
	}
	typed = make([]messageJSON, len(list))
	for i, m := range list {
		if err := json.Unmarshal(m, &typed[i]); err != nil {
			param := fmt.Sprintf("messages[%d]", i)
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return nil, badRequest(param+"."+te.Field, "expected "+te.Type.String())
			}
			return nil, badRequest(param, "must be a message object")
		}
	}
	return buildMessages(typed)
}

func buildMessages(typed []messageJSON) ([]Message, error) {
	if len(typed) == 0 {
		return nil, badRequest("messages", "must not be empty")
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
	if m.Role == nil || !roles[*m.Role] {
		return Message{}, badRequest(param+".role", "must be one of system, developer, user, assistant, tool")
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
			return Message{}, badRequest(param+".tool_calls", "only assistant messages have tool calls")
		}
		if msg.ToolCalls, err = parseToolCalls(tc, param+".tool_calls"); err != nil {
			return Message{}, err
		}
	}
	if msg.Content.Null && msg.Role != "assistant" {
		return Message{}, badRequest(param+".content", "is required")
	}
	return msg, nil
}

func parseToolCalls(raw json.RawMessage, param string) ([]ToolCall, error) {
	var list []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function *struct {
			Name      *string         `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badRequest(param, "must be a list of tool calls")
	}
	calls := make([]ToolCall, len(list))
	for i, c := range list {
		p := fmt.Sprintf("%s[%d].function", param, i)
		if c.Function == nil || c.Function.Name == nil {
			return nil, badRequest(p+".name", "is required")
		}
		calls[i] = ToolCall{ID: c.ID, Type: c.Type, Name: *c.Function.Name, Arguments: nonNull(c.Function.Arguments)}
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
		return Content{}, badRequest(param, "must be a string or a list of content parts")
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
		return Part{}, badRequest(param, "must be a content part object")
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
			return "", "", badRequest(param+"."+name, "is required")
		}
		if typed.URL == nil {
			return "", "", badRequest(param+"."+name+".url", "is required")
		}
		if strings.TrimSpace(*typed.URL) == "" {
			return "", "", badRequest(param+"."+name+".url", "must not be empty")
		}
		return *typed.URL, typed.Detail, nil
	}
	var err error
	switch p.Type {
	case "text":
		if p.Text == nil {
			return Part{}, badRequest(param+".text", "is required")
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
			return Part{}, badRequest(param+".input_audio.data", "is required")
		}
		out.Data, out.Format = p.InputAudio.Data, p.InputAudio.Format
	case "":
		return Part{}, badRequest(param+".type", "is required")
	default:
		return Part{}, badRequest(param+".type", fmt.Sprintf("unknown content part type %q", p.Type))
	}
	return out, err
}

// parseURL reads {"url": …, "detail": …} or a bare URL string.
func parseURL(raw json.RawMessage, param string) (url, detail string, err error) {
	raw = nonNull(raw)
	if raw == nil {
		return "", "", badRequest(param, "is required")
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
			return "", "", badRequest(param+".url", "is required")
		}
		url, detail = *o.URL, o.Detail
	}
	if strings.TrimSpace(url) == "" {
		return "", "", badRequest(param+".url", "must not be empty")
	}
	return url, detail, nil
}
