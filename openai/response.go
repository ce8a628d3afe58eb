package openai

// The response objects mmgate writes. Field order and names follow the
// OpenAI API; lists are never null.

// Response is the envelope of a completion object, whole or one chunk of a
// stream; C is its choice type.
type Response[C ChatChoice | CompletionChoice] struct {
	ID                string  `json:"id"`
	Object            string  `json:"object"`
	Created           int64   `json:"created"`
	Model             string  `json:"model"`
	Choices           []C     `json:"choices"`
	Usage             *Usage  `json:"usage,omitempty"`
	SystemFingerprint *string `json:"system_fingerprint"`
}

// ChatCompletion is a chat.completion object, or one chat.completion.chunk
// of a stream.
type ChatCompletion = Response[ChatChoice]

// Completion is a text_completion object (POST /v1/completions), whole or
// one chunk of a stream.
type Completion = Response[CompletionChoice]

// ChatChoice is one choice: a whole Message, or a Delta when streaming.
type ChatChoice struct {
	Index        int             `json:"index"`
	Message      *ChatMessage    `json:"message,omitempty"`
	Delta        *ChatMessage    `json:"delta,omitempty"`
	Logprobs     *ChoiceLogprobs `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

// ChatMessage is an assistant message or a piece of one.
type ChatMessage struct {
	Role             string     `json:"role,omitempty"`
	Content          *string    `json:"content,omitempty"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

// ToolCall is a tool call of the output: whole, or when streaming a delta
// (the first carries the id, type and name; later ones pieces of the
// arguments) with the Index of the call it belongs to.
type ToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is a tool call's function name and arguments (JSON text).
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// ChoiceLogprobs are a chat choice's token log probabilities.
type ChoiceLogprobs struct {
	Content []Logprob `json:"content"`
}

// Logprob is one output token's log probability with its alternatives.
type Logprob struct {
	Token       string       `json:"token"`
	Logprob     float64      `json:"logprob"`
	Bytes       []int        `json:"bytes"`
	TopLogprobs []TopLogprob `json:"top_logprobs"`
}

// TopLogprob is an alternative token.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

// Usage are the token counts of a whole request.
type Usage struct {
	PromptTokens        int                  `json:"prompt_tokens"`
	CompletionTokens    int                  `json:"completion_tokens"`
	TotalTokens         int                  `json:"total_tokens"`
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
}

// PromptTokensDetails says how many prompt tokens the worker's cache served.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// NewUsage returns the usage of a request: prompt and completion tokens,
// of which cached prompt tokens came from the worker's cache.
func NewUsage(prompt, completion, cached int) *Usage {
	return &Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion,
		PromptTokensDetails: &PromptTokensDetails{CachedTokens: cached}}
}

// CompletionChoice is one choice of a text completion.
type CompletionChoice struct {
	Index        int                 `json:"index"`
	Text         string              `json:"text"`
	Logprobs     *CompletionLogprobs `json:"logprobs"`
	FinishReason *string             `json:"finish_reason"`
}

// CompletionLogprobs is the completions API's logprobs object: parallel
// lists per token, top_logprobs as token → logprob maps, text_offset the
// character offset of each token in the choice's text.
type CompletionLogprobs struct {
	TextOffset    []int                `json:"text_offset"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	Tokens        []string             `json:"tokens"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
}

// ModelList is GET /v1/models.
type ModelList struct {
	Object string  `json:"object"`
	Data   []Model `json:"data"`
}

// Model is one served model.
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// MaxModelLen is the model's context length, as vLLM lists it (left
	// out when unknown).
	MaxModelLen int `json:"max_model_len,omitempty"`
}

// ErrorResponse is the body of every error answer, and the event that ends
// a stream that failed after it started.
type ErrorResponse struct {
	Error *ErrorObject `json:"error"`
}

// ErrorObject is an error's message, type, code and the request field at
// fault (a string, or nil: null).
type ErrorObject struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
	Param   any    `json:"param"`
}
