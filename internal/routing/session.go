package routing

import "context"

type sessionKey struct{}

// WithSessionKey returns ctx carrying a request's session key (the value
// of the gateway's session header; empty when the request has none), for
// consistent_hash.
func WithSessionKey(ctx context.Context, key string) context.Context {
	if key == "" {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, key)
}

// SessionKey is the session key ctx carries, or "".
func SessionKey(ctx context.Context) string {
	k, _ := ctx.Value(sessionKey{}).(string)
	return k
}
