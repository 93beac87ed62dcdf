package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMetricsAndAuditAfterTraffic drives real traffic through the wired
// functions and checks that the series operators rely on move, with the
// expected labels, and that each tools/call leaves one audit line.
func TestMetricsAndAuditAfterTraffic(t *testing.T) {
	vars := map[string]string{
		"SUPABASE_URL":              env.URL,
		"SUPABASE_ANON_KEY":         env.AnonKey,
		"SUPABASE_SERVICE_ROLE_KEY": env.ServiceRoleKey,
		"MCP_JWT_SECRET":            e2eSecret,
		"JWT_SECRET":                env.SigningJWK,
		// Loopback like the stack's Auth, which the metadata advertises.
		"GATEWAY_PUBLIC_URL": "http://gateway.localhost",
	}
	for k, v := range env.GatewayVars() {
		vars[k] = v
	}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	var auditLog syncBuffer
	// The JSON audit log as main builds it.
	w, err := buildFunctions(cfg, slog.New(slog.DiscardHandler), newAuditLog(cfg, &auditLog))
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	srv, err := gateway.New(gateway.Options{Functions: w.functions, Pre: w.pre, Routes: w.routes, ObserveRequest: w.metrics.HTTPRequest})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	mcp := hs.URL + "/functions/v1/mcp-server"

	alice := "Bearer " + env.SessionToken(t, gatewaytest.Alice)
	if r := call(t, "POST", mcp, alice, getAssignment); r.status != 200 || r.body != assignmentText {
		t.Fatalf("tools/call: %d %s", r.status, r.body)
	}
	if r := call(t, "POST", mcp, "Bearer garbage", getAssignment); r.status != 401 {
		t.Fatalf("bad token: %d", r.status)
	}
	if r := call(t, "GET", hs.URL+"/functions/v1/mcp-tokens", alice, ""); r.status != 200 {
		t.Fatalf("mcp-tokens list: %d %s", r.status, r.body)
	}

	rec := httptest.NewRecorder()
	w.metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	want := []string{
		`gateway_auth_outcomes_total{credential="supabase",reason="ok"} 1`,
		`gateway_auth_outcomes_total{credential="other",reason="invalid"} 1`,
		`gateway_auth_outcomes_total{credential="session",reason="ok"} 1`,
		`gateway_user_jwt_cache_total{result="miss"} 1`,
		`gateway_upstream_requests_total{endpoint="assignments",status="2xx",upstream="postgrest"} 1`,
		`gateway_upstream_requests_total{endpoint="user",status="2xx",upstream="auth"} 2`,
		`gateway_mcp_tool_calls_total{outcome="ok",tool="get_assignment"} 1`,
		`gateway_mcp_requests_total{method="tools/call"} 1`,
		`gateway_http_requests_total{function="mcp-server",method="POST",status="200"} 1`,
		`gateway_http_requests_total{function="mcp-server",method="POST",status="401"} 1`,
		`gateway_http_requests_total{function="mcp-tokens",method="GET",status="200"} 1`,
	}
	if env.Stack != nil {
		// The local stack's session tokens are ES256, verified with its
		// JWKS; a real stack's test tokens are HS256 (legacy secret).
		want = append(want, `gateway_upstream_requests_total{endpoint="jwks",status="2xx",upstream="auth"} 1`)
	}
	for _, series := range want {
		if !strings.Contains(string(body), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if strings.Contains(string(body), gatewaytest.Alice) {
		t.Error("a user id reached a metric label")
	}

	lines := strings.Split(strings.TrimSpace(auditLog.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("audit lines = %d, want 1 (one per tools/call):\n%s", len(lines), auditLog.String())
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"msg": "tool call", "log": "audit", "tool": "get_assignment", "user_id": gatewaytest.Alice, "class_id": "1", "outcome": "ok", "credential": "supabase"} {
		if line[k] != want {
			t.Errorf("audit %s = %v, want %v (line %s)", k, line[k], want, lines[0])
		}
	}
	if n, _ := line["upstream_requests"].(float64); n != 1 {
		t.Errorf("audit upstream_requests = %v, want 1", line["upstream_requests"])
	}
	for _, forbidden := range []string{"Hello World", "assignment_id"} {
		if strings.Contains(lines[0], forbidden) {
			t.Errorf("audit line leaks %q: %s", forbidden, lines[0])
		}
	}
}
