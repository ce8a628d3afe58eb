package protocol

import (
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Request is one generation request in protocol-neutral form. Each protocol
// encodes it into its own message (Protocol.Encode); a field a protocol
// cannot express makes Encode fail with ErrUnsupportedParam, never a silent
// drop. A Request and the memory it references (token ids, inline tensor
// bytes) must not change while a Generate call that sent it is running.
type Request struct {
	// ID identifies the request at the worker (Abort names it). Required.
	ID string
	// InputIDs is the whole prompt, media placeholders expanded.
	InputIDs []uint32
	// Text is the prompt text the ids came from (for the worker's logs).
	Text string
	// Stream asks the worker for incremental output (chunks before each
	// choice's final message).
	Stream bool
	// Sampling are the generation parameters.
	Sampling Sampling
	// Media are the multimodal items in prompt order.
	Media []MediaItem
	// Placement is how Media's encoder inputs were placed: LayoutPerItem
	// (each in a buffer of its own) or LayoutFlat (back to back in one
	// buffer, each item's payload the next slice of it). A request with
	// several items can only go to a worker whose protocol has that layout.
	Placement Layout
}

// Choices is the number of sequences the request asks for (N, at least 1).
func (r *Request) Choices() int { return max(1, int(r.Sampling.N)) }

// Sampling are the generation parameters every protocol maps onto its own.
// Pointer fields are optional: nil leaves the worker's default.
type Sampling struct {
	Temperature       *float32
	TopP              *float32
	TopK              *int32 // as the client gave it (-1 or 0: no limit, as engines read it)
	MinP              *float32
	FrequencyPenalty  *float32
	PresencePenalty   *float32
	RepetitionPenalty *float32
	// MaxTokens caps the new tokens of each choice; MinTokens is the least.
	MaxTokens *uint32
	MinTokens uint32
	// Stop strings and stop token ids (the model's end-of-sequence ids
	// included when they should stop it). The gateway also matches Stop
	// on the text it decodes, so a protocol whose workers take no stop
	// strings (SGLang) sends the stops that are one token as stop ids and
	// leaves the others to the gateway.
	Stop         []string
	StopTokenIDs []uint32
	// StopTokens[i] are Stop[i]'s token ids as the model's tokenizer
	// encodes the string alone; nil when unknown.
	StopTokens [][]uint32
	IgnoreEOS  bool
	// SkipSpecialTokens: the worker drops special tokens from any text it
	// makes.
	SkipSpecialTokens bool
	// N is the number of choices; 0 means 1.
	N uint32
	// Seed makes sampling repeatable.
	Seed *int64
	// LogitBias adds a bias to the logits of token ids.
	LogitBias map[uint32]float32
	// Logprobs asks for the log-probability of each generated token, and
	// TopLogprobs for that many alternatives at each position.
	Logprobs    bool
	TopLogprobs int
	// Constraint restricts the output (structured output).
	Constraint Constraint
}

// ConstraintKind is a kind of structured-output constraint.
type ConstraintKind uint8

// The constraint kinds.
const (
	NoConstraint ConstraintKind = iota
	// JSONSchema: Value is a JSON schema the output must satisfy.
	JSONSchema
	// JSONObject: the output is any JSON object.
	JSONObject
	// Regex: Value is a regular expression the output must match.
	Regex
	// Grammar: Value is an EBNF grammar the output must follow.
	Grammar
	// Choice: the output is one of Choices.
	Choice
)

// String names the kind as the OpenAI-compatible APIs do.
func (k ConstraintKind) String() string {
	switch k {
	case JSONSchema:
		return "json_schema"
	case JSONObject:
		return "json_object"
	case Regex:
		return "regex"
	case Grammar:
		return "grammar"
	case Choice:
		return "choice"
	}
	return "none"
}

// Constraint is one structured-output constraint.
type Constraint struct {
	Kind    ConstraintKind
	Value   string   // JSONSchema, Regex, Grammar
	Choices []string // Choice
}

// MediaItem is one image, video or audio item of a request: its tensors and
// where its placeholder tokens sit in Request.InputIDs.
type MediaItem struct {
	Modality vision.Modality
	// Hash identifies the item's content (prefix-cache and encoder-cache
	// key): equal for equal media bytes, different otherwise.
	Hash []byte
	// PadToken is the placeholder token id of the item's modality; nil when
	// none is known.
	PadToken *uint32
	// Placeholders are the runs of pad tokens the item's embeddings
	// replace, in order.
	Placeholders []Range
	// Structural is the item's whole span in the prompt (for Qwen3-VL video
	// from its first <|vision_start|> over timestamps and frame markers;
	// for an image the pad run). Zero when the family defines none.
	Structural Range
	// Input is the primary encoder input (pixel_values or
	// pixel_values_videos); Side are the model-specific tensors
	// (image_grid_thw, ...), in a fixed order.
	Input Tensor
	Side  []Tensor
	// Raw is the item's encoded media bytes, for protocols that want them
	// (Capabilities.RawMedia); nil otherwise.
	Raw []byte
	// CacheKey is the item's encoder-cache identity as text: equal keys
	// mean equal encoder inputs (the lower-case hex BLAKE3 digest of the
	// media bytes, extended with the processing settings when they are not
	// the model's defaults). Protocols whose cache keys are strings (vLLM's
	// mm_hashes) send it.
	CacheKey string
	// Fields is how a protocol that joins the items' tensors (vLLM, SGLang)
	// lays this item's out: the model family's layout of its modality.
	Fields Fields
}

// Fields is how the tensors of items of one modality are joined into one
// tensor per name (Capabilities.Layout LayoutFlat): vLLM's field
// configuration.
type Fields struct {
	// Sizes, when not "", makes Input flat: the items' inputs are joined
	// along dim 0 and an int64 tensor of this name holds each item's dim 0.
	// "" means Input is batched (dim 0 is the item).
	Sizes string
	// Batched are the side tensors (and the sizes tensor) whose dim 0 is
	// the item index; side tensors not listed are shared by every item.
	Batched []string
	// KeepOnCPU are the tensors the worker keeps on the CPU.
	KeepOnCPU []string
}

// Range is a run of tokens in Request.InputIDs.
type Range struct {
	Offset, Length int
}

// Tensor is one named tensor and where its bytes travel (inline or a
// shared-memory placement from the request's shm.Batch).
type Tensor struct {
	Name    string
	DType   tensor.DType
	Shape   []int
	Payload shm.Payload
}

// InlineTensor is a tensor whose bytes travel in the message.
func InlineTensor(name string, dt tensor.DType, shape []int, data []byte) Tensor {
	return Tensor{Name: name, DType: dt, Shape: shape, Payload: shm.Payload{Inline: data}}
}
