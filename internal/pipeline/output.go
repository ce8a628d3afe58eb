package pipeline

import (
	"encoding/json"
	"strings"

	"github.com/mmgate/mmgate/chattemplate"
	"github.com/mmgate/mmgate/family"
	"github.com/mmgate/mmgate/internal/respparse"
	"github.com/mmgate/mmgate/openai"
)

// outputMode says how a request's output text is split into content,
// reasoning and tool calls.
type outputMode struct {
	parse  bool
	format respparse.Format
	opts   respparse.Options
	forced *forcedTools // tool_choice required or named: the output is the call
}

// outputFor decides from the model's family (its output format), the
// request's tools and tool_choice, and the template: tool calls are
// extracted when the request has tools and tool_choice is not "none";
// reasoning when the template knows the family's think tag (and the output
// starts inside it when the prompt opened it).
func outputFor(a *Assets, req *openai.ChatRequest, tmpl *chattemplate.Template, renderedPrompt string) outputMode {
	of := a.Model.Output()
	if of == (family.OutputFormat{}) {
		return outputMode{}
	}
	f := respparse.Format{ToolStart: of.ToolCallStart, ToolEnd: of.ToolCallEnd, ThinkStart: of.ThinkStart, ThinkEnd: of.ThinkEnd}
	var o respparse.Options
	if req.HasTools() && toolChoice(req.ToolChoice) != "none" {
		o.Tools = true
		if !req.ParallelToolCalls {
			o.MaxToolCalls = 1
		}
	}
	if f.ThinkStart != "" && strings.Contains(tmpl.Source(), f.ThinkStart) {
		o.Reasoning = true
		trimmed := strings.TrimRight(renderedPrompt, " \n")
		o.StartInReasoning = strings.HasSuffix(trimmed, f.ThinkStart)
	}
	if !o.Tools && !o.Reasoning {
		return outputMode{}
	}
	return outputMode{parse: true, format: f, opts: o}
}

// toolChoice is "none", "auto", "required" or "function" (a named one).
func toolChoice(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "auto"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return "function"
}
