package protocol

import (
	"time"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/vision"
)

// Info is what a worker said about itself the last time it was reached,
// mapped from its protocol's model and server info. It is a snapshot: never
// modify it.
type Info struct {
	// Runtime is the protocol the worker speaks (Protocol.Name).
	Runtime string
	// Software names the worker implementation when it says
	// ("mmgate-reference"); "" otherwise.
	Software string
	// ServedName is the model name clients use.
	ServedName    string
	ModelType     string
	Architectures []string
	// ContextLength is the model's context length (0 when not reported).
	ContextLength int
	// EOS are the model's end-of-sequence token ids.
	EOS []uint32
	// Modalities are the media kinds the model takes.
	Modalities []vision.Modality
	// EncoderDType is the dtype the worker's vision encoder runs in, when
	// it reports one that is a tensor dtype (0 otherwise).
	EncoderDType tensor.DType
	// NamespaceID is the worker's shared-memory namespace id ("" if
	// absent); NamespaceMatch (set by the engine) reports whether it equals
	// the gateway pool's.
	NamespaceID    string
	NamespaceMatch bool
	// KeepAfterRead: the worker leaves shared-memory segments in place
	// after reading them and is done with their bytes once it answers, so
	// the gateway may refill them for later requests (shm.Route.Reuse).
	KeepAfterRead bool
	// Defaults are the model's sampling defaults as the worker reports them
	// (its generation config); requests that leave a parameter out get
	// the default (SamplingDefaults.Apply).
	Defaults SamplingDefaults
	// Fetched is when the info was read (set by the engine).
	Fetched time.Time
}

// Name is the served model name.
func (i *Info) Name() string { return i.ServedName }
