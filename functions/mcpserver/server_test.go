package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

const (
	ctJSON = "application/json"
	ctSSE  = "text/event-stream"
)

// envJSON is the transport error envelope.
func envJSON(code int, msg string) string {
	return `{"jsonrpc":"2.0","id":null,"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`
}

// httpCase is one request and the exact answer expected.
type httpCase struct {
	name       string
	method     string
	path       string
	header     map[string]string
	body       string
	wantStatus int
	wantHeader map[string]string // "" = absent
	wantBody   string
	// wantAuthCalls and wantTouches count Authenticate and TouchLastUsed
	// calls; -1 skips the check.
	wantAuthCalls, wantTouches int
}

func runCases(t *testing.T, cases []httpCase, mod func(*Options)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, mod)
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			rec := env.do(method, tc.path, tc.header, tc.body)
			if rec.Code != tc.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tc.wantStatus)
			}
			checkHeaders(t, rec.Header(), corsFor(env, method, tc.header))
			checkHeaders(t, rec.Header(), tc.wantHeader)
			if diff := cmp.Diff(tc.wantBody, rec.Body.String()); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
			if tc.wantAuthCalls >= 0 {
				if got := env.auth.calls.Load(); got != int64(tc.wantAuthCalls) {
					t.Errorf("Authenticate called %d times, want %d", got, tc.wantAuthCalls)
				}
			}
			if tc.wantTouches >= 0 {
				if got := env.auth.touches.Load(); got != int64(tc.wantTouches) {
					t.Errorf("TouchLastUsed called %d times, want %d", got, tc.wantTouches)
				}
			}
		})
	}
}

// hdr builds a header map from pairs.
func hdr(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var (
	jsonHeader  = hdr("Content-Type", ctJSON)
	emptyHeader = hdr("Content-Type", "", "Mcp-Session-Id", "", "WWW-Authenticate", "")
)

// TestRouting covers docs/contract/protocol.md A1: every method, every mount point.
func TestRouting(t *testing.T) {
	cases := []httpCase{
		{name: "OPTIONS preflight", method: http.MethodOptions, header: hdr("Access-Control-Request-Method", "POST"),
			wantStatus: 200, wantHeader: hdr("Content-Type", "text/plain;charset=UTF-8"), wantBody: "ok"},
		{name: "OPTIONS under short mount", method: http.MethodOptions, path: "/mcp-server",
			wantStatus: 200, wantHeader: hdr("Content-Type", "text/plain;charset=UTF-8"), wantBody: "ok"},
		{name: "OPTIONS sub-path", method: http.MethodOptions, path: "/functions/v1/mcp-server/anything/else",
			wantStatus: 200, wantBody: "ok"},
		{name: "DELETE ends nothing", method: http.MethodDelete, header: hdr("Mcp-Session-Id", "abc"),
			wantStatus: 202, wantHeader: emptyHeader},
		{name: "DELETE with bad auth is still 202", method: http.MethodDelete, header: hdr("Authorization", authBad),
			wantStatus: 202, wantHeader: emptyHeader},
		{name: "PUT", method: http.MethodPut, header: hdr("Authorization", authGood), body: `{}`,
			wantStatus: 405, wantHeader: jsonHeader, wantBody: `{"error":"Method not allowed"}`},
		{name: "PATCH short mount", method: http.MethodPatch, path: "/mcp-server/",
			wantStatus: 405, wantHeader: jsonHeader, wantBody: `{"error":"Method not allowed"}`},
		{name: "HEAD", method: http.MethodHead,
			wantStatus: 405, wantHeader: jsonHeader, wantBody: `{"error":"Method not allowed"}`},
		{name: "TRACE", method: http.MethodTrace,
			wantStatus: 405, wantHeader: jsonHeader, wantBody: `{"error":"Method not allowed"}`},
		{name: "POST on sub-path", path: "/functions/v1/mcp-server/x", header: hdr("Authorization", authGood),
			body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, wantStatus: 200, wantHeader: jsonHeader,
			wantBody: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantAuthCalls: 1, wantTouches: 1},
	}
	for i := range cases {
		if cases[i].path != "/functions/v1/mcp-server/x" {
			cases[i].wantAuthCalls, cases[i].wantTouches = 0, 0
		}
	}
	runCases(t, cases, nil)
}

// TestPOSTAuth covers A2 step 1 and A5: authentication comes first and
// failures use the transport envelope.
func TestPOSTAuth(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	cases := []httpCase{
		{name: "missing header", body: ping, wantStatus: 401, wantHeader: hdr("Content-Type", ctJSON, "WWW-Authenticate", ""),
			wantBody: envJSON(-32000, "Missing Authorization header"), wantAuthCalls: 1},
		{name: "malformed header", header: hdr("Authorization", "Token abc"), body: ping, wantStatus: 401, wantHeader: jsonHeader,
			wantBody: envJSON(-32000, "Invalid Authorization header format"), wantAuthCalls: 1},
		{name: "invalid token", header: hdr("Authorization", authBad), body: ping, wantStatus: 401, wantHeader: jsonHeader,
			wantBody: envJSON(-32000, "Invalid or expired API token"), wantAuthCalls: 1},
		{name: "not staff", header: hdr("Authorization", authForbidden), body: ping, wantStatus: 403, wantHeader: jsonHeader,
			wantBody: envJSON(-32603, "User must be an instructor or grader in at least one class"), wantAuthCalls: 1},
		{name: "config error", header: hdr("Authorization", authConfig), body: ping, wantStatus: 500, wantHeader: jsonHeader,
			wantBody: envJSON(-32603, "MCP_JWT_SECRET must be set and at least 32 characters"), wantAuthCalls: 1},
		{name: "upstream down", header: hdr("Authorization", authDown), body: ping, wantStatus: 503, wantHeader: jsonHeader,
			wantBody: envJSON(-32603, "Could not verify token revocation status: connection refused"), wantAuthCalls: 1},
		{name: "non-apierror hides its text", header: hdr("Authorization", authPlainErr), body: ping, wantStatus: 500, wantHeader: jsonHeader,
			wantBody: envJSON(-32603, "Internal server error"), wantAuthCalls: 1},
		{name: "user client fails", header: hdr("Authorization", authNoUser), body: ping, wantStatus: 500, wantHeader: jsonHeader,
			wantBody: envJSON(-32603, "JWT_SECRET must be set. Generate with: supabase gen signing-key --algorithm ES256"), wantAuthCalls: 1},
		{name: "auth before parse", header: hdr("Authorization", authBad), body: `{nope`, wantStatus: 401, wantHeader: jsonHeader,
			wantBody: envJSON(-32000, "Invalid or expired API token"), wantAuthCalls: 1},
		{name: "auth before body limit", header: hdr("Authorization", authBad), body: strings.Repeat(" ", 5<<20) + ping, wantStatus: 401,
			wantHeader: jsonHeader, wantBody: envJSON(-32000, "Invalid or expired API token"), wantAuthCalls: 1},
		{name: "touch after auth even when parse fails", header: hdr("Authorization", authGood), body: `{nope`, wantStatus: 400,
			wantHeader: jsonHeader, wantBody: envJSON(-32700, "Parse error"), wantAuthCalls: 1, wantTouches: 1},
	}
	runCases(t, cases, nil)
}

// TestChallenge covers the WWW-Authenticate header added when a resource
// metadata URL is configured (RFC 6750 / RFC 9728), on POST and GET.
func TestChallenge(t *testing.T) {
	const meta = "https://pawtograder.example/.well-known/oauth-protected-resource/functions/v1/mcp-server"
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	sse := "text/event-stream"
	cases := []httpCase{
		{name: "POST missing", body: ping, wantStatus: 401,
			wantHeader: hdr("WWW-Authenticate", `Bearer resource_metadata="`+meta+`"`),
			wantBody:   envJSON(-32000, "Missing Authorization header"), wantAuthCalls: 1},
		{name: "POST malformed", header: hdr("Authorization", "Token abc"), body: ping, wantStatus: 401,
			wantHeader: hdr("WWW-Authenticate", `Bearer resource_metadata="`+meta+`", error="invalid_request"`),
			wantBody:   envJSON(-32000, "Invalid Authorization header format"), wantAuthCalls: 1},
		{name: "POST refused", header: hdr("Authorization", authBad), body: ping, wantStatus: 401,
			wantHeader: hdr("WWW-Authenticate", `Bearer resource_metadata="`+meta+`", error="invalid_token"`),
			wantBody:   envJSON(-32000, "Invalid or expired API token"), wantAuthCalls: 1},
		{name: "POST 403 has no challenge", header: hdr("Authorization", authForbidden), body: ping, wantStatus: 403,
			wantHeader: hdr("WWW-Authenticate", ""),
			wantBody:   envJSON(-32603, "User must be an instructor or grader in at least one class"), wantAuthCalls: 1},
		{name: "POST 500 has no challenge", header: hdr("Authorization", authConfig), body: ping, wantStatus: 500,
			wantHeader: hdr("WWW-Authenticate", ""),
			wantBody:   envJSON(-32603, "MCP_JWT_SECRET must be set and at least 32 characters"), wantAuthCalls: 1},
		{name: "GET refused", method: http.MethodGet, header: hdr("Authorization", authBad, "Accept", sse), wantStatus: 401,
			wantHeader: hdr("WWW-Authenticate", `Bearer resource_metadata="`+meta+`", error="invalid_token"`, "Content-Type", ctJSON),
			wantBody:   `{"error":"Invalid or expired API token"}`, wantAuthCalls: 1},
		{name: "GET 406 has no challenge", method: http.MethodGet, wantStatus: 406,
			wantHeader: hdr("WWW-Authenticate", ""), wantBody: `{"error":"Must accept text/event-stream"}`},
	}
	for i := range cases {
		cases[i].wantTouches = 0
	}
	runCases(t, cases, func(o *Options) { o.ResourceMetadataURL = meta })
}

// TestPOSTBody covers A2 step 3 and its improvements: parse errors, size
// limits and the body's top-level type.
func TestPOSTBody(t *testing.T) {
	good := hdr("Authorization", authGood)
	cases := []httpCase{
		{name: "empty body", header: good, body: "", wantStatus: 400, wantHeader: jsonHeader, wantBody: envJSON(-32700, "Parse error")},
		{name: "invalid JSON", header: good, body: `{"jsonrpc":`, wantStatus: 400, wantHeader: jsonHeader, wantBody: envJSON(-32700, "Parse error")},
		{name: "trailing garbage", header: good, body: `{"id":1,"method":"ping"} x`, wantStatus: 400, wantHeader: jsonHeader, wantBody: envJSON(-32700, "Parse error")},
		{name: "two values", header: good, body: `{"id":1,"method":"ping"}{}`, wantStatus: 400, wantHeader: jsonHeader, wantBody: envJSON(-32700, "Parse error")},
		{name: "UTF-8 BOM", header: good, body: "\ufeff" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`, wantStatus: 400, wantHeader: jsonHeader, wantBody: envJSON(-32700, "Parse error")},
		{name: "null body", header: good, body: `null`, wantStatus: 400, wantHeader: jsonHeader, wantBody: envJSON(-32600, "Invalid Request")},
		{name: "string body", header: good, body: `"ping"`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "number body", header: good, body: `42`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "boolean body", header: good, body: ` true `, wantStatus: 202, wantHeader: emptyHeader},
		{name: "white space around", header: good, body: "\r\n\t {\"id\":1,\"method\":\"ping\"}\n", wantStatus: 200, wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{name: "over the limit", header: good, body: `{"id":1,"method":"ping","pad":"` + strings.Repeat("x", 200) + `"}`, wantStatus: 413,
			wantHeader: jsonHeader, wantBody: envJSON(-32600, "Request body too large")},
		{name: "exactly the limit", header: good, body: `{"id":1,"method":"ping","p":"` + strings.Repeat("x", 128-31) + `"}`, wantStatus: 200,
			wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":1,"result":{}}`},
	}
	for i := range cases {
		cases[i].wantAuthCalls, cases[i].wantTouches = 1, 1
	}
	if n := len(cases[len(cases)-1].body); n != 128 {
		t.Fatalf("limit case is %d bytes, want 128", n)
	}
	runCases(t, cases, func(o *Options) { o.MaxBodyBytes = 128 })

	deep := []httpCase{
		{name: "too deep", header: good, body: strings.Repeat("[", 600) + strings.Repeat("]", 600), wantStatus: 400,
			wantHeader: jsonHeader, wantBody: envJSON(-32700, "Parse error"), wantAuthCalls: 1, wantTouches: 1},
		{name: "deep but allowed", header: good, body: `{"id":1,"method":"ping","params":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`,
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantAuthCalls: 1, wantTouches: 1},
	}
	runCases(t, deep, nil)
}

// TestPOSTSingle covers A3 and A3.1.
func TestPOSTSingle(t *testing.T) {
	good := hdr("Authorization", authGood)
	const initResult = `{"protocolVersion":"2024-11-05","serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{}}}`
	ok := func(id, result string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}` }
	fail := func(id string, code int, msg string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `"}}`
	}
	cases := []httpCase{
		{name: "initialize", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
			wantBody: ok("1", initResult)},
		{name: "initialize with SSE-only Accept is still JSON", header: hdr("Accept", "text/event-stream"),
			body: `{"jsonrpc":"2.0","id":"a","method":"initialize"}`, wantBody: ok(`"a"`, initResult)},
		{name: "ping", body: `{"jsonrpc":"2.0","id":7,"method":"ping"}`, wantBody: ok("7", "{}")},
		{name: "jsonrpc member not checked", body: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, wantBody: ok("7", "{}")},
		{name: "no jsonrpc member", body: `{"id":7,"method":"ping","params":[1]}`, wantBody: ok("7", "{}")},
		{name: "id 1e3 re-printed", body: `{"id":1e3,"method":"ping"}`, wantBody: ok("1000", "{}")},
		{name: "id beyond 2^64", body: `{"id":12345678901234567890,"method":"ping"}`, wantBody: ok("12345678901234567000", "{}")},
		{name: "id 2^53+1", body: `{"id":9007199254740993,"method":"ping"}`, wantBody: ok("9007199254740992", "{}")},
		{name: "id fraction", body: `{"id":-1.50,"method":"ping"}`, wantBody: ok("-1.5", "{}")},
		{name: "id small exponent", body: `{"id":0.0000001,"method":"ping"}`, wantBody: ok("1e-7", "{}")},
		{name: "id overflow echoed as sent (deviation S18)", body: `{"id":1e999,"method":"ping"}`, wantBody: ok("1e999", "{}")},
		{name: "id negative zero", body: `{"id":-0,"method":"ping"}`, wantBody: ok("0", "{}")},
		{name: "id string escapes normalised", body: `{"id":"\u0041\/<\u2028>","method":"ping"}`, wantBody: ok("\"A/<\u2028>\"", "{}")},
		{name: "id empty string", body: `{"id":"","method":"ping"}`, wantBody: ok(`""`, "{}")},
		{name: "id false", body: `{"id":false,"method":"ping"}`, wantBody: ok("false", "{}")},
		{name: "id object keeps key order", body: `{"id":{"b":1,"a":[true,null],"b":2},"method":"ping"}`, wantBody: ok(`{"b":2,"a":[true,null]}`, "{}")},
		{name: "id object with index keys", body: `{"id":{"b":1,"2":0,"1":0},"method":"ping"}`, wantBody: ok(`{"1":0,"2":0,"b":1}`, "{}")},
		{name: "id lone surrogate kept", body: `{"id":"\ud800x","method":"ping"}`, wantBody: ok(`"\ud800x"`, "{}")},
		{name: "id surrogate pair joined", body: `{"id":"\ud83d\ude00","method":"ping"}`, wantBody: ok(`"😀"`, "{}")},
		{name: "id invalid UTF-8 becomes U+FFFD", body: "{\"id\":\"a\xffb\",\"method\":\"ping\"}", wantBody: ok("\"a\ufffdb\"", "{}")},
		{name: "id after method", body: `{"method":"ping","id":3}`, wantBody: ok("3", "{}")},
		{name: "duplicate id last wins", body: `{"id":1,"method":"ping","id":2}`, wantBody: ok("2", "{}")},
		{name: "header ignored when pinned", header: hdr("MCP-Protocol-Version", "1999-01-01"), body: `{"id":1,"method":"ping"}`, wantBody: ok("1", "{}")},
		{name: "server/discover is answered at once", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, wantBody: fail("1", -32601, "Method not found: server/discover")},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, wantBody: fail("1", -32601, "Method not found: resources/list")},
		{name: "notifications/cancelled with id", body: `{"id":1,"method":"notifications/cancelled"}`, wantBody: fail("1", -32601, "Method not found: notifications/cancelled")},
		{name: "missing method", body: `{"jsonrpc":"2.0","id":1}`, wantBody: fail("1", -32601, "Method not found: undefined")},
		{name: "null method", body: `{"id":1,"method":null}`, wantBody: fail("1", -32601, "Method not found: null")},
		{name: "number method", body: `{"id":1,"method":1e21}`, wantBody: fail("1", -32601, "Method not found: 1e+21")},
		{name: "array method is not ping", body: `{"id":1,"method":["ping"]}`, wantBody: fail("1", -32601, "Method not found: ping")},
		{name: "nested array method", body: `{"id":1,"method":[1,[null,"a"],{},true]}`, wantBody: fail("1", -32601, "Method not found: 1,,a,[object Object],true")},
		{name: "object method", body: `{"id":1,"method":{"x":1}}`, wantBody: fail("1", -32601, "Method not found: [object Object]")},
		{name: "case-sensitive method", body: `{"id":1,"method":"Ping"}`, wantBody: fail("1", -32601, "Method not found: Ping")},
		{name: "method with quotes", body: `{"id":1,"method":"a\"b\n"}`, wantBody: fail("1", -32601, `Method not found: a\"b\n`)},
		{name: "unknown tool", body: `{"id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, wantBody: fail("1", -32000, "Unknown tool: nope")},
		{name: "tool name missing", body: `{"id":1,"method":"tools/call","params":{}}`, wantBody: fail("1", -32000, "Unknown tool: undefined")},
		{name: "tool name null", body: `{"id":1,"method":"tools/call","params":{"name":null}}`, wantBody: fail("1", -32000, "Unknown tool: null")},
		{name: "tool name number", body: `{"id":1,"method":"tools/call","params":{"name":5}}`, wantBody: fail("1", -32000, "Unknown tool: 5")},
		{name: "params missing", body: `{"id":1,"method":"tools/call"}`, wantBody: fail("1", -32000, "Unknown tool: undefined")},
		{name: "params a string", body: `{"id":1,"method":"tools/call","params":"get_assignment"}`, wantBody: fail("1", -32000, "Unknown tool: undefined")},
		{name: "prototype names are unknown", body: `{"id":1,"method":"tools/call","params":{"name":"constructor"}}`, wantBody: fail("1", -32000, "Unknown tool: constructor")},
		{name: "missing scope", header: hdr("Authorization", authNoScope), body: `{"id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`,
			wantBody: fail("1", -32000, "Missing required scope: mcp:read")},
		{name: "no scope can still list", header: hdr("Authorization", authNoScope), body: `{"id":1,"method":"ping"}`, wantBody: ok("1", "{}")},
		{name: "unknown tool before scope", header: hdr("Authorization", authNoScope), body: `{"id":1,"method":"tools/call","params":{"name":"nope"}}`,
			wantBody: fail("1", -32000, "Unknown tool: nope")},
		{name: "invalid params", body: `{"id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1}}}`,
			wantBody: fail("1", -32602, "Invalid params: missing required argument 'class_id' for tool get_assignment")},
		{name: "arguments not an object count as {}", body: `{"id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":"x"}}`,
			wantBody: fail("1", -32602, "Invalid params: missing required argument 'assignment_id' for tool get_assignment")},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"ping"}`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "null id is a notification", body: `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"nope"}}`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "notifications/initialized", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "notifications/initialized with id", body: `{"jsonrpc":"2.0","id":5,"method":"notifications/initialized"}`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "response with id is dispatched like the original", body: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantBody: fail("1", -32601, "Method not found: undefined")},
		{name: "Content-Type and session id are not checked", header: hdr("Content-Type", "text/plain", "Mcp-Session-Id", "nope"), body: `{"id":1,"method":"ping"}`, wantBody: ok("1", "{}")},
		{name: "response object", body: `{"jsonrpc":"2.0","result":{}}`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "empty object", body: `{}`, wantStatus: 202, wantHeader: emptyHeader},
	}
	for i := range cases {
		tc := &cases[i]
		if tc.header == nil {
			tc.header = good
		} else if tc.header["Authorization"] == "" {
			tc.header["Authorization"] = authGood
		}
		if tc.wantStatus == 0 {
			tc.wantStatus = 200
			tc.wantHeader = jsonHeader
		}
		tc.wantAuthCalls, tc.wantTouches = 1, 1
	}
	// The original's fixed answer; negotiation is TestProtocolVersions.
	runCases(t, cases, func(o *Options) { o.PinProtocol2024 = true })
}

// TestPOSTBatch covers A4 and the Accept rules of A2 step 4.
func TestPOSTBatch(t *testing.T) {
	const (
		ping     = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		ping2    = `{"jsonrpc":"2.0","id":"two","method":"ping"}`
		initd    = `{"jsonrpc":"2.0","id":9,"method":"notifications/initialized"}`
		notif    = `{"jsonrpc":"2.0","method":"ping"}`
		pingResp = `{"jsonrpc":"2.0","id":1,"result":{}}`
		invalid  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	)
	sseHeader := hdr("Content-Type", ctSSE, "Cache-Control", "no-cache", "Connection", "")
	cases := []httpCase{
		{name: "empty batch", body: `[]`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "only notifications", body: `[` + notif + `,` + notif + `]`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "only responses", body: `[{"jsonrpc":"2.0","id":1,"result":{}}]`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "null id skipped", body: `[{"id":null,"method":"ping"}]`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "nested batch skipped", body: `[[` + ping + `]]`, wantStatus: 202, wantHeader: emptyHeader},
		{name: "nested array beside a request", body: `[` + ping + `,[]]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + pingResp + `]`},
		{name: "method key with null value counts", body: `[{"id":1,"method":null}]`, wantStatus: 200, wantHeader: jsonHeader,
			wantBody: `[{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: null"}}]`},
		{name: "only initialized with id", body: `[` + initd + `]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[]`},
		{name: "only initialized with id, SSE", header: hdr("Accept", "text/event-stream"), body: `[` + initd + `]`,
			wantStatus: 200, wantHeader: sseHeader, wantBody: ``},
		{name: "primitive element is invalid", body: `[1]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + invalid + `]`},
		{name: "null and string elements in order", body: `[null,` + ping + `,"x"]`, wantStatus: 200, wantHeader: jsonHeader,
			wantBody: `[` + invalid + `,` + pingResp + `,` + invalid + `]`},
		{name: "Accept */*", header: hdr("Accept", "*/*"), body: `[` + ping + `]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + pingResp + `]`},
		{name: "Accept both", header: hdr("Accept", "application/json, text/event-stream"), body: `[` + ping + `]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + pingResp + `]`},
		{name: "Accept upper case is neither", header: hdr("Accept", "TEXT/EVENT-STREAM"), body: `[` + ping + `]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + pingResp + `]`},
		{name: "Accept text/html only", header: hdr("Accept", "text/html"), body: `[` + ping + `]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + pingResp + `]`},
		{name: "Accept SSE only", header: hdr("Accept", "text/event-stream"), body: `[` + ping + `,` + ping2 + `]`, wantStatus: 200, wantHeader: sseHeader,
			wantBody: "id: 1\nevent: message\ndata: " + pingResp + "\n\nid: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"two\",\"result\":{}}\n\n"},
		{name: "over the batch limit", body: `[` + strings.Repeat(notif+`,`, 3) + notif + `]`, wantStatus: 400, wantHeader: jsonHeader,
			wantBody: envJSON(-32600, "Batch too large: at most 3 messages")},
		{name: "at the batch limit", body: `[` + ping + `,` + notif + `,` + ping2 + `]`, wantStatus: 200, wantHeader: jsonHeader,
			wantBody: `[` + pingResp + `,{"jsonrpc":"2.0","id":"two","result":{}}]`},
	}
	for i := range cases {
		tc := &cases[i]
		if tc.header == nil {
			tc.header = hdr()
		}
		tc.header["Authorization"] = authGood
		tc.wantAuthCalls, tc.wantTouches = 1, 1
	}
	runCases(t, cases, func(o *Options) { o.MaxBatch = 3 })
}

// TestPOSTBatchGolden pins a mixed batch in both framings.
func TestPOSTBatchGolden(t *testing.T) {
	body := `[
		{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}},
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":2,"method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":"p","method":"ping"},
		{"jsonrpc":"2.0","id":3,"result":{}},
		5,
		{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}},
		{"jsonrpc":"2.0","id":1e2,"method":"resources/list"},
		{"jsonrpc":"2.0","id":[6],"method":"ping"}
	]`
	for _, f := range []struct{ name, accept, ct, file string }{
		{"json", "application/json, text/event-stream", ctJSON, "batch.json.golden"},
		{"sse", "text/event-stream", ctSSE, "batch.sse.golden"},
	} {
		t.Run(f.name, func(t *testing.T) {
			env := newTestEnv(t, nil)
			rec := env.do(http.MethodPost, "", hdr("Authorization", authGood, "Accept", f.accept), body)
			if rec.Code != 200 {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			checkHeaders(t, rec.Header(), hdr("Content-Type", f.ct))
			golden(t, f.file, rec.Body.Bytes())
		})
	}
}

// TestToolsList pins the tools/list answer: catalogue order and the
// name/description/inputSchema key order.
func TestToolsList(t *testing.T) {
	env := newTestEnv(t, nil)
	rec := env.do(http.MethodPost, "", hdr("Authorization", authGood), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}`)
	if rec.Code != 200 {
		t.Fatalf("status = %d, want 200", rec.Code)
	}
	golden(t, "tools_list.golden", rec.Body.Bytes())
	// The order is the contract's (docs/contract/tools.md §3), whatever the golden holds.
	names := []string{"get_help_request", "get_discussion_thread", "get_submission", "list_submission_files",
		"get_submission_files", "list_submission_tests", "get_test_output", "get_submission_build_output",
		"list_grader_files", "get_grader_files", "list_handout_files", "get_handout_files",
		"get_submissions_for_student", "get_assignment", "search_help_requests", "search_discussion_threads"}
	body := rec.Body.String()
	last := 0
	for _, n := range names {
		i := strings.Index(body, `{"name":"`+n+`","description":`)
		if i < last {
			t.Fatalf("tool %s missing or out of order", n)
		}
		last = i
	}
}

// TestToolCallResult pins the tools/call result shape around the tool's
// pretty-printed value.
func TestToolCallResult(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"null", `{"content":[{"type":"text","text":"null"}]}`},
		{"{\n  \"a\": \"<\u2028>\"\n}", `{"content":[{"type":"text","text":"{\n  \"a\": \"<` + "\u2028" + `>\"\n}"}]}`},
	} {
		if diff := cmp.Diff(tc.want, string(toolCallResult([]byte(tc.text), nil))); diff != "" {
			t.Errorf("toolCallResult(%q) (-want +got):\n%s", tc.text, diff)
		}
	}
}

// TestProtocolVersions covers version negotiation (PinProtocol2024 unset):
// the initialize answer, the MCP-Protocol-Version header and batches.
func TestProtocolVersions(t *testing.T) {
	init := func(v string) string { return initializeAnswer(v, false) }
	initReq := func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":` + v + `,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	}
	const (
		ping      = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		pingResp  = `{"jsonrpc":"2.0","id":1,"result":{}}`
		supported = "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"
	)
	cases := []httpCase{
		{name: "2025-11-25", body: initReq(`"2025-11-25"`), wantStatus: 200, wantHeader: jsonHeader, wantBody: init("2025-11-25")},
		{name: "2025-06-18", body: initReq(`"2025-06-18"`), wantStatus: 200, wantHeader: jsonHeader, wantBody: init("2025-06-18")},
		{name: "2025-03-26", body: initReq(`"2025-03-26"`), wantStatus: 200, wantHeader: jsonHeader, wantBody: init("2025-03-26")},
		{name: "2024-11-05", body: initReq(`"2024-11-05"`), wantStatus: 200, wantHeader: jsonHeader, wantBody: init("2024-11-05")},
		{name: "unknown gets the newest", body: initReq(`"2024-10-07"`), wantStatus: 200, wantHeader: jsonHeader, wantBody: init("2025-11-25")},
		{name: "non-string gets the newest", body: initReq(`20241105`), wantStatus: 200, wantHeader: jsonHeader, wantBody: init("2025-11-25")},
		{name: "no params gets the newest", body: `{"id":1,"method":"initialize"}`, wantStatus: 200, wantHeader: jsonHeader, wantBody: init("2025-11-25")},
		{name: "supported header", header: hdr("MCP-Protocol-Version", "2025-06-18"), body: ping, wantStatus: 200, wantHeader: jsonHeader, wantBody: pingResp},
		// An unsupported revision is an UnsupportedProtocolVersionError
		// (-32022, 2026-07-28) echoing the request's id, which a dual-era
		// client recognises and retries from.
		{name: "unsupported header", header: hdr("MCP-Protocol-Version", "2099-01-01"), body: ping, wantStatus: 400, wantHeader: jsonHeader,
			wantBody: `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version: 2099-01-01 (supported versions: 2026-07-28, ` + supported +
				`)","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}`},
		{name: "unsupported header checked after auth", header: hdr("MCP-Protocol-Version", "x", "Authorization", authBad), body: ping, wantStatus: 401, wantHeader: jsonHeader,
			wantBody: envJSON(-32000, "Invalid or expired API token")},
		{name: "unsupported header checked after parse", header: hdr("MCP-Protocol-Version", "x"), body: `{`, wantStatus: 400, wantHeader: jsonHeader,
			wantBody: envJSON(-32700, "Parse error")},
		{name: "unsupported header on a batch", header: hdr("MCP-Protocol-Version", "x"), body: `[` + ping + `]`, wantStatus: 400, wantHeader: jsonHeader,
			wantBody: `{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version: x (supported versions: 2026-07-28, ` + supported +
				`)","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"x"}}}`},
		{name: "unsupported header on a notification", header: hdr("MCP-Protocol-Version", "x"), body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, wantStatus: 400, wantHeader: jsonHeader,
			wantBody: `{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version: x (supported versions: 2026-07-28, ` + supported +
				`)","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"x"}}}`},
		{name: "batch under 2025-06-18", header: hdr("MCP-Protocol-Version", "2025-06-18"), body: `[` + ping + `]`, wantStatus: 400, wantHeader: jsonHeader,
			wantBody: envJSON(-32600, "Invalid Request: batching is not supported in protocol version 2025-06-18")},
		{name: "batch under 2025-03-26", header: hdr("MCP-Protocol-Version", "2025-03-26"), body: `[` + ping + `]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + pingResp + `]`},
		{name: "batch without header", body: `[` + ping + `]`, wantStatus: 200, wantHeader: jsonHeader, wantBody: `[` + pingResp + `]`},
		{name: "GET with unsupported header", method: http.MethodGet, header: hdr("MCP-Protocol-Version", "1.0", "Accept", "text/event-stream"),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: `{"error":"Bad Request: Unsupported protocol version: 1.0 (supported versions: ` + supported + `)"}`},
	}
	for i := range cases {
		tc := &cases[i]
		if tc.header == nil {
			tc.header = hdr()
		}
		if tc.header["Authorization"] == "" {
			tc.header["Authorization"] = authGood
		}
		tc.wantAuthCalls, tc.wantTouches = -1, -1
	}
	runCases(t, cases, nil)
}

// TestHandleAnyMethod: Handle answers methods Echo does not route (the
// gateway hands them over through gateway.Function.Unrouted) with the
// original's 405 and CORS headers.
func TestHandleAnyMethod(t *testing.T) {
	env := newTestEnv(t, nil)
	for _, method := range []string{"FOO", "QUERY", "MKCOL"} {
		req := httptest.NewRequest(method, "/functions/v1/mcp-server", nil)
		rec := httptest.NewRecorder()
		if err := env.srv.Handle(env.e.NewContext(req, rec)); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 405 || rec.Body.String() != `{"error":"Method not allowed"}` {
			t.Errorf("%s: %d %s", method, rec.Code, rec.Body)
		}
		checkHeaders(t, rec.Header(), wantCORS)
		checkHeaders(t, rec.Header(), jsonHeader)
	}
}

// TestToolsCallOutcomes drives tools/call with injected tool behaviour:
// results the offline catalogue cannot produce, and every failure class.
func TestToolsCallOutcomes(t *testing.T) {
	result := jsjson.NewObject(3).
		Set("id", float64(12)).
		Set("text", "line 1\nline \"2\" <b>\u2028").
		Set("list", []any{float64(1.5), nil, jsjson.NewObject(0), []any{}})
	const wantText = `{\n  \"id\": 12,\n  \"text\": \"line 1\\nline \\\"2\\\" <b>` + "\u2028" + `\",\n  \"list\": [\n    1.5,\n    null,\n    {},\n    []\n  ]\n}`
	cases := []struct {
		name     string
		call     func() (any, error)
		wantBody string
	}{
		{"object result", func() (any, error) { return result, nil },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + wantText + `"}]}}`},
		{"null result", func() (any, error) { return nil, nil },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"null"}]}}`},
		{"array result", func() (any, error) { return []any{}, nil },
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[]"}]}}`},
		{"plain error", func() (any, error) { return nil, errors.New("GitHub is unavailable") },
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"GitHub is unavailable"}}`},
		{"apierror shows its public message only", func() (any, error) {
			return nil, apierror.Internal("Failed to fetch", errors.New("secret cause"))
		}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Failed to fetch"}}`},
		{"wrapped invalid params", func() (any, error) {
			return nil, fmt.Errorf("wrapped: %w", &tools.InvalidParamsError{Message: "Invalid params: x"})
		}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"wrapped: Invalid params: x"}}`},
		{"unencodable result", func() (any, error) { return struct{}{}, nil },
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Internal server error"}}`},
		{"panic", func() (any, error) { panic("tool bug") },
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Internal server error"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, nil)
			var gotName string
			var gotArgs *jsjson.Object
			env.srv.callTool = func(_ context.Context, db *userclient.Client, scopes []string, name string, args *jsjson.Object) (any, error) {
				if db == nil || db.UserID() != "user-a" || len(scopes) != 1 {
					t.Errorf("tool got db %v, scopes %v", db, scopes)
				}
				gotName, gotArgs = name, args
				return tc.call()
			}
			rec := env.do(http.MethodPost, "", hdr("Authorization", authGood),
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}`)
			if rec.Code != 200 {
				t.Errorf("status = %d", rec.Code)
			}
			if diff := cmp.Diff(tc.wantBody, rec.Body.String()); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if gotName != "t" || gotArgs.Len() != 1 {
				t.Errorf("tool called with %q %v", gotName, gotArgs)
			}
		})
	}
	// A panic in one element does not stop the rest of a batch.
	env := newTestEnv(t, nil)
	env.srv.callTool = func(context.Context, *userclient.Client, []string, string, *jsjson.Object) (any, error) { panic("x") }
	rec := env.do(http.MethodPost, "", hdr("Authorization", authGood),
		`[{"id":1,"method":"tools/call","params":{"name":"t"}},{"id":2,"method":"ping"}]`)
	want := `[{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Internal server error"}},{"jsonrpc":"2.0","id":2,"result":{}}]`
	if rec.Body.String() != want {
		t.Errorf("batch after panic = %s", rec.Body)
	}
}

// TestNewValidates checks that New refuses incomplete or unsafe options and
// applies the documented defaults.
func TestNewValidates(t *testing.T) {
	good := func() Options {
		return Options{Auth: &fakeAuth{}, Users: &fakeUsers{}, Tools: tools.New(tools.Options{})}
	}
	for _, tc := range []struct {
		name    string
		mod     func(*Options)
		wantErr string
	}{
		{"no auth", func(o *Options) { o.Auth = nil }, "Options.Auth is required"},
		{"no users", func(o *Options) { o.Users = nil }, "Options.Users is required"},
		{"no tools", func(o *Options) { o.Tools = nil }, "Options.Tools is required"},
		{"endpoint with a line break", func(o *Options) { o.EdgeFunctionsURL = "https://x\ndata: y" }, "EdgeFunctionsURL must not contain line breaks"},
		{"metadata URL with a quote", func(o *Options) { o.ResourceMetadataURL = `https://x/"` }, "ResourceMetadataURL must not contain"},
		{"negative limit", func(o *Options) { o.MaxStreams = -1 }, "must not be negative"},
		{"scope with a quote", func(o *Options) { o.Scopes = []string{`mcp"read`} }, `Options.Scopes: "mcp\"read" is not a scope token`},
		{"scope with a space", func(o *Options) { o.Scopes = []string{"mcp read"} }, `Options.Scopes: "mcp read" is not a scope token`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good()
			tc.mod(&o)
			if _, err := New(o); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("New: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
	s, err := New(good())
	if err != nil {
		t.Fatal(err)
	}
	got := []int64{s.maxBody, int64(s.maxBatch), int64(s.streams.max), int64(s.streams.perKey), int64(s.keepAlive)}
	want := []int64{4 << 20, 100, 1024, 16, 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}
