package smgwire

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mmgate/mmgate/engine/protocol"
)

// ChunkMsg is a protocol's GenerateStreamChunk, L its OutputLogProbs type.
type ChunkMsg[L any] interface {
	GetTokenIds() []uint32
	GetIndex() uint32
	GetPromptTokens() uint32
	GetCompletionTokens() uint32
	GetCachedTokens() uint32
	GetOutputLogprobs() L
}

// ChunkEvent maps a chunk field by field: its tokens and their
// log-probabilities, its index and counts as sent. Each protocol's decoder
// applies its own stream rules on top.
func ChunkEvent[T TopLogprobs, L OutputLogprobs[T], C ChunkMsg[L]](c C) protocol.Event {
	return protocol.Event{
		Index:            int(c.GetIndex()),
		Tokens:           c.GetTokenIds(),
		Logprobs:         Logprobs[T](c.GetOutputLogprobs()),
		PromptTokens:     int(c.GetPromptTokens()),
		CompletionTokens: int(c.GetCompletionTokens()),
		CachedTokens:     int(c.GetCachedTokens()),
	}
}

// CompleteMsg is a protocol's GenerateComplete, with its matched_stop
// oneof (matched_token_id or matched_stop_str).
type CompleteMsg interface {
	ProtoReflect() protoreflect.Message
	GetFinishReason() string
	GetIndex() uint32
	GetPromptTokens() uint32
	GetCompletionTokens() uint32
	GetCachedTokens() uint32
	GetMatchedTokenId() uint32
	GetMatchedStopStr() string
}

// CompleteEvent is a choice's final event from its complete, without its
// tokens (each protocol's decoder decides which are new): index, finish
// reason, counts as sent, and the matched stop.
func CompleteEvent(c CompleteMsg) protocol.Event {
	ev := protocol.Event{
		Index:            int(c.GetIndex()),
		Done:             true,
		Finish:           c.GetFinishReason(),
		PromptTokens:     int(c.GetPromptTokens()),
		CompletionTokens: int(c.GetCompletionTokens()),
		CachedTokens:     int(c.GetCachedTokens()),
	}
	m := c.ProtoReflect()
	switch set := m.WhichOneof(m.Descriptor().Oneofs().ByName("matched_stop")); {
	case set == nil:
	case set.Name() == "matched_stop_str":
		ev.MatchedStop = c.GetMatchedStopStr()
	default:
		id := c.GetMatchedTokenId()
		ev.MatchedToken = &id
	}
	return ev
}
