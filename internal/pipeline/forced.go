package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/respparse"
	"github.com/mmgate/mmgate/openai"
)

// forcedTools is tool_choice "required" or a named function, as vLLM serves
// them: the worker is constrained to a JSON schema and the whole output is
// the call — the named function's arguments, or for "required" an array of
// {"name", "parameters"} objects.
type forcedTools struct {
	name   string // the named function; "" for required
	schema string // the constraint sent to the worker
}

// forcedToolChoice reads tool_choice; nil means the calls (if any) are
// parsed from the model's own tool-call format.
func forcedToolChoice(req *openai.ChatRequest) (*forcedTools, error) {
	choice := toolChoice(req.ToolChoice)
	if choice != "required" && choice != "function" {
		return nil, nil
	}
	var tools []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(req.Tools, &tools); err != nil || len(tools) == 0 {
		return nil, openai.BadRequest("tool_choice", "needs tools")
	}
	params := func(raw json.RawMessage) json.RawMessage {
		if len(raw) == 0 || string(raw) == "null" {
			return json.RawMessage(`{"type":"object"}`)
		}
		return raw
	}
	if choice == "function" {
		var named struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(req.ToolChoice, &named); err != nil || named.Function.Name == "" {
			return nil, openai.BadRequest("tool_choice.function.name", "is required")
		}
		for _, t := range tools {
			if t.Function.Name == named.Function.Name {
				return &forcedTools{name: t.Function.Name, schema: string(params(t.Function.Parameters))}, nil
			}
		}
		return nil, openai.BadRequest("tool_choice.function.name", fmt.Sprintf("no tool named %q", named.Function.Name))
	}
	var alts []string
	for _, t := range tools {
		name, _ := json.Marshal(t.Function.Name)
		alts = append(alts, `{"type":"object","properties":{"name":{"type":"string","enum":[`+string(name)+`]},"parameters":`+string(params(t.Function.Parameters))+`},"required":["name","parameters"]}`)
	}
	return &forcedTools{schema: `{"type":"array","minItems":1,"items":{"anyOf":[` + strings.Join(alts, ",") + `]}}`}, nil
}

// constrain sets the worker's constraint unless the request has its own
// response_format.
func (f *forcedTools) constrain(sp *protocol.Sampling) {
	if f == nil || sp.Constraint.Kind != protocol.NoConstraint {
		return
	}
	sp.Constraint = protocol.Constraint{Kind: protocol.JSONSchema, Value: f.schema}
}

// calls reads the whole output as the forced call(s); ok is false when it
// is not (the output is then returned as it is).
func (f *forcedTools) calls(text string) ([]respparse.ToolCall, bool) {
	text = strings.TrimSpace(text)
	compact := func(raw []byte) (string, bool) {
		var b bytes.Buffer
		if len(raw) == 0 || raw[0] != '{' || json.Compact(&b, raw) != nil {
			return "", false
		}
		return b.String(), true
	}
	if f.name != "" {
		args, ok := compact([]byte(text))
		if !ok {
			return nil, false
		}
		return []respparse.ToolCall{{ID: respparse.NewCallID(), Name: f.name, Arguments: args}}, true
	}
	var list []struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
		Arguments  json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal([]byte(text), &list) != nil || len(list) == 0 {
		return nil, false
	}
	var out []respparse.ToolCall
	for i, c := range list {
		raw := c.Parameters
		if len(raw) == 0 {
			raw = c.Arguments
		}
		args, ok := compact(raw)
		if c.Name == "" || !ok {
			return nil, false
		}
		out = append(out, respparse.ToolCall{Index: i, ID: respparse.NewCallID(), Name: c.Name, Arguments: args})
	}
	return out, true
}
