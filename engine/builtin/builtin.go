// Package builtin is the list of the gateway's engine protocols, in
// detection order. It is the one place that names them: adding a protocol
// is one package under engine/ and one line here.
package builtin

import (
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/engine/tokenspeed"
)

// Protocols returns a fresh list of the built-in protocols, in the order the
// engine tries them on a worker whose runtime is not configured.
func Protocols() []protocol.Protocol {
	return []protocol.Protocol{
		tokenspeed.Protocol{},
	}
}
