package openai

import (
	"encoding/json"
	"fmt"
)

// This file answers: what do vLLM's /tokenize and /detokenize take and
// answer? (vLLM's entrypoints/serve/tokenize/protocol.py.)

// TokenizeRequest is POST /tokenize: a text prompt, or chat messages
// rendered as a chat request is (media placeholders expanded).
type TokenizeRequest struct {
	Model string
	// Chat is the request when it carries messages (then Prompt is "");
	// its generation-prompt and template fields are read as for chat.
	Chat *ChatRequest
	// Prompt is the text to tokenize when Chat is nil.
	Prompt string
	// AddSpecialTokens is add_special_tokens: true by default for a
	// prompt, false for messages (the chat template writes its own).
	AddSpecialTokens bool
	// ReturnTokenStrs is return_token_strs: also answer each token's text.
	ReturnTokenStrs bool
}

// TokenizeResponse is /tokenize's answer.
type TokenizeResponse struct {
	Count       int      `json:"count"`
	MaxModelLen int      `json:"max_model_len"`
	Tokens      []uint32 `json:"tokens"`
	// TokenStrs are the tokens' texts with return_token_strs; nil (null)
	// otherwise.
	TokenStrs []string `json:"token_strs"`
}

// DetokenizeRequest is POST /detokenize.
type DetokenizeRequest struct {
	Model  string
	Tokens []uint32
}

// DetokenizeResponse is /detokenize's answer: the tokens' text, special
// tokens included and no space clean-up.
type DetokenizeResponse struct {
	Prompt string `json:"prompt"`
}

// ParseTokenize parses a /tokenize body: {model, prompt} or {model,
// messages, …chat options}. A body with messages is parsed as ParseChat
// parses a chat request, with the same memory rule (media strings share
// body).
func ParseTokenize(body []byte) (*TokenizeRequest, error) {
	var raw struct {
		Model            string          `json:"model"`
		Prompt           json.RawMessage `json:"prompt"`
		AddSpecialTokens *bool           `json:"add_special_tokens"`
		ReturnTokenStrs  *bool           `json:"return_token_strs"`
	}
	if err := decodeBody(body, &raw); err != nil {
		return nil, err
	}
	r := &TokenizeRequest{Model: raw.Model, ReturnTokenStrs: isTrue(raw.ReturnTokenStrs)}
	if p := nonNull(raw.Prompt); p != nil {
		if err := json.Unmarshal(p, &r.Prompt); err != nil {
			return nil, BadRequest("prompt", "must be a string")
		}
		r.AddSpecialTokens = raw.AddSpecialTokens == nil || *raw.AddSpecialTokens
		return r, nil
	}
	chat, err := ParseChat(body)
	if err != nil {
		if re, ok := err.(*RequestError); ok && re.Param == "messages" {
			return nil, BadRequest("messages", re.Msg+", or give a prompt (a string)")
		}
		return nil, err
	}
	r.Chat, r.AddSpecialTokens = chat, isTrue(raw.AddSpecialTokens)
	return r, nil
}

// ParseDetokenize parses a /detokenize body: {model, tokens}.
func ParseDetokenize(body []byte) (*DetokenizeRequest, error) {
	var raw struct {
		Model  string          `json:"model"`
		Tokens json.RawMessage `json:"tokens"`
	}
	if err := decodeBody(body, &raw); err != nil {
		return nil, err
	}
	r := &DetokenizeRequest{Model: raw.Model}
	if nonNull(raw.Tokens) == nil {
		return nil, BadRequest("tokens", "is required")
	}
	if err := json.Unmarshal(raw.Tokens, &r.Tokens); err != nil {
		return nil, BadRequest("tokens", fmt.Sprintf("must be a list of token ids (0 to %d)", uint32(1<<32-1)))
	}
	return r, nil
}
