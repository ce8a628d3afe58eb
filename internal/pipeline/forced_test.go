package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/openai"
)

const weatherTools = `[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
	{"type": "function", "function": {"name": "get_time"}}]`

func TestForcedToolChoice(t *testing.T) {
	req := func(choice string) *openai.ChatRequest {
		r := &openai.ChatRequest{Tools: json.RawMessage(weatherTools)}
		if choice != "" {
			r.ToolChoice = json.RawMessage(choice)
		}
		return r
	}
	for _, c := range []string{"", `"auto"`, `"none"`} {
		if f, err := forcedToolChoice(req(c)); f != nil || err != nil {
			t.Errorf("%s: forced %v %v", c, f, err)
		}
	}
	f, err := forcedToolChoice(req(`{"type": "function", "function": {"name": "get_weather"}}`))
	if err != nil || f.name != "get_weather" || !json.Valid([]byte(f.schema)) {
		t.Fatalf("named: %+v %v", f, err)
	}
	sp := &protocol.Sampling{}
	f.constrain(sp)
	if sp.Constraint.Kind != protocol.JSONSchema || sp.Constraint.Value != f.schema {
		t.Errorf("constraint %+v", sp.Constraint)
	}
	calls, ok := f.calls(" {\"city\": \"Paris\"}\n")
	if !ok || len(calls) != 1 || calls[0].Name != "get_weather" || calls[0].Arguments != `{"city":"Paris"}` {
		t.Errorf("named calls %+v %v", calls, ok)
	}
	if _, ok := f.calls("Paris, probably"); ok {
		t.Error("plain text read as a call")
	}
	if _, err := forcedToolChoice(req(`{"type": "function", "function": {"name": "nope"}}`)); err == nil {
		t.Error("unknown function accepted")
	}
	r, err := forcedToolChoice(req(`"required"`))
	if err != nil || r.name != "" || !json.Valid([]byte(r.schema)) {
		t.Fatalf("required: %+v %v", r, err)
	}
	calls, ok = r.calls(`[{"name": "get_weather", "parameters": {"city": "Oslo"}}, {"name": "get_time", "parameters": {}}]`)
	if !ok || len(calls) != 2 || calls[1].Name != "get_time" || calls[1].Index != 1 || calls[0].Arguments != `{"city":"Oslo"}` {
		t.Errorf("required calls %+v %v", calls, ok)
	}
	if _, err := forcedToolChoice(&openai.ChatRequest{ToolChoice: json.RawMessage(`"required"`)}); err == nil {
		t.Error("required without tools accepted")
	}
}
