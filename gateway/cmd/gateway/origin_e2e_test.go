package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// TestOriginDefault: on a default configuration (GATEWAY_ALLOWED_ORIGINS
// unset) mcp-server refuses a foreign browser Origin with 403 before
// authentication, allows the gateway's own public origin and the project's,
// and answers requests without Origin exactly as the original (ACAO *, no
// Vary); GATEWAY_ALLOWED_ORIGINS=* restores the original's answer to every
// origin (issue 15 item 7). mcp-tokens keeps the original's CORS.
func TestOriginDefault(t *testing.T) {
	post := func(t *testing.T, gw, path, origin, auth, body string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, gw+path, strings.NewReader(body))
		req.Header.Set("Authorization", auth)
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	const mcp = "/functions/v1/mcp-server"

	// OAuth off: its metadata would name the stack's loopback Auth, which
	// start-up refuses behind a public URL.
	gw := startGateway(t, map[string]string{"GATEWAY_PUBLIC_URL": "https://mcp.example.edu", "GATEWAY_OAUTH_SERVER": "off"})
	token := "Bearer " + createMCPToken(t, gw, env.SessionToken(t, gatewaytest.Alice))
	for _, tc := range []struct {
		name, origin string
		want         int
		wantACAO     string
		wantVary     string
	}{
		{"no Origin: the original's answer", "", 200, "*", ""},
		{"foreign origin", "http://evil.example.com", 403, "", "Origin"},
		{"the gateway's public origin", "https://mcp.example.edu", 200, "https://mcp.example.edu", "Origin"},
		{"the project's origin", strings.TrimRight(env.URL, "/"), 200, strings.TrimRight(env.URL, "/"), "Origin"},
		{"a loopback page over loopback", "http://localhost:6274", 200, "http://localhost:6274", "Origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, h, body := post(t, gw, mcp, tc.origin, token, ping)
			if status != tc.want || h.Get("Access-Control-Allow-Origin") != tc.wantACAO || h.Get("Vary") != tc.wantVary {
				t.Fatalf("got %d ACAO %q Vary %q %s; want %d ACAO %q Vary %q", status,
					h.Get("Access-Control-Allow-Origin"), h.Get("Vary"), body, tc.want, tc.wantACAO, tc.wantVary)
			}
			if status == 403 && body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Invalid Origin header: `+tc.origin+`"}}` {
				t.Fatalf("403 body %s", body)
			}
		})
	}
	// mcp-tokens is called by the web app from its own site: unchanged.
	if status, h, _ := post(t, gw, "/functions/v1/mcp-tokens", "http://evil.example.com", "Bearer x", `{}`); status == 403 || h.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("mcp-tokens with a foreign Origin: %d ACAO %q", status, h.Get("Access-Control-Allow-Origin"))
	}

	open := startGateway(t, map[string]string{"GATEWAY_ALLOWED_ORIGINS": "*"})
	token = "Bearer " + createMCPToken(t, open, env.SessionToken(t, gatewaytest.Alice))
	if status, h, body := post(t, open, mcp, "http://evil.example.com", token, ping); status != 200 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Vary") != "" {
		t.Fatalf("GATEWAY_ALLOWED_ORIGINS=*: %d ACAO %q Vary %q %s", status, h.Get("Access-Control-Allow-Origin"), h.Get("Vary"), body)
	}
}
