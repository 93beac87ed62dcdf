package mcpserver

import (
	"net/http"
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
