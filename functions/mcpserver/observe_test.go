package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/redact"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/metrics"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// The gateway's Prometheus metrics satisfy the transport's hook.
var _ Metrics = (*metrics.Metrics)(nil)

// fakeMetrics records every hook call as text.
type fakeMetrics struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeMetrics) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}
func (f *fakeMetrics) RPCRequest(method string) { f.add("rpc " + method) }
func (f *fakeMetrics) ToolCall(tool, outcome string, d time.Duration) {
	if d < 0 {
		outcome += " negative duration"
	}
	f.add("tool " + tool + " " + outcome)
}
func (f *fakeMetrics) StreamOpened() { f.add("stream opened") }
func (f *fakeMetrics) StreamClosed() { f.add("stream closed") }
func (f *fakeMetrics) get() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// auditLines decodes the JSON audit lines, dropping time and duration_ms
// (checked separately to be a non-negative number).
func auditLines(t *testing.T, buf *lockedBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if d, ok := m["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("duration_ms = %v", m["duration_ms"])
		}
		delete(m, "time")
		delete(m, "duration_ms")
		out = append(out, m)
	}
	return out
}

// TestMetricsAndAudit checks the hooks for every tool-call outcome: one
// metrics call and one audit line each, with the caller, the class id and
// the upstream request count, and never the arguments.
func TestMetricsAndAudit(t *testing.T) {
	fm := &fakeMetrics{}
	audit := &lockedBuffer{}
	env := newTestEnv(t, func(o *Options) {
		o.Metrics = fm
		o.Audit = slog.New(slog.NewJSONHandler(audit, nil))
	})
	// The gateway's request-id middleware sets the response header.
	env.e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Response().Header().Set(echo.HeaderXRequestID, "req-"+c.Request().Header.Get("X-Test-Seq"))
			return next(c)
		}
	})
	const secretArg = "argument-text-never-logged"
	sendWant := func(seq, auth, body string, status int) {
		t.Helper()
		rec := env.do(http.MethodPost, "", hdr("Authorization", auth, "X-Test-Seq", seq, headerProtocolVersion, "2025-11-25"), body)
		if rec.Code != status {
			t.Fatalf("%s: status %d %s, want %d", seq, rec.Code, rec.Body, status)
		}
	}
	send := func(seq, auth, body string) { t.Helper(); sendWant(seq, auth, body, http.StatusOK) }
	send("1", authGood, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":42,"note":"`+secretArg+`"}}}`)
	hitsAfterOK := env.restHits.Load()
	send("2", authGood, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_assignment","arguments":{"class_id":"7"}}}`)
	send("3", authOther, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{"class_id":"`+secretArg+`"}}}`)
	// A missing scope at a stated revision is a 403 (scope_test.go).
	sendWant("4", authNoScope, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`, http.StatusForbidden)
	send("5", authGood, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	env.srv.callTool = func(context.Context, *userclient.Client, []string, string, *jsjson.Object) (any, error) {
		return nil, errors.New("upstream down")
	}
	send("6", authGood, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`)
	env.srv.callTool = func(context.Context, *userclient.Client, []string, string, *jsjson.Object) (any, error) { panic("bug") }
	send("7", authGood, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`)

	wantMetrics := []string{
		"rpc tools/call", "tool get_assignment ok",
		"rpc tools/call", "tool get_assignment invalid_params",
		"rpc tools/call", "tool no_such_tool unknown_tool",
		"rpc tools/call", "tool get_assignment forbidden",
		"rpc tools/list",
		"rpc tools/call", "tool get_assignment error",
		"rpc tools/call", "tool get_assignment error",
	}
	if diff := cmp.Diff(wantMetrics, fm.get()); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	if hitsAfterOK == 0 {
		t.Fatal("get_assignment made no PostgREST request")
	}
	line := func(seq, token, tool, class, outcome string, upstream int64) map[string]any {
		m := map[string]any{"level": "INFO", "msg": "tool call", "request_id": "req-" + seq, "token_id": token,
			"user_id": "user-a", "tool": tool, "outcome": outcome, "upstream_requests": float64(upstream)}
		if class != "" {
			m["class_id"] = class
		}
		return m
	}
	want := []map[string]any{
		line("1", "token-a", "get_assignment", "42", "ok", hitsAfterOK),
		line("2", "token-a", "get_assignment", "7", "invalid_params", 0),
		line("3", "token-b", "no_such_tool", "", "unknown_tool", 0),
		line("4", "token-c", "get_assignment", "1", "forbidden", 0),
		line("6", "token-a", "get_assignment", "1", "error", 0),
		line("7", "token-a", "get_assignment", "1", "error", 0),
	}
	if diff := cmp.Diff(want, auditLines(t, audit)); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
	if strings.Contains(audit.String(), secretArg) {
		t.Error("argument text reached the audit log")
	}
}

// TestAuditIdentity checks the identity attributes for OAuth principals and
// the cut of long unknown tool names.
func TestAuditIdentity(t *testing.T) {
	audit := &lockedBuffer{}
	s := &Server{audit: slog.New(slog.NewJSONHandler(audit, nil))}
	long := strings.Repeat("x", 100)
	cl := &caller{principal: oauthPrincipal(), requestID: "r"}
	s.auditToolCall(cl, long, jsjson.NewObject(1).Set("class_id", 3.5), OutcomeUnknownTool, time.Millisecond, 2)
	want := []map[string]any{{"level": "INFO", "msg": "tool call", "request_id": "r", "client_id": "client-1", "credential": "supabase",
		"user_id": "user-o", "tool": strings.Repeat("x", 64) + "…", "class_id": "3.5", "outcome": "unknown_tool", "upstream_requests": float64(2)}}
	if diff := cmp.Diff(want, auditLines(t, audit)); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		v    any
		want string
	}{{float64(12), "12"}, {"12", "12"}, {"", ""}, {"12a", ""}, {strings.Repeat("1", 21), ""}, {true, ""}, {nil, ""}} {
		got, _ := classID(jsjson.NewObject(1).Set("class_id", tc.v))
		if got != tc.want {
			t.Errorf("classID(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestCountUpstream checks the counter outside and inside a tool call's
// context, concurrently.
func TestCountUpstream(t *testing.T) {
	CountUpstream(context.Background()) // no counter: nothing happens
	ctx, n := withUpstreamCounter(context.Background())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { CountUpstream(ctx) })
	}
	wg.Wait()
	if n.Load() != 8 {
		t.Errorf("count = %d, want 8", n.Load())
	}
}

// TestStreamMetrics checks that a GET stream is counted open and closed.
func TestStreamMetrics(t *testing.T) {
	fm := &fakeMetrics{}
	env := newTestEnv(t, func(o *Options) { o.Metrics = fm })
	ts, client := liveServer(t, env)
	resp, closeStream := openStream(t, ts, client, authGood)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	waitFor(t, "the stream to be counted", func() bool { return len(fm.get()) == 1 })
	closeStream()
	waitFor(t, "the stream to be released", func() bool { return env.srv.streams.open() == 0 })
	if diff := cmp.Diff([]string{"stream opened", "stream closed"}, fm.get()); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

// TestRedact checks that credential-named values are scrubbed from both the
// text and structuredContent of a result, with a warning that carries no
// value, and that ordinary results and servers without a redactor are left
// alone.
func TestRedact(t *testing.T) {
	leaky := func() any {
		return jsjson.NewObject(2).Set("id", float64(1)).Set("grader_result", jsjson.NewObject(1).
			Set("errors", jsjson.NewObject(2).Set("token", "ghp_leaked123").Set("message", "boom")))
	}
	clean := func() any {
		return jsjson.NewObject(2).Set("id", float64(1)).Set("name", "token_count is a test name, not a key")
	}
	const (
		leakyRedacted = `{"content":[{"type":"text","text":"{\n  \"id\": 1,\n  \"grader_result\": {\n    \"errors\": {\n      \"token\": \"[REDACTED]\",\n      \"message\": \"boom\"\n    }\n  }\n}"}],` +
			`"structuredContent":{"result":{"id":1,"grader_result":{"errors":{"token":"[REDACTED]","message":"boom"}}}}}`
		leakyKept = `{"content":[{"type":"text","text":"{\n  \"id\": 1,\n  \"grader_result\": {\n    \"errors\": {\n      \"token\": \"ghp_leaked123\",\n      \"message\": \"boom\"\n    }\n  }\n}"}],` +
			`"structuredContent":{"result":{"id":1,"grader_result":{"errors":{"token":"ghp_leaked123","message":"boom"}}}}}`
		cleanOut = `{"content":[{"type":"text","text":"{\n  \"id\": 1,\n  \"name\": \"token_count is a test name, not a key\"\n}"}],` +
			`"structuredContent":{"result":{"id":1,"name":"token_count is a test name, not a key"}}}`
	)
	for _, tc := range []struct {
		name     string
		redactor *redact.Redactor
		result   func() any
		want     string
		wantWarn bool
	}{
		{"scrubbed", redact.New(nil), leaky, leakyRedacted, true},
		{"clean output untouched", redact.New(nil), clean, cleanOut, false},
		{"no redactor", nil, leaky, leakyKept, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.Redact = tc.redactor })
			env.srv.callTool = func(context.Context, *userclient.Client, []string, string, *jsjson.Object) (any, error) {
				return tc.result(), nil
			}
			rec := env.do(http.MethodPost, "", hdr("Authorization", authGood, headerProtocolVersion, "2025-06-18"),
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_submission","arguments":{}}}`)
			if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"result":`+tc.want+`}`, rec.Body.String()); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			warned := strings.Contains(env.logs.String(), `"level":"WARN","msg":"mcp-server: redacted credential-named values from a tool result","tool":"get_submission","values":1`)
			if warned != tc.wantWarn {
				t.Errorf("warning logged = %v, want %v; logs:\n%s", warned, tc.wantWarn, env.logs)
			}
			if tc.redactor != nil && strings.Contains(env.logs.String(), "ghp_leaked123") {
				t.Error("the redacted value reached the logs")
			}
		})
	}
}

// TestToolOutcome maps registry errors to outcomes, wrapped or not.
func TestToolOutcome(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, OutcomeOK},
		{errors.New("x"), OutcomeError},
		{fmt.Errorf("w: %w", &tools.InvalidParamsError{Message: "m"}), OutcomeInvalidParams},
		{&tools.MissingScopeError{Scope: "mcp:read"}, OutcomeForbidden},
		{&tools.UnknownToolError{Name: "x"}, OutcomeUnknownTool},
	} {
		if got := toolOutcome(tc.err); got != tc.want {
			t.Errorf("toolOutcome(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// oauthPrincipal is a principal authenticated with a Supabase OAuth token.
func oauthPrincipal() *mcpauth.Principal {
	return &mcpauth.Principal{UserID: "user-o", ClientID: "client-1", Kind: mcpauth.KindSupabase, Scopes: []string{"mcp:read"}}
}
