package openai

import (
	"encoding/json"
	"fmt"
)

// ChatRequest is a chat completions request with the extensions vLLM
// accepts.
type ChatRequest struct {
	Params
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

	// AddGenerationPrompt defaults to true, except that a request with
	// continue_final_message that does not set it gets false.
	AddGenerationPrompt  bool
	ContinueFinalMessage bool
	// MediaOrder is "" (the server default), MediaFirst or Authored.
	MediaOrder MediaOrder

	// ChatTemplateKwargs is the chat_template_kwargs object as sent (nil
	// when absent), so templates see its key order.
	ChatTemplateKwargs json.RawMessage
	MMProcessorKwargs  MMProcessorKwargs
}

// HasTools reports whether the request offers tools.
func (r *ChatRequest) HasTools() bool { return r.Tools != nil }

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

type rawChat struct {
	rawParams
	Messages             json.RawMessage `json:"messages"`
	Tools                json.RawMessage `json:"tools"`
	ToolChoice           json.RawMessage `json:"tool_choice"`
	ParallelTools        *bool           `json:"parallel_tool_calls"`
	Documents            json.RawMessage `json:"documents"`
	Logprobs             *bool           `json:"logprobs"`
	TopLogprobs          *int            `json:"top_logprobs"`
	AddGenerationPrompt  *bool           `json:"add_generation_prompt"`
	ContinueFinalMessage *bool           `json:"continue_final_message"`
	MediaOrder           *string         `json:"media_order"`
	ChatTemplateKwargs   json.RawMessage `json:"chat_template_kwargs"`
	MMProcessorKwargs    *struct {
		MinPixels   *int     `json:"min_pixels"`
		MaxPixels   *int     `json:"max_pixels"`
		FPS         *float64 `json:"fps"`
		NumFrames   *int     `json:"num_frames"`
		TotalPixels *int     `json:"total_pixels"`
	} `json:"mm_processor_kwargs"`
}

// ParseChat parses a chat completions request body. Errors are
// *RequestError values, with Param set where one field is at fault.
// Unknown fields are ignored, as OpenAI-compatible servers do.
//
// Large media strings are lifted out of the JSON without a copy (see
// blobs.go): the media URLs and input_audio data of the returned request
// share body's memory, so body must stay unchanged, and alive, while the
// request or anything holding those strings is in use.
func ParseChat(body []byte) (*ChatRequest, error) { return parseLifting(body, blobMin) }

// parseLifting is ParseChat with media strings of min bytes and more lifted
// out of the JSON decoder's way.
func parseLifting(body []byte, min int) (*ChatRequest, error) {
	small, blobs := liftBlobs(body, min)
	if blobs != nil {
		r, err := parseChat(small)
		if err == nil && restoreBlobs(r.Messages, blobs) {
			return r, nil
		}
		// An error, or a stand-in outside a media part: decode the body as
		// sent, so that results and messages never depend on the lifting.
	}
	return parseChat(body)
}

func parseChat(body []byte) (*ChatRequest, error) {
	var raw rawChat
	if err := decodeBody(body, &raw); err != nil {
		return nil, err
	}
	params, err := raw.params()
	if err != nil {
		return nil, err
	}
	r := &ChatRequest{
		Params:            params,
		ToolChoice:        nonNull(raw.ToolChoice),
		Documents:         nonNull(raw.Documents),
		ParallelToolCalls: raw.ParallelTools == nil || *raw.ParallelTools,
	}
	r.Logprobs = isTrue(raw.Logprobs)
	if err := r.setTopLogprobs(raw.TopLogprobs, "top_logprobs"); err != nil {
		return nil, err
	}
	if err := r.readTemplateFields(&raw); err != nil {
		return nil, err
	}
	if err := r.readProcessorKwargs(&raw); err != nil {
		return nil, err
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

// readTemplateFields reads the fields that steer the chat template.
func (r *ChatRequest) readTemplateFields(raw *rawChat) error {
	r.ContinueFinalMessage = isTrue(raw.ContinueFinalMessage)
	if raw.AddGenerationPrompt != nil {
		r.AddGenerationPrompt = *raw.AddGenerationPrompt
	} else {
		r.AddGenerationPrompt = !r.ContinueFinalMessage
	}
	if r.AddGenerationPrompt && r.ContinueFinalMessage {
		return BadRequest("continue_final_message", "cannot be true together with add_generation_prompt")
	}
	if raw.MediaOrder != nil {
		switch mo := MediaOrder(*raw.MediaOrder); mo {
		case MediaFirst, Authored:
			r.MediaOrder = mo
		default:
			return BadRequest("media_order", fmt.Sprintf("must be %q or %q", MediaFirst, Authored))
		}
	}
	if kw := nonNull(raw.ChatTemplateKwargs); kw != nil {
		if !isObject(kw) {
			return BadRequest("chat_template_kwargs", "must be an object")
		}
		r.ChatTemplateKwargs = kw
	}
	return nil
}

// readProcessorKwargs reads mm_processor_kwargs.
func (r *ChatRequest) readProcessorKwargs(raw *rawChat) error {
	k := raw.MMProcessorKwargs
	if k == nil {
		return nil
	}
	r.MMProcessorKwargs = MMProcessorKwargs{MinPixels: k.MinPixels, MaxPixels: k.MaxPixels, FPS: k.FPS, NumFrames: k.NumFrames, TotalPixels: k.TotalPixels}
	for _, f := range []struct {
		name string
		v    *int
	}{{"min_pixels", k.MinPixels}, {"max_pixels", k.MaxPixels}, {"num_frames", k.NumFrames}, {"total_pixels", k.TotalPixels}} {
		if f.v != nil && *f.v < 0 {
			return BadRequest("mm_processor_kwargs."+f.name, "must not be negative")
		}
	}
	if k.FPS != nil && !(*k.FPS > 0) {
		return BadRequest("mm_processor_kwargs.fps", "must be positive")
	}
	return nil
}

// isObject reports whether a valid JSON value is an object.
func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
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
		return BadRequest("tools", "must be a list of tool objects")
	}
	for i, t := range tools {
		if t.Function == nil || t.Function.Name == "" {
			return BadRequest(fmt.Sprintf("tools[%d].function.name", i), "is required")
		}
		if t.Type != "" && t.Type != "function" {
			return BadRequest(fmt.Sprintf("tools[%d].type", i), "must be \"function\"")
		}
	}
	return nil
}
