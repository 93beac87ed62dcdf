// Package jsonline writes log lines without slog, in exactly the bytes
// slog's JSONHandler writes for them. It serves the lines written on every
// request — the request log and the audit log — where slog spends most of
// a line's cost on what the line does not need: capturing the caller's
// program counter, a Record whose later attributes spill to the heap, and
// json.Marshal (reflection) for a float.
//
// It only writes what needs no escaping: callers check every string with
// Plain and hand a line that fails to slog, so the output is always
// exactly slog's. Each user's tests compare its lines with slog's byte for
// byte.
package jsonline

import (
	"errors"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
)

// Plain reports whether s is written in a JSON string as is: printable
// ASCII other than '"' and '\'. (slog escapes nothing else in that range.)
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Attrs renders a logger's own attributes (those given to With) as they
// follow msg in a line: `,"key":"value"` each. Only plain strings are
// supported.
func Attrs(attrs ...slog.Attr) ([]byte, error) {
	var b []byte
	for _, a := range attrs {
		if a.Value.Kind() != slog.KindString || !Plain(a.Key) || !Plain(a.Value.String()) {
			return nil, errors.New("jsonline: logger attributes must be plain strings")
		}
		b = String(b, a.Key, a.Value.String())
	}
	return b, nil
}

// Head appends the start of a line: time, level, msg (plain) and the
// logger's rendered attributes.
func Head(b []byte, t time.Time, level slog.Level, msg string, attrs []byte) []byte {
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, level.String()...)
	b = append(b, `","msg":"`...)
	b = append(b, msg...)
	b = append(b, '"')
	return append(b, attrs...)
}

// String appends `,"key":"value"`; both must be plain.
func String(b []byte, key, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":"`...)
	b = append(b, value...)
	return append(b, '"')
}

// Int appends `,"key":v`.
func Int(b []byte, key string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, v, 10)
}

// Float appends `,"key":f` as slog writes a float64.
func Float(b []byte, key string, f float64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":`...)
	return AppendFloat(b, f)
}

// End closes the line.
func End(b []byte) []byte { return append(b, '}', '\n') }

// AppendFloat formats f as encoding/json does (which slog's JSON handler
// calls for floats): the shortest 'f' form, or 'e' form with a two-digit
// exponent for very small or large magnitudes.
func AppendFloat(b []byte, f float64) []byte {
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

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Buffer lends a buffer for one line; give it back with Release once the
// line is written.
func Buffer() *[]byte { return buffers.Get().(*[]byte) }

// Release returns a buffer from Buffer, keeping its grown capacity.
func Release(bp *[]byte, b []byte) {
	*bp = b[:0]
	buffers.Put(bp)
}
