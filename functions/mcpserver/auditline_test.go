package mcpserver

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// writeRecorder keeps each Write it receives separately.
type writeRecorder struct{ writes []string }

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// TestAuditLine pins the audit line of docs/audit.md for each kind of
// caller and record: the exact JSON (keys in order, the time replaced once
// it has parsed as a recent RFC 3339 time) written in one Write.
func TestAuditLine(t *testing.T) {
	token := &mcpauth.Principal{UserID: "10000000-0000-4000-8000-000000000001", TokenID: "22222222-3333-4444-8555-666666666666", Kind: mcpauth.KindAPIToken}
	oauth := &mcpauth.Principal{UserID: "u-2", ClientID: "client-1", Kind: mcpauth.KindSupabase}
	bare := &mcpauth.Principal{UserID: "u-3"}
	const head = `{"time":"T","level":"INFO","msg":"tool call","log":"audit","version":"v1.2.3",`
	tests := []struct {
		name    string
		cl      *caller
		tool    string
		args    *jsjson.Object
		outcome string
		want    string
	}{
		{"api token", &caller{principal: token, requestID: "0123456789abcdef0123456789abcdef"}, "get_assignment", jsjson.NewObject(1).Set("class_id", float64(1)), OutcomeOK,
			head + `"request_id":"0123456789abcdef0123456789abcdef","token_id":"22222222-3333-4444-8555-666666666666","credential":"api_token","user_id":"10000000-0000-4000-8000-000000000001","tool":"get_assignment","class_id":"1","outcome":"ok","duration_ms":37,"upstream_requests":4}`},
		{"oauth client", &caller{principal: oauth, requestID: "r"}, "get_submission", jsjson.NewObject(1).Set("class_id", "42"), "upstream_error",
			head + `"request_id":"r","client_id":"client-1","credential":"supabase","user_id":"u-2","tool":"get_submission","class_id":"42","outcome":"upstream_error","duration_ms":37,"upstream_requests":4}`},
		{"no request id, no class", &caller{principal: bare}, "list_classes", nil, OutcomeOK,
			head + `"user_id":"u-3","tool":"list_classes","outcome":"ok","duration_ms":37,"upstream_requests":4}`},
		{"fractional class id", &caller{principal: token, requestID: "r"}, "get_assignment", jsjson.NewObject(1).Set("class_id", 3.5), OutcomeOK,
			head + `"request_id":"r","token_id":"22222222-3333-4444-8555-666666666666","credential":"api_token","user_id":"10000000-0000-4000-8000-000000000001","tool":"get_assignment","class_id":"3.5","outcome":"ok","duration_ms":37,"upstream_requests":4}`},
		{"class id that is argument text", &caller{principal: token, requestID: "r"}, "get_assignment", jsjson.NewObject(1).Set("class_id", "1 or 1=1"), OutcomeOK,
			head + `"request_id":"r","token_id":"22222222-3333-4444-8555-666666666666","credential":"api_token","user_id":"10000000-0000-4000-8000-000000000001","tool":"get_assignment","outcome":"ok","duration_ms":37,"upstream_requests":4}`},
		{"long unknown tool (ends in …)", &caller{principal: token, requestID: "r"}, strings.Repeat("x", 100), nil, OutcomeUnknownTool,
			head + `"request_id":"r","token_id":"22222222-3333-4444-8555-666666666666","credential":"api_token","user_id":"10000000-0000-4000-8000-000000000001","tool":"` + strings.Repeat("x", 64) + `…","outcome":"unknown_tool","duration_ms":37,"upstream_requests":4}`},
		{"quote in the request id", &caller{principal: token, requestID: `r"1`}, "get_assignment", nil, OutcomeOK,
			head + `"request_id":"r\"1","token_id":"22222222-3333-4444-8555-666666666666","credential":"api_token","user_id":"10000000-0000-4000-8000-000000000001","tool":"get_assignment","outcome":"ok","duration_ms":37,"upstream_requests":4}`},
		{"control character in a tool name", &caller{principal: token, requestID: "r"}, "a\nb", nil, OutcomeUnknownTool,
			head + `"request_id":"r","token_id":"22222222-3333-4444-8555-666666666666","credential":"api_token","user_id":"10000000-0000-4000-8000-000000000001","tool":"a\nb","outcome":"unknown_tool","duration_ms":37,"upstream_requests":4}`},
	}
	attrs := []slog.Attr{slog.String("log", "audit"), slog.String("version", "v1.2.3")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out writeRecorder
			s := &Server{audit: slog.New(slog.NewJSONHandler(&out, nil).WithAttrs(attrs))}
			before := time.Now()
			s.auditToolCall(tt.cl, tt.tool, tt.args, tt.outcome, 37*time.Millisecond, 4)
			if len(out.writes) != 1 {
				t.Fatalf("%d writes, want the line in one: %q", len(out.writes), out.writes)
			}
			line := out.writes[0]
			if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
				t.Fatalf("not one newline-terminated line: %q", line)
			}
			var rec struct{ Time time.Time }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if d := rec.Time.Sub(before); d < -time.Second || d > time.Minute {
				t.Errorf("time %v is not the time of the call (%v)", rec.Time, before)
			}
			stamp, _ := json.Marshal(rec.Time) // slog writes time as encoding/json does
			got := strings.Replace(strings.TrimSuffix(line, "\n"), `"time":`+string(stamp), `"time":"T"`, 1)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("audit line (-want +got):\n%s", diff)
			}
		})
	}
}
