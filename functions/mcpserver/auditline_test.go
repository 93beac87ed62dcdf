package mcpserver

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/logline"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// TestAuditLineMatchesSlog writes the same tool calls through the fast
// path and through slog (as main builds them) and compares the lines byte
// for byte after the time, which must parse and be close.
func TestAuditLineMatchesSlog(t *testing.T) {
	token := &mcpauth.Principal{UserID: "10000000-0000-4000-8000-000000000001", TokenID: "22222222-3333-4444-8555-666666666666", Kind: mcpauth.KindAPIToken}
	oauth := &mcpauth.Principal{UserID: "u-2", ClientID: "client-1", Kind: mcpauth.KindSupabase}
	bare := &mcpauth.Principal{UserID: "u-3"}
	tests := []struct {
		name     string
		cl       *caller
		tool     string
		args     *jsjson.Object
		outcome  string
		wantFast bool
	}{
		{"api token", &caller{principal: token, requestID: "0123456789abcdef0123456789abcdef"}, "get_assignment", jsjson.NewObject(1).Set("class_id", float64(1)), OutcomeOK, true},
		{"oauth client", &caller{principal: oauth, requestID: "r"}, "get_submission", jsjson.NewObject(1).Set("class_id", "42"), "upstream_error", true},
		{"no request id, no class", &caller{principal: bare}, "list_classes", nil, OutcomeOK, true},
		{"fractional class id", &caller{principal: token, requestID: "r"}, "get_assignment", jsjson.NewObject(1).Set("class_id", 3.5), OutcomeOK, true},
		{"long unknown tool (ends in …)", &caller{principal: token, requestID: "r"}, strings.Repeat("x", 100), nil, OutcomeUnknownTool, false},
		{"quote in the request id", &caller{principal: token, requestID: `r"1`}, "get_assignment", nil, OutcomeOK, false},
		{"control character in a tool name", &caller{principal: token, requestID: "r"}, "a\nb", nil, OutcomeUnknownTool, false},
	}
	attrs := []slog.Attr{slog.String("log", "audit"), slog.String("version", "v1.2.3")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slogOut, fastOut bytes.Buffer
			viaSlog := &Server{audit: slog.New(slog.NewJSONHandler(&slogOut, nil).WithAttrs(attrs))}
			viaSlog.auditToolCall(tt.cl, tt.tool, tt.args, tt.outcome, 37*time.Millisecond, 4)
			line, err := NewAuditLog(&fastOut, attrs...)
			if err != nil {
				t.Fatal(err)
			}
			var fallback bytes.Buffer
			fast := &Server{audit: slog.New(slog.NewJSONHandler(&fallback, nil).WithAttrs(attrs)), auditLine: line}
			fast.auditToolCall(tt.cl, tt.tool, tt.args, tt.outcome, 37*time.Millisecond, 4)
			got := fastOut.String()
			if !tt.wantFast {
				if got != "" {
					t.Fatalf("a line that needs escaping took the fast path: %s", got)
				}
				got = fallback.String()
			} else if fallback.Len() != 0 {
				t.Fatalf("a plain line went through slog: %s", fallback.String())
			}
			logline.Same(t, got, slogOut.String())
		})
	}
	if _, err := NewAuditLog(&bytes.Buffer{}, slog.Int("n", 1)); err == nil {
		t.Error("a non-string logger attribute was accepted")
	}
}
