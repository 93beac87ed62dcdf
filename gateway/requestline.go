package gateway

import (
	"context"
	"log/slog"
	"time"
)

// requestLine is what the request log says of one request.
type requestLine struct {
	method, path, function string
	status                 int
	elapsed                time.Duration
	bytes                  int64
	// refusalsNotLogged is the count of refused requests whose lines were
	// left out before this one (refusallog.go); logged only when not 0.
	refusalsNotLogged int64
}

// logRequest writes the request log line:
//
//	{"time":…,"level":"INFO","msg":"request",<logger attrs>,"method":…,"path":…,
//	 "function":…,"status":…,"duration_ms":…,"bytes":…,"request_id":…}
//
// request_id comes from ctx through NewLogHandler. duration_ms has
// microsecond precision. A refused request's line that follows refusals
// left out adds "refusals_not_logged":n after bytes.
func logRequest(ctx context.Context, log *slog.Logger, level slog.Level, r requestLine) {
	attrs := [...]slog.Attr{
		slog.String("method", r.method),
		slog.String("path", r.path),
		slog.String("function", r.function),
		slog.Int("status", r.status),
		slog.Float64("duration_ms", float64(r.elapsed.Microseconds())/1000),
		slog.Int64("bytes", r.bytes),
		slog.Int64("refusals_not_logged", r.refusalsNotLogged),
	}
	n := len(attrs)
	if r.refusalsNotLogged == 0 {
		n--
	}
	log.LogAttrs(ctx, level, "request", attrs[:n]...)
}
