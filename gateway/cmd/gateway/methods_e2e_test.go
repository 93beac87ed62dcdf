package main

import (
	"io"
	"net/http"
	"testing"
)

// TestUnroutedMethods: every method other than OPTIONS, GET, POST and
// DELETE is answered by both functions, through the wired router, the way
// the original's method rule does: 405 {"error":"Method not allowed"} with
// the function's CORS headers and no authentication — including methods
// Echo routes itself (HEAD, PUT, PROPFIND, TRACE, CONNECT …) and methods
// it does not know at all (FOO, QUERY), at the function's root, below it,
// and without the /functions/v1 prefix (issue 15 item 5).
func TestUnroutedMethods(t *testing.T) {
	gw := startGateway(t, nil)
	methods := []string{"HEAD", "PUT", "PATCH", "TRACE", "CONNECT", "PROPFIND", "REPORT", "QUERY", "FOO", "MKCOL", "LOCK"}
	paths := []string{"/functions/v1/mcp-tokens", "/functions/v1/mcp-tokens/sub", "/mcp-tokens",
		"/functions/v1/mcp-server", "/functions/v1/mcp-server/sub", "/mcp-server"}
	for _, path := range paths {
		for _, method := range methods {
			t.Run(method+path, func(t *testing.T) {
				req, err := http.NewRequest(method, gw+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer not-a-token")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				want := `{"error":"Method not allowed"}`
				if method == "HEAD" {
					want = ""
				}
				if resp.StatusCode != http.StatusMethodNotAllowed || string(body) != want {
					t.Fatalf("got %d %q, want 405 %q", resp.StatusCode, body, want)
				}
				if got := resp.Header.Get("Content-Type"); got != "application/json" {
					t.Errorf("Content-Type %q, want application/json", got)
				}
				if got := resp.Header.Get("Access-Control-Allow-Methods"); got != "GET, POST, DELETE, OPTIONS" {
					t.Errorf("Access-Control-Allow-Methods %q", got)
				}
			})
		}
	}
}
