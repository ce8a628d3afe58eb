package server

import (
	"context"
	"time"

	"github.com/mmgate/mmgate/prompt"
)

// Backend runs chat requests. The pipeline implements it.
type Backend interface {
	// Chat starts a request. An error means nothing was generated and maps
	// to an HTTP status through apierr.
	Chat(ctx context.Context, req *prompt.Request, requestID string) (Generation, error)
	// Models lists the models that workers serve.
	Models() []Model
	// Ready reports whether a healthy worker exists.
	Ready() bool
	// Health details for GET /health (decoders, workers, shm, ...).
	Health() map[string]any
}

// Model is one entry of GET /v1/models.
type Model struct {
	ID      string
	Created int64
	OwnedBy string
}

// Generation is a started request: events until io.EOF.
type Generation interface {
	// Model is the served model name to report.
	Model() string
	// Choices is n.
	Choices() int
	// PromptTokens counts the prompt after media expansion.
	PromptTokens() int
	// Next blocks for the next event; io.EOF after the last one.
	Next() (Event, error)
	// Close ends the generation (aborting it at the worker if unfinished)
	// and releases its resources. Safe to call more than once.
	Close()
	// Timings are the stage wall times so far (for the access log).
	Timings() map[string]time.Duration
}

// Event is a piece of one choice's output.
type Event struct {
	Index            int
	Text             string     // new content text
	Reasoning        string     // new reasoning text (models with <think>)
	ToolCalls        []ToolCall // tool calls, complete or as deltas
	Logprobs         []Logprob  // for the tokens behind Text
	FinishReason     string     // set when this choice is done
	CompletionTokens int        // running count for this choice
	CachedTokens     int        // prompt tokens served from the worker's cache
	Final            bool       // the choice is done (FinishReason set)
	Usage            *Usage     // set once, on the last event of the request
	Raw              []uint32   // the token ids behind Text (for logprobs mapping)
	_                struct{}
}

// ToolCall is a tool call, whole (non-streaming) or a delta.
type ToolCall struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// Logprob is one token's log probability with its alternatives.
type Logprob struct {
	Token   string
	Logprob float64
	Bytes   []int
	Top     []TopLogprob
}

// TopLogprob is an alternative token.
type TopLogprob struct {
	Token   string
	Logprob float64
	Bytes   []int
}

// Usage are the token counts of the whole request.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int
}

// timeNow is the clock for "created" fields.
type clock func() time.Time
