package gateway

import (
	"context"
	"log/slog"
)

type requestIDKey struct{}

// requestInfo is what the gateway knows about a request before routing:
// its id, the path the client sent (before prefix rewriting) and the
// function it addresses ("" for none). prepare stores one per request in
// the request context.
type requestInfo struct {
	id, originalPath, function string
}

// WithRequestID returns a copy of ctx that carries the request id. The
// gateway's middleware stores the id for every request; tests and
// background work started on behalf of a request may call it too.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, &requestInfo{id: id})
}

// RequestID returns the request id carried by ctx, or "" when there is none.
func RequestID(ctx context.Context) string {
	if info, ok := ctx.Value(requestIDKey{}).(*requestInfo); ok {
		return info.id
	}
	return ""
}

// NewLogHandler wraps h so that every record logged with a context that
// carries a request id gets a request_id attribute. Code that logs with the
// request's context (logger.InfoContext(ctx, …)) therefore needs no
// knowledge of the gateway to produce correlated lines — which matters
// because functions must not import this package.
func NewLogHandler(h slog.Handler) slog.Handler { return contextHandler{h} }

type contextHandler struct{ inner slog.Handler }

func (h contextHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.inner.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.inner.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.inner.WithGroup(name)}
}
