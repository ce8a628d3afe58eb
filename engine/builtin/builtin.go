// Package builtin is the list of the gateway's engine protocols, in
// detection order. It is the one place that names them: adding a protocol
// is one package under engine/ and one line here.
//
// Order: detection asks each protocol's info call (GetModelInfo) in turn
// and moves on at UNIMPLEMENTED, an immediate answer, so the order costs at
// most a round trip per protocol tried and never a generation (SGLang's
// HealthCheck runs one; detection does not call it). TokenSpeed comes
// first, as the embedded worker's default; then vLLM and SGLang.
package builtin

import (
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/sglang"
	"github.com/mmgate/mmgate/engine/tokenspeed"
	"github.com/mmgate/mmgate/engine/vllm"
)

// Protocols returns a fresh list of the built-in protocols, in the order the
// engine tries them on a worker whose runtime is not configured.
func Protocols() []protocol.Protocol {
	return []protocol.Protocol{
		tokenspeed.Protocol{},
		vllm.Protocol{},
		sglang.Protocol{},
	}
}
