package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// TestTwoAuthorizationHeaders: a request carrying two Authorization headers
// is refused by both functions, whatever the two values, and never answered
// with one of them (issue 15 item 2). The answers are the original's: its
// runtime joins repeated fields with ", " (Headers.get), which mcp-server's
// header rule refuses as "Invalid Authorization header format" and which
// Supabase Auth refuses for mcp-tokens ("Unauthorized").
func TestTwoAuthorizationHeaders(t *testing.T) {
	gw := startGateway(t, nil)
	alice := "Bearer " + env.SessionToken(t, gatewaytest.Alice)
	bob := "Bearer " + env.SessionToken(t, gatewaytest.Sam)
	token := "Bearer " + createMCPToken(t, gw, env.SessionToken(t, gatewaytest.Alice))

	const (
		tokensRefused = `{"error":"Unauthorized"}`
		serverRefused = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Invalid Authorization header format"}}`
		streamRefused = `{"error":"Invalid Authorization header format"}`
	)
	for _, tt := range []struct {
		name, method, path, body string
		auth                     []string
		want                     string
	}{
		{"tokens GET same session twice", "GET", "/functions/v1/mcp-tokens", "", []string{alice, alice}, tokensRefused},
		{"tokens GET two users", "GET", "/functions/v1/mcp-tokens", "", []string{alice, bob}, tokensRefused},
		{"tokens GET session and empty", "GET", "/functions/v1/mcp-tokens", "", []string{alice, ""}, tokensRefused},
		{"tokens GET empty and session", "GET", "/functions/v1/mcp-tokens", "", []string{"", alice}, tokensRefused},
		{"tokens POST two", "POST", "/functions/v1/mcp-tokens", `{"name":"x"}`, []string{alice, bob}, tokensRefused},
		{"tokens DELETE two", "DELETE", "/functions/v1/mcp-tokens", `{"token_id":"x"}`, []string{alice, alice}, tokensRefused},
		{"server POST same token twice", "POST", "/functions/v1/mcp-server", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{token, token}, serverRefused},
		{"server POST token and session", "POST", "/functions/v1/mcp-server", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{token, alice}, serverRefused},
		{"server POST token and empty", "POST", "/functions/v1/mcp-server", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{token, ""}, serverRefused},
		{"server GET two", "GET", "/functions/v1/mcp-server", "", []string{token, token}, streamRefused},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, gw+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range tt.auth {
				req.Header.Add("Authorization", a)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
			if resp.StatusCode != http.StatusUnauthorized || string(body) != tt.want {
				t.Fatalf("got %d %s, want 401 %s", resp.StatusCode, body, tt.want)
			}
		})
	}
}
