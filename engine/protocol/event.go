package protocol

// Event is one step of a Generate stream, in protocol-neutral form: what one
// choice gained since its previous event. Each protocol decodes its own
// stream rules into events (a final message that repeats tokens already
// streamed, or carries only the last step, adds no token twice).
type Event struct {
	// Index is the choice (0 ≤ Index < Request.Choices()).
	Index int
	// Tokens are the choice's new token ids.
	Tokens []uint32
	// Logprobs are the new tokens' log-probabilities (one per token, when
	// asked for).
	Logprobs []Logprob
	// Done marks the choice's last event; Finish is then its finish reason
	// as the worker gave it ("stop", "length", "abort", ...; may be empty).
	Done   bool
	Finish string
	// MatchedToken or MatchedStop is the stop that ended the choice, when
	// the worker says which.
	MatchedToken *uint32
	MatchedStop  string
	// Token counts as the worker reports them; 0 when not reported.
	// CompletionTokens is the choice's total so far.
	PromptTokens, CompletionTokens, CachedTokens int
}

// Logprob is one generated token's log-probability and the most likely
// alternatives at its position.
type Logprob struct {
	Token   uint32
	Logprob float32
	Top     []TopLogprob
}

// TopLogprob is one alternative token at a position.
type TopLogprob struct {
	Token   uint32
	Logprob float32
}
