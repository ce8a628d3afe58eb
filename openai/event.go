package openai

// Event is a piece of one choice's output as a backend produces it: new
// content, reasoning and tool-call text, the log probabilities behind it,
// and on the choice's last event its finish reason.
type Event struct {
	Index            int
	Text             string     // new content text
	Reasoning        string     // new reasoning text (models with <think>)
	ToolCalls        []ToolCall // tool calls, each whole or as deltas (Index set)
	Logprobs         []Logprob  // for the tokens behind Text
	FinishReason     string     // set when this choice is done
	CompletionTokens int        // running count for this choice
	Final            bool       // the choice is done (FinishReason set)
	Usage            *Usage     // set once, on the last event of the request
	_                struct{}
}

// Generation is a started request: its events, in order, until io.EOF.
type Generation interface {
	// Model is the served model name to report.
	Model() string
	// Choices is n.
	Choices() int
	// PromptTokens counts the prompt after media expansion.
	PromptTokens() int
	// Next blocks for the next event; io.EOF after the last one.
	Next() (Event, error)
	// Close ends the generation (aborting it if unfinished) and releases
	// its resources. Safe to call more than once.
	Close()
}
