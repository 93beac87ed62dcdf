package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// parseLogLine decodes one JSON log line, checks that its time is an
// RFC 3339 timestamp and replaces it with "T", so lines compare exactly.
func parseLogLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("log line is not JSON: %q: %v", line, err)
	}
	ts, _ := m["time"].(string)
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
		t.Errorf("time %q: %v", m["time"], err)
	}
	m["time"] = "T"
	return m
}

// TestRequestLogLine pins the request line, logged through the process
// logger's JSON handler, for every kind of value it carries.
func TestRequestLogLine(t *testing.T) {
	tests := []struct {
		name      string
		level     slog.Level
		requestID string
		line      requestLine
		want      string
	}{
		{"401", slog.LevelInfo, "0123456789abcdef0123456789abcdef",
			requestLine{"POST", "/functions/v1/mcp-server", "mcp-server", 401, 52 * time.Microsecond, 80, 0},
			`{"time":"T","level":"INFO","msg":"request","version":"v1.2.3","method":"POST","path":"/functions/v1/mcp-server","function":"mcp-server","status":401,"duration_ms":0.052,"bytes":80,"request_id":"0123456789abcdef0123456789abcdef"}`},
		{"500 at warn", slog.LevelWarn, "req-1",
			requestLine{"GET", "/mcp-tokens", "mcp-tokens", 500, 1500 * time.Microsecond, 33, 0},
			`{"time":"T","level":"WARN","msg":"request","version":"v1.2.3","method":"GET","path":"/mcp-tokens","function":"mcp-tokens","status":500,"duration_ms":1.5,"bytes":33,"request_id":"req-1"}`},
		{"no function, sub-microsecond", slog.LevelInfo, "x",
			requestLine{"GET", "/nope", "", 404, 999 * time.Nanosecond, 0, 0},
			`{"time":"T","level":"INFO","msg":"request","version":"v1.2.3","method":"GET","path":"/nope","function":"","status":404,"duration_ms":0,"bytes":0,"request_id":"x"}`},
		{"no request id", slog.LevelInfo, "",
			requestLine{"GET", "/x", "", 404, time.Millisecond, 0, 0},
			`{"time":"T","level":"INFO","msg":"request","version":"v1.2.3","method":"GET","path":"/x","function":"","status":404,"duration_ms":1,"bytes":0}`},
		{"long duration, large body", slog.LevelInfo, "r",
			requestLine{"POST", "/functions/v1/mcp-server", "mcp-server", 200, 12345678 * time.Microsecond, 1 << 40, 0},
			`{"time":"T","level":"INFO","msg":"request","version":"v1.2.3","method":"POST","path":"/functions/v1/mcp-server","function":"mcp-server","status":200,"duration_ms":12345.678,"bytes":1099511627776,"request_id":"r"}`},
		{"characters JSON escapes", slog.LevelInfo, "r",
			requestLine{"GET", "/a\"b\\c<d>&\n\x01é", "", 404, time.Millisecond, 1, 0},
			`{"time":"T","level":"INFO","msg":"request","version":"v1.2.3","method":"GET","path":"/a\"b\\c<d>&\n\u0001é","function":"","status":404,"duration_ms":1,"bytes":1,"request_id":"r"}`},
		{"a refusal after refusals left out", slog.LevelInfo, "r",
			requestLine{"POST", "/functions/v1/mcp-server", "mcp-server", 401, 40 * time.Microsecond, 80, 1234},
			`{"time":"T","level":"INFO","msg":"request","version":"v1.2.3","method":"POST","path":"/functions/v1/mcp-server","function":"mcp-server","status":401,"duration_ms":0.04,"bytes":80,"refusals_not_logged":1234,"request_id":"r"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			log := slog.New(NewLogHandler(slog.NewJSONHandler(&out, nil))).With(slog.String("version", "v1.2.3"))
			ctx := context.Background()
			if tt.requestID != "" {
				ctx = WithRequestID(ctx, tt.requestID)
			}
			logRequest(ctx, log, tt.level, tt.line)
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("wrote %d lines, want 1: %q", len(lines), out.String())
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, parseLogLine(t, lines[0])); diff != "" {
				t.Errorf("request line (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequestLogLevel: the request line honours the logger's level (a 5xx
// line is WARN, every other INFO).
func TestRequestLogLevel(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	logRequest(context.Background(), log, slog.LevelInfo, requestLine{method: "GET", path: "/", status: 200})
	if out.Len() != 0 {
		t.Errorf("info line written at level warn: %q", out.String())
	}
	logRequest(context.Background(), log, slog.LevelWarn, requestLine{method: "GET", path: "/", status: 500})
	want := map[string]any{"time": "T", "level": "WARN", "msg": "request", "method": "GET", "path": "/",
		"function": "", "status": float64(500), "duration_ms": float64(0), "bytes": float64(0)}
	if diff := cmp.Diff(want, parseLogLine(t, strings.TrimSuffix(out.String(), "\n"))); diff != "" {
		t.Errorf("warn line (-want +got):\n%s", diff)
	}
}

// TestRequestLogThroughServer pins the lines the server writes for a
// request whose path needs escaping and for one whose path is over the
// logged length.
func TestRequestLogThroughServer(t *testing.T) {
	s, logs := newTestServer(t, Options{Functions: []Function{echoFunction("f")}})
	long := "/functions/v1/f/" + strings.Repeat("x", 300)
	tests := []struct {
		target string
		want   map[string]any
	}{
		{"/f/%22q%22%0A", map[string]any{"level": "INFO", "path": "/f/\"q\"\n", "function": "f", "status": float64(200),
			"bytes": float64(len("f GET /functions/v1/f/\"q\"\n"))}},
		{long, map[string]any{"level": "INFO", "path": long[:maxLoggedPath] + "…", "function": "f", "status": float64(200),
			"bytes": float64(len("f GET " + long))}},
	}
	for _, tt := range tests {
		t.Run(tt.target[:min(len(tt.target), 20)], func(t *testing.T) {
			before := len(logs.lines(t))
			do(t, s.Handler(), "GET", tt.target, nil, http.Header{HeaderRequestID: {"rid"}}, nil)
			lines := logs.lines(t)[before:]
			if len(lines) != 1 {
				t.Fatalf("%d lines, want 1: %v", len(lines), lines)
			}
			got := lines[0]
			if d, ok := got["duration_ms"].(float64); !ok || d < 0 {
				t.Errorf("duration_ms = %v, want a non-negative number", got["duration_ms"])
			}
			delete(got, "duration_ms")
			delete(got, "time")
			want := map[string]any{"msg": "request", "method": "GET", "request_id": "rid"}
			for k, v := range tt.want {
				want[k] = v
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request line (-want +got):\n%s", diff)
			}
		})
	}
}
