package shm

import "fmt"

// Mode is a worker's tensor transport setting. The zero value is ModeAuto.
type Mode uint8

const (
	// ModeAuto uses shared memory only when the worker advertises the same
	// shm namespace id as the gateway.
	ModeAuto Mode = iota
	// ModeInline always sends tensor bytes inside the gRPC message.
	ModeInline
	// ModeShm uses shared memory for every tensor at or above the threshold,
	// without checking the namespace id.
	ModeShm
)

var modeNames = [...]string{ModeAuto: "auto", ModeInline: "inline", ModeShm: "shm"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode maps "auto", "inline", "shm" (or "" for auto) to a Mode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return ModeAuto, nil
	case "inline":
		return ModeInline, nil
	case "shm":
		return ModeShm, nil
	}
	return 0, fmt.Errorf("shm: mode %q: %w (want auto, inline or shm)", s, ErrBadOptions)
}

// Path is how one tensor travels to the worker.
type Path uint8

const (
	// PathInline: the bytes go inside the gRPC message (TensorData.inline).
	PathInline Path = iota
	// PathShm: the bytes go into a shared-memory segment
	// (TensorData.shm).
	PathShm
	// PathTooLarge: the tensor can travel neither way.
	PathTooLarge
)

var pathNames = [...]string{PathInline: "inline", PathShm: "shm", PathTooLarge: "too_large"}

// String is the metrics label value ("inline", "shm", "too_large").
func (p Path) String() string {
	if int(p) < len(pathNames) {
		return pathNames[p]
	}
	return fmt.Sprintf("path(%d)", uint8(p))
}

// Defaults for Limits.
const (
	DefaultMinBytes  = 64 << 10  // tensors below this stay inline
	DefaultMaxInline = 256 << 20 // the worker's default gRPC message limit
)

// Limits are a worker's size thresholds. The zero value means the defaults.
type Limits struct {
	// MinBytes: tensors smaller than this stay inline. 0 means
	// DefaultMinBytes; a negative value means no threshold.
	MinBytes int
	// MaxInline: tensors larger than this never go inline (the worker's
	// gRPC message limit, minus nothing: the caller keeps a margin for the
	// rest of the message if it needs one). 0 means DefaultMaxInline.
	MaxInline int
}

func (l Limits) minBytes() int {
	switch {
	case l.MinBytes == 0:
		return DefaultMinBytes
	case l.MinBytes < 0:
		return 0
	}
	return l.MinBytes
}

func (l Limits) maxInline() int {
	if l.MaxInline <= 0 {
		return DefaultMaxInline
	}
	return l.MaxInline
}

// Decide chooses the path of one tensor of nbytes bytes for a worker with the
// given mode; nsMatch reports whether the worker's shm_namespace_id equals the
// gateway's. It is the first choice only: when the segment cannot be created
// (full tmpfs, budget, probe failure) Batch.Place falls back to inline when
// the tensor fits, or reports ErrTooLarge.
//
//   - nbytes > MaxInline: shm when the mode allows it (shm, or auto with a
//     namespace match), else PathTooLarge;
//   - nbytes < MinBytes: inline;
//   - otherwise: inline for ModeInline, shm for ModeShm, and for ModeAuto shm
//     exactly when nsMatch.
func Decide(mode Mode, nsMatch bool, nbytes int, lim Limits) Path {
	shmOK := mode == ModeShm || (mode == ModeAuto && nsMatch)
	if nbytes > lim.maxInline() {
		if shmOK {
			return PathShm
		}
		return PathTooLarge
	}
	if nbytes < lim.minBytes() || nbytes == 0 {
		return PathInline
	}
	if shmOK {
		return PathShm
	}
	return PathInline
}
