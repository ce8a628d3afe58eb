package shm

import "errors"

// The errors of this package. Operations wrap them as "shm: op: %w"; test
// with errors.Is.
var (
	// ErrBadHandle: a tensor or handle received from the wire is malformed or
	// names a file the reader refuses (bad name, no accepted prefix, not a
	// regular file, too short, size disagreeing with shape and dtype).
	ErrBadHandle = errors.New("bad tensor handle")

	// ErrTooLarge: the tensor cannot be sent at all: too large for an inline
	// message and shared memory is not usable for it. Maps to HTTP 413.
	ErrTooLarge = errors.New("tensor too large")

	// ErrNoSpace: the tmpfs could not reserve the segment (ENOSPC on
	// fallocate). The tensor goes inline when it fits.
	ErrNoSpace = errors.New("no space in shared memory")

	// ErrOverBudget: the segment would take the bytes held in shared memory
	// over the pool's budget. The tensor goes inline when it fits.
	ErrOverBudget = errors.New("shared-memory budget exceeded")

	// ErrUnavailable: the shared-memory directory is not usable (the startup
	// probe failed, or the pool is closed).
	ErrUnavailable = errors.New("shared memory unavailable")

	// ErrBadOptions: an Options field has an invalid value.
	ErrBadOptions = errors.New("bad options")
)
