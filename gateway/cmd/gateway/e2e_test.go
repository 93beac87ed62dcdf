package main

import (
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// These tests run the whole gateway, wired exactly as `gateway serve`
// wires it, against the local Supabase stack (or a real one, see
// gatewaytest): the web app's token calls, an MCP client with the token,
// revocation, and the OAuth path.

var env *gatewaytest.Env

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		// A gateway process of its own (startChildGateway): the test
		// binary serves as the gateway binary.
		os.Exit(cli(nil, os.Stdout, os.Stderr))
	}
	auditOutput = io.Discard // audit lines are asserted in metrics_e2e_test.go
	flag.Parse()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		// Benchmarks only (bench_test.go): they need no database.
		os.Exit(m.Run())
	}
	gatewaytest.Main(m, &env)
}

const e2eSecret = "e2e-mcp-jwt-secret-with-at-least-32-chars"

// startGatewayAt serves a gateway configured from the stack's settings
// plus vars(base), where base is the gateway's own URL (known before the
// configuration is loaded, for settings such as GATEWAY_ISSUER_URL). It
// returns the base, the loaded configuration and the gateway's log.
func startGatewayAt(t *testing.T, vars func(base string) map[string]string) (string, config.Config, *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	all := map[string]string{
		"SUPABASE_URL":              env.URL,
		"SUPABASE_ANON_KEY":         env.AnonKey,
		"SUPABASE_SERVICE_ROLE_KEY": env.ServiceRoleKey,
		"MCP_JWT_SECRET":            e2eSecret,
		"JWT_SECRET":                env.SigningJWK,
		"GATEWAY_PUBLIC_URL":        base,
		"EDGE_FUNCTIONS_URL":        base,
	}
	for k, v := range env.GatewayVars() {
		all[k] = v
	}
	for k, v := range vars(base) {
		all[k] = v
	}
	cfg, err := config.Load(func(k string) string { return all[k] })
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv, _, cleanup, err := newServer(cfg, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(func() { hs.Close(); cleanup() })
	return base, cfg, logs
}

// startGateway serves a gateway configured from the stack's settings plus
// vars and returns its base URL.
func startGateway(t *testing.T, vars map[string]string) string {
	t.Helper()
	base, _, _ := startGatewayAt(t, func(string) map[string]string { return vars })
	return base
}

type answer struct {
	status int
	header http.Header
	body   string
}

func call(t *testing.T, method, url, auth, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

const getAssignment = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`

const assignmentText = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\n  \"id\": 1,\n  \"title\": \"Hello World\",\n  \"slug\": \"hw1-hello-world\",\n  \"description\": \"Warm-up: print a greeting.\",\n  \"handout_url\": \"https://example.edu/cs3500/hw1\",\n  \"due_date\": \"2026-01-20T04:59:00+00:00\",\n  \"release_date\": \"2026-01-05T14:00:00+00:00\",\n  \"total_points\": 100,\n  \"has_autograder\": true,\n  \"class_id\": 1\n}"}]}}`

// TestTokenLifecycle is issue 8's end-to-end path: sign in as an
// instructor, create a token, use it with mcp-server, revoke it, and see
// the very next call refused; a student is refused a token.
func TestTokenLifecycle(t *testing.T) {
	gw := startGateway(t, nil)
	tokens := gw + "/functions/v1/mcp-tokens"
	mcp := gw + "/functions/v1/mcp-server"
	alice := "Bearer " + env.SessionToken(t, gatewaytest.Alice)

	r := call(t, "POST", tokens, alice, `{"name":"e2e","scopes":["mcp:read"]}`)
	if r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var created struct {
		Token    string `json:"token"`
		Metadata struct {
			ID string `json:"id"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(r.body), &created); err != nil {
		t.Fatal(err)
	}
	bearer := "Bearer " + created.Token

	if r := call(t, "POST", mcp, bearer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); r.status != 200 || !strings.Contains(r.body, `"name":"get_help_request"`) {
		t.Fatalf("tools/list: %d %.200s", r.status, r.body)
	}
	if r := call(t, "POST", mcp, bearer, getAssignment); r.status != 200 || r.body != assignmentText {
		t.Fatalf("tools/call: %d\n got %s\nwant %s", r.status, r.body, assignmentText)
	}

	// last_used_at is written in the background (coalesced per token). It
	// is read back through mcp-tokens' own list, so the check runs on every
	// stack (it used to need a database URL and did nothing without one).
	deadline := time.Now().Add(30 * time.Second)
	for {
		var page struct {
			Tokens []struct {
				ID         string  `json:"id"`
				LastUsedAt *string `json:"last_used_at"`
			} `json:"tokens"`
		}
		r := call(t, "GET", tokens, alice, "")
		if err := json.Unmarshal([]byte(r.body), &page); err != nil || r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		used, found := false, false
		for _, tok := range page.Tokens {
			if tok.ID == created.Metadata.ID {
				found, used = true, tok.LastUsedAt != nil
			}
		}
		if !found {
			t.Fatalf("list does not show the new token %s: %s", created.Metadata.ID, r.body)
		}
		if used {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("last_used_at was not set after use")
		}
		time.Sleep(50 * time.Millisecond)
	}

	var listed struct {
		Tokens []struct {
			TokenID string `json:"token_id"`
		} `json:"tokens"`
	}
	r = call(t, "GET", tokens, alice, "")
	if err := json.Unmarshal([]byte(r.body), &listed); err != nil || len(listed.Tokens) == 0 {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	if r := call(t, "DELETE", tokens, alice, `{"token_id":"`+listed.Tokens[0].TokenID+`"}`); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	r = call(t, "POST", mcp, bearer, getAssignment)
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"API token has been revoked"}}`; r.status != 401 || r.body != want {
		t.Fatalf("after revoke: %d %s", r.status, r.body)
	}

	sam := "Bearer " + env.SessionToken(t, gatewaytest.Sam)
	if r := call(t, "POST", tokens, sam, `{"name":"nope"}`); r.status != 403 || r.body != `{"error":"MCP tokens are only available to instructors and graders"}` {
		t.Fatalf("student create: %d %s", r.status, r.body)
	}
}

// TestOAuthConnector is issue 9's path: discovery from the 401 alone, the
// metadata documents, and a tools/call with a Supabase access token under
// RLS.
func TestOAuthConnector(t *testing.T) {
	gw := startGateway(t, nil)
	mcp := gw + "/functions/v1/mcp-server"
	metaURL := mcp + "/.well-known/oauth-protected-resource"

	r := call(t, "POST", mcp, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if r.status != 401 || r.header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+metaURL+`", scope="mcp:read"` {
		t.Fatalf("401 without token: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	r = call(t, "GET", mcp, "Bearer not-a-token", "")
	if r.status != 401 || r.header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+metaURL+`", scope="mcp:read", error="invalid_token"` {
		t.Fatalf("GET with a refused token: %d %q %s", r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
	want := `{"resource":"` + mcp + `","authorization_servers":["` + env.AuthURL + `"],"scopes_supported":["mcp:read"],"bearer_methods_supported":["header"],"resource_name":"Pawtograder MCP server"}`
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/functions/v1/mcp-server", "/functions/v1/mcp-server/.well-known/oauth-protected-resource"} {
		if r := call(t, "GET", gw+p, "", ""); r.status != 200 || r.body != want {
			t.Errorf("%s: %d %s", p, r.status, r.body)
		}
	}

	alice := "Bearer " + env.SessionToken(t, gatewaytest.Alice)
	if r := call(t, "POST", mcp, alice, getAssignment); r.status != 200 || r.body != assignmentText {
		t.Fatalf("Supabase token tools/call: %d %s", r.status, r.body)
	}
	// Bea teaches class 2 only: RLS hides class 1's assignment.
	bea := "Bearer " + env.SessionToken(t, gatewaytest.Bea)
	if r := call(t, "POST", mcp, bea, getAssignment); r.status != 200 || r.body != `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"null"}]}}` {
		t.Fatalf("other class: %d %s", r.status, r.body)
	}
	sam := "Bearer " + env.SessionToken(t, gatewaytest.Sam)
	if r := call(t, "POST", mcp, sam, getAssignment); r.status != 403 || r.body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"User must be an instructor or grader in at least one class"}}` {
		t.Fatalf("student: %d %s", r.status, r.body)
	}
}

func TestMCPServerDisabled(t *testing.T) {
	gw := startGateway(t, map[string]string{"MCP_SERVER_ENABLED": "false"})
	for _, p := range []string{"/functions/v1/mcp-server", "/mcp-server", "/.well-known/oauth-protected-resource", "/functions/v1/mcp-server/.well-known/oauth-protected-resource"} {
		if r := call(t, "GET", gw+p, "", ""); r.status != 404 {
			t.Errorf("%s: %d %s", p, r.status, r.body)
		}
	}
	// mcp-tokens keeps working.
	if r := call(t, "OPTIONS", gw+"/functions/v1/mcp-tokens", "", ""); r.status != 200 || r.body != "ok" {
		t.Errorf("mcp-tokens: %d %s", r.status, r.body)
	}
}

// directUpstream stands in for PostgREST or GoTrue reached directly (not
// through Supabase's API gateway): it refuses requests that carry an apikey
// header, then forwards to the local stack, which wants one.
func directUpstream(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("apikey") != "" {
			http.Error(w, `{"message":"apikey sent to a direct upstream"}`, http.StatusTeapot)
			return
		}
		seen.Add(1)
		r.Header.Set("apikey", env.AnonKey)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Close()
		if seen.Load() == 0 {
			t.Errorf("direct upstream %s was never used", target)
		}
	})
	return srv.URL + u.Path
}

// TestDirectUpstreams: with GATEWAY_POSTGREST_URL and GATEWAY_AUTH_URL set,
// the gateway talks to PostgREST and Auth directly and sends no apikey.
func TestDirectUpstreams(t *testing.T) {
	env.RequireLocal(t)
	gw := startGateway(t, map[string]string{
		"GATEWAY_POSTGREST_URL": directUpstream(t, env.RestURL),
		"GATEWAY_AUTH_URL":      directUpstream(t, env.AuthURL),
		"GATEWAY_OAUTH_ISSUER":  env.AuthURL,
	})
	alice := "Bearer " + env.SessionToken(t, gatewaytest.Alice)
	if r := call(t, "POST", gw+"/functions/v1/mcp-server", alice, getAssignment); r.status != 200 || r.body != assignmentText {
		t.Fatalf("tools/call through direct upstreams: %d %s", r.status, r.body)
	}
	if r := call(t, "GET", gw+"/functions/v1/mcp-tokens", alice, ""); r.status != 200 {
		t.Fatalf("mcp-tokens through direct upstreams: %d %s", r.status, r.body)
	}
}
