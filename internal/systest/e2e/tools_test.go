package e2e

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

const weatherCall = "Let me look that up.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}\n</tool_call>"

func weatherTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "get_weather",
		Description: openai.String("Current weather in a city"),
		Parameters: shared.FunctionParameters{
			"type":       "object",
			"properties": map[string]any{"city": map[string]any{"type": "string"}, "unit": map[string]any{"type": "string"}},
			"required":   []string{"city"},
		},
	})
}

// weatherParams is a chat request offering the weather tool.
func weatherParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "qwen3-vl",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")},
		Tools:    []openai.ChatCompletionToolUnionParam{weatherTool()},
	}
}

// TestToolCalls: the worker answers with a Qwen tool-call block; the client
// receives tool_calls it can use, whole and streamed.
func TestToolCalls(t *testing.T) {
	shm := shmDir(t)
	w, _ := startWorker(t, shm, "--reply-tool-call", weatherCall)
	url, _ := startGateway(t, shm, "--worker", w)
	c := client(url)
	ctx := ctxT(t)
	params := weatherParams()
	check := func(how string, msg openai.ChatCompletionMessage, finish string) {
		t.Helper()
		if finish != "tool_calls" || len(msg.ToolCalls) != 1 {
			t.Fatalf("%s: finish %q, %d calls, content %q", how, finish, len(msg.ToolCalls), msg.Content)
		}
		call := msg.ToolCalls[0]
		var args struct{ City, Unit string }
		if call.Function.Name != "get_weather" || json.Unmarshal([]byte(call.Function.Arguments), &args) != nil || args.City != "Paris" || call.ID == "" {
			t.Errorf("%s: call %+v", how, call)
		}
		if msg.Content != "Let me look that up.\n" {
			t.Errorf("%s: content %q", how, msg.Content)
		}
	}
	resp, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	check("whole", resp.Choices[0].Message, resp.Choices[0].FinishReason)

	stream := c.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	check("streamed", acc.Choices[0].Message, acc.Choices[0].FinishReason)

	// Without tools in the request the same text is plain content.
	resp, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != weatherCall || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("without tools: %q %q", resp.Choices[0].Message.Content, resp.Choices[0].FinishReason)
	}
}

// TestForcedToolChoice: with tool_choice naming a function, the whole output
// is that function's arguments (the worker is sent a JSON-schema constraint).
func TestForcedToolChoice(t *testing.T) {
	shm := shmDir(t)
	w, _ := startWorker(t, shm, "--reply-tool-call", `{"city": "Paris", "unit": "celsius"}`)
	url, _ := startGateway(t, shm, "--worker", w)
	c := client(url)
	ctx := ctxT(t)
	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:      "qwen3-vl",
		Messages:   []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")},
		Tools:      []openai.ChatCompletionToolUnionParam{weatherTool()},
		ToolChoice: openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "get_weather"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "get_weather" || msg.ToolCalls[0].Function.Arguments != `{"city":"Paris","unit":"celsius"}` {
		t.Errorf("tool calls %+v, content %q", msg.ToolCalls, msg.Content)
	}
}
