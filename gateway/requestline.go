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
}

// logRequest writes the request log line:
//
//	{"time":…,"level":"INFO","msg":"request",<logger attrs>,"method":…,"path":…,
//	 "function":…,"status":…,"duration_ms":…,"bytes":…,"request_id":…}
//
// request_id comes from ctx through NewLogHandler. duration_ms has
// microsecond precision.
func logRequest(ctx context.Context, log *slog.Logger, level slog.Level, r requestLine) {
	log.LogAttrs(ctx, level, "request",
		slog.String("method", r.method),
		slog.String("path", r.path),
		slog.String("function", r.function),
		slog.Int("status", r.status),
		slog.Float64("duration_ms", float64(r.elapsed.Microseconds())/1000),
		slog.Int64("bytes", r.bytes),
	)
}
