package tokenizer

import "errors"

// Errors returned by this package, wrapped as "op: %w" with details.
var (
	// ErrBadInput means a tokenizer.json or configuration file is malformed.
	ErrBadInput = errors.New("bad input")
	// ErrUnsupported means the file is well formed but uses a model,
	// normalizer, pre-tokenizer, post-processor or decoder this package does
	// not implement.
	ErrUnsupported = errors.New("unsupported")
	// ErrTooLarge means a vocabulary id or file is beyond this package's limits.
	ErrTooLarge = errors.New("too large")
)
