package metrics

import (
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestSeriesAndLabelClamping(t *testing.T) {
	m := New(Options{Functions: []string{"mcp-server"}, Tools: []string{"get_assignment"}, Tables: []string{"assignments"}})
	m.HTTPRequest("mcp-server", "POST", 200, 5*time.Millisecond, false)
	m.HTTPRequest("../../etc/passwd", "BREW", 404, time.Millisecond, false)
	m.RPCRequest("tools/call")
	m.RPCRequest("user-controlled/" + strings.Repeat("x", 100))
	m.ToolCall("get_assignment", "ok", time.Millisecond)
	m.ToolCall("made_up_tool", "ok", time.Millisecond)
	m.AuthOutcome("revoked", "api_token")
	m.Upstream("postgrest", "assignments", 200, time.Millisecond)
	m.Upstream("postgrest", "secret_table", 0, time.Millisecond)
	m.JWTCache(true)
	m.JWTCache(false)
	m.StreamOpened()
	m.Proxied(502)

	checks := []struct {
		got  float64
		want float64
		name string
	}{
		{testutil.ToFloat64(m.httpRequests.WithLabelValues("mcp-server", "POST", "200")), 1, "http known"},
		{testutil.ToFloat64(m.httpRequests.WithLabelValues("other", "other", "404")), 1, "http clamped"},
		{testutil.ToFloat64(m.rpcRequests.WithLabelValues("other")), 1, "rpc clamped"},
		{testutil.ToFloat64(m.toolCalls.WithLabelValues("other", "ok")), 1, "tool clamped"},
		{testutil.ToFloat64(m.authOutcomes.WithLabelValues("revoked", "api_token")), 1, "auth"},
		{testutil.ToFloat64(m.upstream.WithLabelValues("postgrest", "other", "error")), 1, "upstream clamped"},
		{testutil.ToFloat64(m.jwtCache.WithLabelValues("hit")), 1, "jwt hit"},
		{testutil.ToFloat64(m.streamsOpen), 1, "streams"},
		{testutil.ToFloat64(m.proxied.WithLabelValues("502")), 1, "proxied"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, series := range []string{
		"gateway_http_requests_total", "gateway_http_request_duration_seconds", "gateway_mcp_requests_total",
		"gateway_mcp_tool_calls_total", "gateway_mcp_tool_call_duration_seconds", "gateway_auth_outcomes_total",
		"gateway_upstream_requests_total", "gateway_upstream_request_duration_seconds", "gateway_user_jwt_cache_total",
		"gateway_sse_streams_open", "gateway_proxied_requests_total", "go_goroutines",
	} {
		if !strings.Contains(body, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if strings.Contains(body, "passwd") || strings.Contains(body, "secret_table") || strings.Contains(body, "xxxx") {
		t.Error("a user-controlled value reached a label")
	}
}

func TestNilMetricsIsSafe(t *testing.T) {
	var m *Metrics
	m.HTTPRequest("f", "GET", 200, 0, false)
	m.ToolCall("t", "ok", 0)
	m.StreamOpened()
	m.StreamClosed()
	m.JWTCache(true)
}

func TestRoundTripperRecordsUpstreams(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rest/v1/missing" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	m := New(Options{Tables: []string{"assignments"}})
	table := func(r *http.Request) string { return path.Base(r.URL.Path) }
	c := &http.Client{Transport: m.RoundTripper(srv.Client().Transport, "postgrest", table)}
	for _, p := range []string{"/rest/v1/assignments", "/rest/v1/assignments", "/rest/v1/missing"} {
		resp, err := c.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := testutil.ToFloat64(m.upstream.WithLabelValues("postgrest", "assignments", "2xx")); got != 2 {
		t.Errorf("assignments 2xx = %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.upstream.WithLabelValues("postgrest", "other", "4xx")); got != 1 {
		t.Errorf("clamped 4xx = %v, want 1", got)
	}
	var none *Metrics
	if none.RoundTripper(http.DefaultTransport, "x", table) != http.DefaultTransport {
		t.Error("nil metrics must not wrap")
	}
}

// TestRepeatedRecordingAccumulates records the same series many times from
// several goroutines and checks the totals, including a 5xx upstream
// answer.
func TestRepeatedRecordingAccumulates(t *testing.T) {
	m := New(Options{Functions: []string{"mcp-server"}, Tables: []string{"user_roles"}})
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 250 {
				m.HTTPRequest("mcp-server", "POST", 401, time.Millisecond, false)
				m.AuthOutcome("missing", "none")
				m.Upstream("postgrest", "user_roles", 503, time.Millisecond)
				m.RPCRequest("tools/list")
			}
		}()
	}
	for range 4 {
		<-done
	}
	for _, c := range []struct {
		name string
		got  float64
	}{
		{"http 401", testutil.ToFloat64(m.httpRequests.WithLabelValues("mcp-server", "POST", "401"))},
		{"auth missing", testutil.ToFloat64(m.authOutcomes.WithLabelValues("missing", "none"))},
		{"upstream 5xx", testutil.ToFloat64(m.upstream.WithLabelValues("postgrest", "user_roles", "5xx"))},
		{"rpc tools/list", testutil.ToFloat64(m.rpcRequests.WithLabelValues("tools/list"))},
	} {
		if c.got != 1000 {
			t.Errorf("%s = %v, want 1000", c.name, c.got)
		}
	}
	if n := testutil.CollectAndCount(m.httpDuration); n != 1 {
		t.Errorf("%d duration series, want 1", n)
	}
}
