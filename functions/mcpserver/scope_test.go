package mcpserver

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// scopeMeta is the resource metadata URL of the scope tests.
const scopeMeta = "https://pawtograder.example/functions/v1/mcp-server/.well-known/oauth-protected-resource"

// scopeOptions configures the server as the gateway does when OAuth is on:
// the metadata URL and the baseline scope its challenges announce.
func scopeOptions(o *Options) {
	o.ResourceMetadataURL = scopeMeta
	o.Scopes = []string{"mcp:read"}
}

// Answers of the scope tests.
const (
	missingScopeRPC            = `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Missing required scope: mcp:read"}}`
	insufficientScopeChallenge = `Bearer error="insufficient_scope", scope="mcp:read", resource_metadata="` + scopeMeta +
		`", error_description="The tool get_assignment needs the scope mcp:read, which this token does not grant"`
	callAssignment2026   = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"null"}],"structuredContent":null,` + serverInfo + `}}`
	assignmentArgs       = `,"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}`
	callAssignmentLegacy = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`
)

// TestScopeAnswersPerRevision pins the answer of tools/list and tools/call
// at every revision for a token with mcp:read, one with only cli:read and
// one with no scopes. tools/list needs no scope anywhere. A tools/call
// without mcp:read keeps the original's -32000 in a 200 on the drop-in path
// (no revision stated, or MCP_PIN_PROTOCOL_2024); a request that states a
// revision gets 403 with the insufficient_scope challenge (MCP
// authorization, "Scope Challenge Handling") and the same JSON-RPC error
// as its body.
func TestScopeAnswersPerRevision(t *testing.T) {
	readGolden := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	listLegacy, listApps, list2026 := readGolden("tools_list.golden"), readGolden("tools_list_apps.golden"), readGolden("tools_list_2026.golden")
	revisions := []struct {
		name      string
		header    string // MCP-Protocol-Version; "" for none
		pin       bool
		negotiate bool // the request states a revision the server reads
		list      string
		call      string
	}{
		{"drop-in", "", false, false, listLegacy, answerAssignment},
		{"pinned ignores 2025-11-25", "2025-11-25", true, false, listLegacy, answerAssignment},
		{"2024-11-05", "2024-11-05", false, true, listLegacy, answerAssignment},
		{"2025-03-26", "2025-03-26", false, true, listLegacy, answerAssignment},
		{"2025-06-18", "2025-06-18", false, true, listApps, answerAssignmentStructured},
		{"2025-11-25", "2025-11-25", false, true, listApps, answerAssignmentStructured},
		{"2026-07-28", "2026-07-28", false, true, list2026, callAssignment2026},
	}
	tokens := []struct {
		name, auth string
		read       bool
	}{
		{"mcp:read", authGood, true},
		{"only cli:read", authCLIOnly, false},
		{"no scopes", authNoScope, false},
	}
	for _, rev := range revisions {
		var cases []httpCase
		for _, tok := range tokens {
			for _, method := range []string{"tools/list", "tools/call"} {
				var h map[string]string
				var body string
				switch {
				case rev.header == "2026-07-28" && method == "tools/list":
					h, body = modernHdr(method, "Authorization", tok.auth), modernReq("1", method, "")
				case rev.header == "2026-07-28":
					h, body = modernHdr(method, "Authorization", tok.auth, "Mcp-Name", "get_assignment"), modernReq("1", method, assignmentArgs)
				case method == "tools/list":
					h, body = hdr("Authorization", tok.auth), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
				default:
					h, body = hdr("Authorization", tok.auth), callAssignmentLegacy
				}
				if rev.header != "" && rev.header != "2026-07-28" {
					h[headerProtocolVersion] = rev.header
				}
				tc := httpCase{name: tok.name + " " + method, header: h, body: body,
					wantStatus: http.StatusOK, wantHeader: hdr("Content-Type", ctJSON, "WWW-Authenticate", ""),
					wantAuthCalls: 1, wantTouches: 1}
				switch {
				case method == "tools/list":
					tc.wantBody = rev.list
				case tok.read:
					tc.wantBody = rev.call
				case rev.negotiate:
					tc.wantStatus, tc.wantBody = http.StatusForbidden, missingScopeRPC
					tc.wantHeader["WWW-Authenticate"] = insufficientScopeChallenge
				default:
					tc.wantBody = missingScopeRPC
				}
				cases = append(cases, tc)
			}
		}
		t.Run(rev.name, func(t *testing.T) {
			runCases(t, cases, func(o *Options) {
				scopeOptions(o)
				o.PinProtocol2024 = rev.pin
			})
		})
	}
}

// TestPastedTokenHints pins the 401 answers to a refused mcp_ token. A
// request that states a revision is told, in the challenge's
// error_description and in the JSON-RPC error, that the token is revoked or
// expired and that a token pasted into the client configuration keeps the
// client from signing in with OAuth; the drop-in answers keep the
// original's bodies. Every challenge names the baseline scope. The rule
// (docs/compatibility.md S24) is the request's, not the method's: an
// initialize that states a revision is not a drop-in request and gets the
// hint too, and one without the header keeps the original's text.
func TestPastedTokenHints(t *testing.T) {
	const (
		challenge  = `Bearer resource_metadata="` + scopeMeta + `", scope="mcp:read"`
		refused    = challenge + `, error="invalid_token"`
		hint       = ` If your MCP client configuration still sends a pasted token (an Authorization header, such as mcp-remote --header), remove it and restart the client to sign in with OAuth.`
		revoked    = "API token has been revoked." + hint
		expired    = "Invalid or expired API token." + hint
		ping       = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
		supabaseJW = "Bearer eyJhbGciOiJFUzI1NiJ9.e30.sig"
	)
	described := func(d string) string { return refused + `, error_description="` + d + `"` }
	v := func(auth, version string) map[string]string {
		h := hdr("Authorization", auth, headerProtocolVersion, version)
		if version == "" {
			delete(h, headerProtocolVersion)
		}
		return h
	}
	json401 := func(www string) map[string]string { return hdr("WWW-Authenticate", www, "Content-Type", ctJSON) }
	cases := []httpCase{
		// Drop-in: the original's bodies.
		{name: "drop-in revoked", header: v(authRevoked, ""), body: ping, wantStatus: 401,
			wantHeader: json401(refused), wantBody: envJSON(-32000, "API token has been revoked")},
		{name: "drop-in expired", header: v(authBad, ""), body: ping, wantStatus: 401,
			wantHeader: json401(refused), wantBody: envJSON(-32000, "Invalid or expired API token")},
		{name: "drop-in initialize revoked", header: v(authRevoked, ""), body: initialize, wantStatus: 401,
			wantHeader: json401(refused), wantBody: envJSON(-32000, "API token has been revoked")},
		{name: "drop-in initialize expired", header: v(authBad, ""), body: initialize, wantStatus: 401,
			wantHeader: json401(refused), wantBody: envJSON(-32000, "Invalid or expired API token")},
		{name: "drop-in missing", header: v("", ""), body: ping, wantStatus: 401,
			wantHeader: json401(challenge), wantBody: envJSON(-32000, "Missing Authorization header")},
		// A stated revision: the hint, in the challenge and in the body.
		{name: "2025-03-26 revoked", header: v(authRevoked, "2025-03-26"), body: ping, wantStatus: 401,
			wantHeader: json401(described(revoked)), wantBody: envJSON(-32000, revoked)},
		{name: "2025-11-25 revoked", header: v(authRevoked, "2025-11-25"), body: ping, wantStatus: 401,
			wantHeader: json401(described(revoked)), wantBody: envJSON(-32000, revoked)},
		{name: "2025-11-25 expired", header: v(authBad, "2025-11-25"), body: ping, wantStatus: 401,
			wantHeader: json401(described(expired)), wantBody: envJSON(-32000, expired)},
		{name: "2025-11-25 initialize revoked", header: v(authRevoked, "2025-11-25"), body: initialize, wantStatus: 401,
			wantHeader: json401(described(revoked)), wantBody: envJSON(-32000, revoked)},
		{name: "2025-06-18 initialize expired", header: v(authBad, "2025-06-18"), body: initialize, wantStatus: 401,
			wantHeader: json401(described(expired)), wantBody: envJSON(-32000, expired)},
		{name: "2026-07-28 expired", header: modernHdr("tools/list", "Authorization", authBad), body: modernReq("1", "tools/list", ""), wantStatus: 401,
			wantHeader: json401(described(expired)), wantBody: envJSON(-32000, expired)},
		{name: "unsupported revision revoked", header: v(authRevoked, "2099-01-01"), body: ping, wantStatus: 401,
			wantHeader: json401(described(revoked)), wantBody: envJSON(-32000, revoked)},
		// Nothing to say about a credential that is not an mcp_ token, or
		// when none is sent.
		{name: "2025-11-25 other bearer", header: v(supabaseJW, "2025-11-25"), body: ping, wantStatus: 401,
			wantHeader: json401(refused), wantBody: envJSON(-32000, "Invalid or expired API token")},
		{name: "2025-11-25 missing", header: v("", "2025-11-25"), body: ping, wantStatus: 401,
			wantHeader: json401(challenge), wantBody: envJSON(-32000, "Missing Authorization header")},
		// The GET stream's body is not JSON-RPC and stays as it is.
		{name: "GET 2025-11-25 revoked", method: http.MethodGet, header: hdr("Authorization", authRevoked, headerProtocolVersion, "2025-11-25", "Accept", "text/event-stream"), wantStatus: 401,
			wantHeader: json401(described(revoked)), wantBody: `{"error":"API token has been revoked"}`},
		{name: "GET drop-in revoked", method: http.MethodGet, header: hdr("Authorization", authRevoked, "Accept", "text/event-stream"), wantStatus: 401,
			wantHeader: json401(refused), wantBody: `{"error":"API token has been revoked"}`},
	}
	for i := range cases {
		cases[i].wantAuthCalls = 1
	}
	runCases(t, cases, scopeOptions)

	t.Run("pinned", func(t *testing.T) {
		runCases(t, []httpCase{{name: "header ignored", header: v(authRevoked, "2025-11-25"), body: ping, wantStatus: 401,
			wantHeader: json401(refused), wantBody: envJSON(-32000, "API token has been revoked"), wantAuthCalls: 1}},
			func(o *Options) { scopeOptions(o); o.PinProtocol2024 = true })
	})
	// Without OAuth there is nothing to switch to: the answers stay as
	// they are, without a challenge.
	t.Run("no OAuth", func(t *testing.T) {
		runCases(t, []httpCase{{name: "2025-11-25 revoked", header: v(authRevoked, "2025-11-25"), body: ping, wantStatus: 401,
			wantHeader: json401(""), wantBody: envJSON(-32000, "API token has been revoked"), wantAuthCalls: 1}}, nil)
	})
}
