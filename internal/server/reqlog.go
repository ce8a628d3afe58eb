package server

import (
	"context"
	"log/slog"
)

type loggerKey struct{}

// WithLogger returns ctx carrying log, the request-scoped logger. The server
// gives every request one that already has its request_id attribute, so that
// each line logged for the request carries it.
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

// Logger returns the request-scoped logger of ctx, or fallback when ctx has
// none (fallback nil: a logger that discards).
func Logger(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	if fallback == nil {
		return slog.New(slog.DiscardHandler)
	}
	return fallback
}
