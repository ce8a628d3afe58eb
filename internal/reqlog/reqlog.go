// Package reqlog carries a request's logger in its context: the HTTP
// server gives every request a logger that already holds its request_id,
// and the stages that serve the request log through it, so that each of
// their lines carries the id. Safe for concurrent use.
package reqlog

import (
	"context"
	"log/slog"
)

type key struct{}

// With returns ctx carrying log, the request-scoped logger.
func With(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, key{}, log)
}

// From returns the request-scoped logger of ctx, or fallback when ctx has
// none (fallback nil: a logger that discards).
func From(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	if l, ok := ctx.Value(key{}).(*slog.Logger); ok && l != nil {
		return l
	}
	if fallback == nil {
		return slog.New(slog.DiscardHandler)
	}
	return fallback
}
