package mcpserver

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrigins covers Options.AllowedOrigins: refused origins get 403 before
// authentication, allowed ones are echoed with Vary: Origin, requests
// without Origin pass, and "*" is the original's answer. The default (no
// list) refuses foreign origins (issue 15 item 7) and answers requests
// without Origin byte for byte as the original does.
func TestOrigins(t *testing.T) {
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	list := []string{"https://app.pawtograder.com", "http://localhost:3000/"}
	refused := func(origin string) string {
		return envJSON(-32000, "Invalid Origin header: "+origin)
	}
	for _, tc := range []struct {
		name       string
		allowed    []string
		method     string
		origin     string
		wantStatus int
		wantBody   string
		wantACAO   string // "" = absent
		wantVary   string
		wantAuth   int64
	}{
		{"default refuses a foreign origin", nil, http.MethodPost, "https://evil.example", 403, refused("https://evil.example"), "", "Origin", 0},
		{"default: no origin is the original's answer", nil, http.MethodPost, "", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, "*", "", 1},
		{"default allows a trusted origin", nil, http.MethodPost, "https://project.example", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, "https://project.example", "Origin", 1},
		{"default: loopback page not over loopback", nil, http.MethodPost, "http://localhost:6274", 403, refused("http://localhost:6274"), "", "Origin", 0},
		{"default refuses a null origin", nil, http.MethodPost, "null", 403, refused("null"), "", "Origin", 0},
		{"default refused preflight", nil, http.MethodOptions, "https://evil.example", 403, refused("https://evil.example"), "", "Origin", 0},
		{"star allows any origin", []string{"https://a.example", "*"}, http.MethodPost, "https://evil.example", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, "*", "", 1},
		{"allowed origin is echoed", list, http.MethodPost, "https://app.pawtograder.com", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, "https://app.pawtograder.com", "Origin", 1},
		{"case and trailing slash", list, http.MethodPost, "http://LOCALHOST:3000", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, "http://LOCALHOST:3000", "Origin", 1},
		{"no origin passes", list, http.MethodPost, "", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, "", "Origin", 1},
		{"refused before auth", list, http.MethodPost, "https://evil.example", 403, refused("https://evil.example"), "", "Origin", 0},
		{"null origin refused", list, http.MethodPost, "null", 403, refused("null"), "", "Origin", 0},
		{"refused GET", list, http.MethodGet, "https://evil.example", 403, refused("https://evil.example"), "", "Origin", 0},
		{"refused preflight", list, http.MethodOptions, "https://evil.example", 403, refused("https://evil.example"), "", "Origin", 0},
		{"allowed preflight", list, http.MethodOptions, "https://app.pawtograder.com", 200, "ok", "https://app.pawtograder.com", "Origin", 0},
		{"port matters", list, http.MethodPost, "https://app.pawtograder.com:8443", 403, refused("https://app.pawtograder.com:8443"), "", "Origin", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) {
				o.AllowedOrigins = tc.allowed
				o.TrustedOrigins = []string{"https://project.example/"}
			})
			h := hdr("Authorization", authGood, "Accept", "application/json, text/event-stream")
			if tc.origin != "" {
				h["Origin"] = tc.origin
			}
			body := ""
			if tc.method == http.MethodPost {
				body = ping
			}
			rec := env.do(tc.method, "", h, body)
			if rec.Code != tc.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tc.wantStatus)
			}
			if diff := cmp.Diff(tc.wantBody, rec.Body.String()); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			checkHeaders(t, rec.Header(), map[string]string{
				"Access-Control-Allow-Origin":   tc.wantACAO,
				"Vary":                          tc.wantVary,
				"Access-Control-Allow-Headers":  wantCORS["Access-Control-Allow-Headers"],
				"Access-Control-Allow-Methods":  wantCORS["Access-Control-Allow-Methods"],
				"Access-Control-Expose-Headers": wantCORS["Access-Control-Expose-Headers"],
			})
			if got := env.auth.calls.Load(); got != tc.wantAuth {
				t.Errorf("Authenticate called %d times, want %d", got, tc.wantAuth)
			}
		})
	}
}

// TestOriginsValidated checks that New refuses entries that are not origins.
func TestOriginsValidated(t *testing.T) {
	for _, bad := range [][]string{{""}, {"https://a.example, https://b.example"}, {"https://a.example\r\nX: y"}} {
		_, err := New(Options{Auth: &fakeAuth{}, Users: &fakeUsers{}, Tools: nil, AllowedOrigins: bad})
		if err == nil || !strings.Contains(err.Error(), "AllowedOrigins") {
			t.Errorf("AllowedOrigins %q: %v", bad, err)
		}
	}
}

// TestOriginDefaultLoopback: under the default policy a page on a loopback
// origin may call a server it reaches over loopback (a local MCP Inspector
// against a local gateway), and a DNS-rebinding page may not, even though
// it too reaches the server over loopback (issue 15 item 7).
func TestOriginDefaultLoopback(t *testing.T) {
	env := newTestEnv(t, nil)
	ts, client := liveServer(t, env)
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		origin, host string
		want         int
	}{
		{"http://localhost:6274", "", 200},
		{"http://127.0.0.1:6274", "", 200},
		{"http://[::1]:6274", "", 200},
		{"https://localhost", "", 200},
		{"http://evil.example.com", "evil.example.com", 403},
		{"http://evil.example.com:9000", "localhost:9000", 403},
		{"http://localhost.evil.example", "", 403},
		{"file://localhost", "", 403},
		{"null", "", 403},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/functions/v1/mcp-server", strings.NewReader(ping))
		req.Header.Set("Authorization", authGood)
		req.Header.Set("Origin", tc.origin)
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Origin %s (Host %q): %d, want %d", tc.origin, tc.host, resp.StatusCode, tc.want)
		}
	}
}

// TestCORSPerRevision: the drop-in path's CORS answers are byte for byte
// those from before revision 2026-07-28 (every header of a preflight and of
// a POST), while a browser's preflight for a 2026-07-28 request (which
// carries Mcp-Method and Mcp-Name) is allowed, and answers at 2026-07-28
// list the two names too. With PinProtocol2024 such a preflight still
// passes (the client then falls back to initialize), but POSTs keep the
// original's list.
func TestCORSPerRevision(t *testing.T) {
	// The exact headers before issue 18, all of them.
	const dropIn = "authorization, x-client-info, apikey, content-type, accept, mcp-session-id, last-event-id, mcp-protocol-version"
	const modern = dropIn + ", mcp-method, mcp-name"
	preflightHeaders := func(allow string) http.Header {
		return http.Header{
			"Access-Control-Allow-Origin":   {"*"},
			"Access-Control-Allow-Headers":  {allow},
			"Access-Control-Allow-Methods":  {"GET, POST, DELETE, OPTIONS"},
			"Access-Control-Expose-Headers": {"WWW-Authenticate"},
			"Content-Type":                  {"text/plain;charset=UTF-8"},
		}
	}
	postHeaders := func(allow string) http.Header {
		h := preflightHeaders(allow)
		h["Content-Type"] = []string{"application/json"}
		return h
	}
	preflight := func(requested string) map[string]string {
		h := map[string]string{"Origin": "https://app.example.edu", "Access-Control-Request-Method": "POST"}
		if requested != "" {
			h["Access-Control-Request-Headers"] = requested
		}
		return h
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		pin    bool
		method string
		header map[string]string
		body   string
		want   http.Header
	}{
		{"drop-in preflight", false, http.MethodOptions, preflight("authorization,content-type"), "", preflightHeaders(dropIn)},
		{"preflight without requested headers", false, http.MethodOptions, preflight(""), "", preflightHeaders(dropIn)},
		{"2025-06-18 preflight", false, http.MethodOptions, preflight("authorization,content-type,mcp-protocol-version"), "", preflightHeaders(dropIn)},
		{"a look-alike name", false, http.MethodOptions, preflight("authorization,x-mcp-method,mcp-names"), "", preflightHeaders(dropIn)},
		{"drop-in POST", false, http.MethodPost, hdr("Authorization", authGood), initialize, postHeaders(dropIn)},
		{"2025-11-25 POST", false, http.MethodPost, hdr("Authorization", authGood, headerProtocolVersion, "2025-11-25"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, postHeaders(dropIn)},
		// Chromium's list for the TypeScript SDK v2 at 2026-07-28: sorted,
		// lower case, comma without space.
		{"2026-07-28 browser preflight", false, http.MethodOptions, preflight("authorization,content-type,mcp-method,mcp-name,mcp-protocol-version"), "", preflightHeaders(modern)},
		{"2026-07-28 preflight, one name, any case", false, http.MethodOptions, preflight("Content-Type, MCP-Method"), "", preflightHeaders(modern)},
		{"2026-07-28 POST", false, http.MethodPost, modernHdr("tools/list"), modernReq("1", "tools/list", ""), postHeaders(modern)},
		{"pinned: 2026-07-28 preflight", true, http.MethodOptions, preflight("authorization,content-type,mcp-method,mcp-protocol-version"), "", preflightHeaders(modern)},
		{"pinned: 2026-07-28 POST", true, http.MethodPost, modernHdr("tools/list"), modernReq("1", "tools/list", ""), postHeaders(dropIn)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = tc.pin; o.AllowedOrigins = []string{"*"} })
			rec := env.do(tc.method, "", tc.header, tc.body)
			if rec.Code != http.StatusOK {
				t.Errorf("status %d: %s", rec.Code, rec.Body)
			}
			want := tc.want
			if n := rec.Body.Len(); n >= 2048 {
				// A large body declares its length (writeJSON).
				want = want.Clone()
				want["Content-Length"] = []string{strconv.Itoa(n)}
			}
			if diff := cmp.Diff(want, rec.Header()); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
