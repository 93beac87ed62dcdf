// Package metrics defines the gateway's Prometheus series in one place, so
// every label set is visible at a glance and none can take a user-supplied
// or unbounded value (no ids, no tokens, no raw paths). Callers record
// through methods that clamp labels to known values.
package metrics

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the collectors. A nil *Metrics records nothing, so code
// paths and tests can run without a registry.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	rpcRequests  *prometheus.CounterVec
	toolCalls    *prometheus.CounterVec
	toolDuration *prometheus.HistogramVec
	authOutcomes *prometheus.CounterVec
	upstream     *prometheus.CounterVec
	upstreamTime *prometheus.HistogramVec
	jwtCache     *prometheus.CounterVec
	streamsOpen  prometheus.Gauge
	proxied      *prometheus.CounterVec
	knownFuncs   []string
	knownTools   []string
	knownMethods []string
	knownTables  []string
}

// Options lists the label values that may appear; anything else is
// recorded as "other".
type Options struct {
	Functions []string // function slugs, e.g. mcp-server
	Tools     []string // tool names
	Tables    []string // PostgREST tables the gateway queries
}

// New registers every series on a fresh registry (plus Go and process
// collectors).
func New(opts Options) *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	latency := []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	m := &Metrics{
		reg: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_http_requests_total", Help: "HTTP requests by function, method and status code."},
			[]string{"function", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gateway_http_request_duration_seconds", Help: "HTTP request latency by function and method (SSE streams excluded).", Buckets: latency},
			[]string{"function", "method"}),
		rpcRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_mcp_requests_total", Help: "MCP JSON-RPC requests by method."},
			[]string{"method"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_mcp_tool_calls_total", Help: "MCP tool calls by tool and outcome (ok, error, invalid_params, forbidden, unknown_tool, read_failed, rate_limited)."},
			[]string{"tool", "outcome"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gateway_mcp_tool_call_duration_seconds", Help: "MCP tool call latency by tool.", Buckets: latency},
			[]string{"tool"}),
		authOutcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_auth_outcomes_total", Help: "Authentication outcomes by reason and credential type."},
			[]string{"reason", "credential"}),
		upstream: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_upstream_requests_total", Help: "Requests to PostgREST, Auth and GitHub by upstream, endpoint class and status class."},
			[]string{"upstream", "endpoint", "status"}),
		upstreamTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gateway_upstream_request_duration_seconds", Help: "Upstream request latency by upstream and endpoint class.", Buckets: latency},
			[]string{"upstream", "endpoint"}),
		jwtCache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_user_jwt_cache_total", Help: "Per-user JWT cache look-ups by result (hit, miss)."},
			[]string{"result"}),
		streamsOpen: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gateway_sse_streams_open", Help: "Open server-to-client SSE streams."}),
		proxied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_proxied_requests_total", Help: "Requests for other functions proxied to the fallback upstream, by status code."},
			[]string{"status"}),
		knownFuncs:   opts.Functions,
		knownTools:   opts.Tools,
		knownMethods: rpcMethods,
		knownTables:  opts.Tables,
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.rpcRequests, m.toolCalls, m.toolDuration,
		m.authOutcomes, m.upstream, m.upstreamTime, m.jwtCache, m.streamsOpen, m.proxied)
	return m
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry exposes the registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func clamp(v string, known []string) string {
	if slices.Contains(known, v) {
		return v
	}
	return "other"
}

// HTTPRequest records one finished HTTP request. Streams pass stream=true
// so their lifetime does not distort the latency histogram.
func (m *Metrics) HTTPRequest(function, method string, status int, d time.Duration, stream bool) {
	if m == nil {
		return
	}
	function = clamp(function, m.knownFuncs)
	method = clamp(method, []string{"GET", "POST", "DELETE", "OPTIONS", "PUT", "PATCH", "HEAD"})
	m.httpRequests.WithLabelValues(function, method, strconv.Itoa(status)).Inc()
	if !stream {
		m.httpDuration.WithLabelValues(function, method).Observe(d.Seconds())
	}
}

// rpcMethods are the JSON-RPC methods counted by name; any other is
// "other", so a client cannot grow the label set.
var rpcMethods = []string{"initialize", "ping", "tools/list", "tools/call", "notifications/initialized",
	"notifications/cancelled", "server/discover", "subscriptions/listen",
	"resources/list", "resources/read", "resources/templates/list"}

// RPCRequest records one JSON-RPC request by method.
func (m *Metrics) RPCRequest(method string) {
	if m == nil {
		return
	}
	m.rpcRequests.WithLabelValues(clamp(method, m.knownMethods)).Inc()
}

// ToolCall records one tools/call.
func (m *Metrics) ToolCall(tool, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	tool = clamp(tool, m.knownTools)
	outcome = clamp(outcome, []string{"ok", "error", "invalid_params", "forbidden", "unknown_tool", "read_failed", "rate_limited"})
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
	m.toolDuration.WithLabelValues(tool).Observe(d.Seconds())
}

// AuthOutcome records an authentication result; reason is "ok" on success
// or an apierror reason (missing, malformed, invalid, revoked, forbidden,
// upstream, config).
func (m *Metrics) AuthOutcome(reason, credential string) {
	if m == nil {
		return
	}
	reason = clamp(reason, []string{"ok", "missing", "malformed", "invalid", "revoked", "forbidden", "upstream", "config", "internal"})
	credential = clamp(credential, []string{"api_token", "supabase", "session", "none"})
	m.authOutcomes.WithLabelValues(reason, credential).Inc()
}

// Upstream records a request to an upstream. endpoint is a table for
// PostgREST, a route class for Auth and GitHub; status 0 means no answer.
func (m *Metrics) Upstream(upstream, endpoint string, status int, d time.Duration) {
	if m == nil {
		return
	}
	upstream = clamp(upstream, []string{"postgrest", "auth", "github", "jwks"})
	if upstream == "postgrest" {
		endpoint = clamp(endpoint, m.knownTables)
	} else {
		endpoint = clamp(endpoint, []string{"user", "jwks", "installation", "token", "contents", "other"})
	}
	m.upstream.WithLabelValues(upstream, endpoint, statusClass(status)).Inc()
	m.upstreamTime.WithLabelValues(upstream, endpoint).Observe(d.Seconds())
}

// statusClass names a status's class for the label: "2xx", or "error" for
// status 0 (no answer).
func statusClass(status int) string {
	if status < 100 {
		return "error"
	}
	return strconv.Itoa(status/100) + "xx"
}

// JWTCache records a per-user JWT cache look-up.
func (m *Metrics) JWTCache(hit bool) {
	if m == nil {
		return
	}
	if hit {
		m.jwtCache.WithLabelValues("hit").Inc()
	} else {
		m.jwtCache.WithLabelValues("miss").Inc()
	}
}

// StreamOpened and StreamClosed track open SSE streams.
func (m *Metrics) StreamOpened() {
	if m != nil {
		m.streamsOpen.Inc()
	}
}

// StreamClosed decrements the open-stream gauge.
func (m *Metrics) StreamClosed() {
	if m != nil {
		m.streamsOpen.Dec()
	}
}

// Proxied records one request sent to the fallback upstream.
func (m *Metrics) Proxied(status int) {
	if m != nil {
		m.proxied.WithLabelValues(strconv.Itoa(status)).Inc()
	}
}
