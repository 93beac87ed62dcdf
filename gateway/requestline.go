package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
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
	l := &RequestLog{w: w, level: level}
	for _, a := range attrs {
		if a.Value.Kind() != slog.KindString || !plainJSON(a.Key) || !plainJSON(a.Value.String()) {
			return nil, errors.New("gateway: request log attributes must be plain strings")
		}
		l.prefix = append(l.prefix, ',', '"')
		l.prefix = append(l.prefix, a.Key...)
		l.prefix = append(l.prefix, `":"`...)
		l.prefix = append(l.prefix, a.Value.String()...)
		l.prefix = append(l.prefix, '"')
	}
	return l, nil
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

var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// write writes the line and reports true, or reports false without writing
// when a value needs escaping (the caller then logs it through slog).
func (l *RequestLog) write(level slog.Level, r requestLine) bool {
	if !plainJSON(r.method) || !plainJSON(r.path) || !plainJSON(r.function) || !plainJSON(r.requestID) {
		return false
	}
	bp := lineBufs.Get().(*[]byte)
	b := (*bp)[:0]
	b = append(b, `{"time":"`...)
	b = time.Now().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, level.String()...)
	b = append(b, `","msg":"request"`...)
	b = append(b, l.prefix...)
	b = append(b, `,"method":"`...)
	b = append(b, r.method...)
	b = append(b, `","path":"`...)
	b = append(b, r.path...)
	b = append(b, `","function":"`...)
	b = append(b, r.function...)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(r.status), 10)
	b = append(b, `,"duration_ms":`...)
	b = appendJSONFloat(b, float64(r.elapsed.Microseconds())/1000)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, r.bytes, 10)
	if r.requestID != "" {
		b = append(b, `,"request_id":"`...)
		b = append(b, r.requestID...)
		b = append(b, '"')
	}
	b = append(b, '}', '\n')
	_, _ = l.w.Write(b)
	*bp = b
	lineBufs.Put(bp)
	return true
}

// plainJSON reports whether s is written in a JSON string as is: printable
// ASCII other than '"' and '\'. (slog escapes nothing else in that range.)
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendJSONFloat formats f as encoding/json does (which slog's JSON
// handler calls for floats): the shortest 'f' form, or 'e' form with a
// two-digit exponent for very small or large magnitudes.
func appendJSONFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, `"!ERROR:unsupported value"`...) // unreachable for durations
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b) - start
		if n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
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
