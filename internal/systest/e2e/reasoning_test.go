package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// thinkingModel is the demo model folder with the Qwen3 text chat template
// (from its tokenizer_config.json), which knows <think> and enable_thinking.
func thinkingModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"config.json", "tokenizer.json", "tokenizer_config.json", "preprocessor_config.json"} {
		b, err := os.ReadFile(filepath.Join(modelDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cfg struct {
		ChatTemplate string `json:"chat_template"`
	}
	b, _ := os.ReadFile(filepath.Join(modelDir, "tokenizer_config.json"))
	if err := json.Unmarshal(b, &cfg); err != nil || !strings.Contains(cfg.ChatTemplate, "<think>") {
		t.Fatalf("tokenizer_config.json has no thinking template: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte(cfg.ChatTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReasoning: the model's <think> text comes back as reasoning_content,
// whole and streamed, and the answer as content.
func TestReasoning(t *testing.T) {
	shm := shmDir(t)
	model := thinkingModel(t)
	sock := filepath.Join(t.TempDir(), "w.sock")
	start(t, "worker", "--model", model, "--served-model-name", "qwen3-vl", "--listen", "unix://"+sock, "--shm-dir", shm,
		"--reply-tool-call", "<think>\nThe user greets me.\n</think>\n\nHello!")
	waitFor(t, func() bool { _, err := os.Stat(sock); return err == nil }, "worker socket")
	url, _ := startGateway(t, shm, "--worker", "unix://"+sock, "--model", model)

	post := func(stream bool) string {
		body := `{"model": "qwen3-vl", "stream": ` + map[bool]string{true: "true", false: "false"}[stream] +
			`, "chat_template_kwargs": {"enable_thinking": true}, "messages": [{"role": "user", "content": "Hi"}]}`
		r, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		if r.StatusCode != 200 {
			t.Fatalf("status %d: %s", r.StatusCode, b.String())
		}
		return b.String()
	}
	var whole struct {
		Choices []struct {
			Message struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(post(false)), &whole); err != nil || len(whole.Choices) != 1 {
		t.Fatalf("whole: %v", err)
	}
	if m := whole.Choices[0].Message; m.Content != "Hello!" || m.ReasoningContent != "\nThe user greets me.\n" {
		t.Errorf("whole: content %q, reasoning %q", m.Content, m.ReasoningContent)
	}
	var content, reasoning strings.Builder
	for _, line := range strings.Split(post(true), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, ch := range c.Choices {
			content.WriteString(ch.Delta.Content)
			reasoning.WriteString(ch.Delta.ReasoningContent)
		}
	}
	if content.String() != "Hello!" || reasoning.String() != "\nThe user greets me.\n" {
		t.Errorf("streamed: content %q, reasoning %q", content.String(), reasoning.String())
	}
}
