package server

// The OpenAI response shapes mmgate writes. Field order and names follow the
// OpenAI API; lists are never null.

type chatCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	Usage             *usageJSON   `json:"usage,omitempty"`
	SystemFingerprint *string      `json:"system_fingerprint"`
}

type chatChoice struct {
	Index        int           `json:"index"`
	Message      *chatMessage  `json:"message,omitempty"`
	Delta        *chatMessage  `json:"delta,omitempty"`
	Logprobs     *logprobsJSON `json:"logprobs"`
	FinishReason *string       `json:"finish_reason"`
}

type chatMessage struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCallJSON `json:"tool_calls,omitempty"`
}

type toolCallJSON struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function functionJSON `json:"function"`
}

type functionJSON struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type logprobsJSON struct {
	Content []logprobJSON `json:"content"`
}

type logprobJSON struct {
	Token       string           `json:"token"`
	Logprob     float64          `json:"logprob"`
	Bytes       []int            `json:"bytes"`
	TopLogprobs []topLogprobJSON `json:"top_logprobs"`
}

type topLogprobJSON struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

type usageJSON struct {
	PromptTokens        int                 `json:"prompt_tokens"`
	CompletionTokens    int                 `json:"completion_tokens"`
	TotalTokens         int                 `json:"total_tokens"`
	PromptTokensDetails *promptTokensDetail `json:"prompt_tokens_details,omitempty"`
}

type promptTokensDetail struct {
	CachedTokens int `json:"cached_tokens"`
}

type modelList struct {
	Object string      `json:"object"`
	Data   []modelJSON `json:"data"`
}

type modelJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func toUsage(u *Usage) *usageJSON {
	if u == nil {
		return nil
	}
	return &usageJSON{
		PromptTokens:        u.PromptTokens,
		CompletionTokens:    u.CompletionTokens,
		TotalTokens:         u.PromptTokens + u.CompletionTokens,
		PromptTokensDetails: &promptTokensDetail{CachedTokens: u.CachedTokens},
	}
}

func toLogprobs(lp []Logprob) []logprobJSON {
	out := make([]logprobJSON, 0, len(lp))
	for _, l := range lp {
		top := make([]topLogprobJSON, 0, len(l.Top))
		for _, t := range l.Top {
			top = append(top, topLogprobJSON{Token: t.Token, Logprob: t.Logprob, Bytes: nonNilInts(t.Bytes)})
		}
		out = append(out, logprobJSON{Token: l.Token, Logprob: l.Logprob, Bytes: nonNilInts(l.Bytes), TopLogprobs: top})
	}
	return out
}

func toToolCalls(tc []ToolCall, withIndex bool) []toolCallJSON {
	out := make([]toolCallJSON, 0, len(tc))
	for _, c := range tc {
		j := toolCallJSON{ID: c.ID, Function: functionJSON{Name: c.Name, Arguments: c.Arguments}}
		if c.ID != "" {
			j.Type = "function"
		}
		if withIndex {
			i := c.Index
			j.Index = &i
		}
		out = append(out, j)
	}
	return out
}

func nonNilInts(b []int) []int {
	if b == nil {
		return []int{}
	}
	return b
}

func strPtr(s string) *string { return &s }
