package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsonline"
)

// RequestLog writes the request log line directly, without slog, as the
// bytes slog's JSONHandler would write for it through the process logger:
//
//	{"time":…,"level":"INFO","msg":"request",<logger attrs>,"method":…,"path":…,
//	 "function":…,"status":…,"duration_ms":…,"bytes":…,"request_id":…}
//
// slog spends most of that line's cost on things the line does not need:
// capturing the caller's program counter, a Record whose seventh attribute
// spills to the heap, a clone to add request_id, and json.Marshal
// (reflection) for the float. Lines whose values need JSON escaping are
// handed back to slog (ok=false), so the output is always exactly slog's;
// requestline_test.go compares the two byte for byte.
type RequestLog struct {
	w      io.Writer
	level  slog.Leveler
	prefix []byte // `,"key":"value"` for the logger's own attributes
}

// NewRequestLog returns a RequestLog writing to w (the process logger's
// writer) lines at or above level, with attrs (the attributes the process
// logger was given with With, such as version) after msg. Only string
// attributes are supported.
func NewRequestLog(w io.Writer, level slog.Leveler, attrs ...slog.Attr) (*RequestLog, error) {
	prefix, err := jsonline.Attrs(attrs...)
	if err != nil {
		return nil, errors.New("gateway: request log attributes must be plain strings")
	}
	return &RequestLog{w: w, level: level, prefix: prefix}, nil
}

// requestLine is what one line says.
type requestLine struct {
	method, path, function, requestID string
	status                            int
	elapsed                           time.Duration
	bytes                             int64
}

// enabled reports whether lines at level are written.
func (l *RequestLog) enabled(level slog.Level) bool {
	return level >= l.level.Level()
}

// write writes the line and reports true, or reports false without writing
// when a value needs escaping (the caller then logs it through slog).
func (l *RequestLog) write(level slog.Level, r requestLine) bool {
	if !jsonline.Plain(r.method) || !jsonline.Plain(r.path) || !jsonline.Plain(r.function) || !jsonline.Plain(r.requestID) {
		return false
	}
	bp := jsonline.Buffer()
	b := jsonline.Head((*bp)[:0], time.Now(), level, "request", l.prefix)
	b = jsonline.String(b, "method", r.method)
	b = jsonline.String(b, "path", r.path)
	b = jsonline.String(b, "function", r.function)
	b = jsonline.Int(b, "status", int64(r.status))
	b = jsonline.Float(b, "duration_ms", float64(r.elapsed.Microseconds())/1000)
	b = jsonline.Int(b, "bytes", r.bytes)
	if r.requestID != "" {
		b = jsonline.String(b, "request_id", r.requestID)
	}
	_, _ = l.w.Write(jsonline.End(b))
	jsonline.Release(bp, b)
	return true
}

// logRequest writes the request line through the fast path when it can,
// else through slog.
func logRequest(ctx context.Context, log *slog.Logger, fast *RequestLog, level slog.Level, r requestLine) {
	if fast != nil {
		if !fast.enabled(level) || fast.write(level, r) {
			return
		}
	}
	// request_id comes from ctx through NewLogHandler.
	log.LogAttrs(ctx, level, "request",
		slog.String("method", r.method),
		slog.String("path", r.path),
		slog.String("function", r.function),
		slog.Int("status", r.status),
		slog.Float64("duration_ms", float64(r.elapsed.Microseconds())/1000),
		slog.Int64("bytes", r.bytes),
	)
}
