package family

import (
	"fmt"
	"strings"

	"github.com/mmgate/mmgate/vision"
)

// Errors of the registry. Both wrap vision errors, so that callers mapping
// vision errors (to HTTP statuses, exit codes) need no new case.
var (
	// ErrUnknownModel: no family serves the model (wraps
	// vision.ErrUnsupported).
	ErrUnknownModel = fmt.Errorf("no model family serves this model: %w", vision.ErrUnsupported)
	// ErrBadConfig: config.json is missing or malformed (wraps
	// vision.ErrBadOptions).
	ErrBadConfig = fmt.Errorf("bad config.json: %w", vision.ErrBadOptions)
)

// UnknownModelError is returned for a model no family claims. It wraps
// ErrUnknownModel.
type UnknownModelError struct {
	ModelType     string
	Architectures []string
	// Supported are the model types of the registry's families, in
	// registry order.
	Supported []string
}

func (e *UnknownModelError) Error() string {
	return fmt.Sprintf("family: model_type %q (architectures %s) is not supported; supported model types: %s",
		e.ModelType, "["+strings.Join(e.Architectures, ", ")+"]", strings.Join(e.Supported, ", "))
}

// Unwrap returns ErrUnknownModel.
func (e *UnknownModelError) Unwrap() error { return ErrUnknownModel }

// errUnknownName is Open's error for a name that is neither a preset nor a
// folder.
func errUnknownName(name string, presets []string) error {
	return fmt.Errorf("family: %q is neither a preset (%s) nor a model folder: %w",
		name, strings.Join(presets, ", "), ErrUnknownModel)
}
