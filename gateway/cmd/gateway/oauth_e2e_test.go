package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// These tests run the gateway's own OAuth authorization server
// (GATEWAY_OAUTH_SERVER=gateway) wired as `gateway serve` wires it,
// against the local stack's Auth (Supabase's PKCE sign-in with the
// stand-in provider) and PostgREST (grants written with the service role,
// read back by mcp-tokens under RLS). oauth_clients_e2e_test.go drives the
// same flow with real MCP clients and a real browser.

const e2eOAuthSecret = "e2e-oauth-secret-0123456789abcdefghijkl"

// oauthVars configures the gateway mode.
func oauthVars(extra map[string]string) map[string]string {
	v := map[string]string{
		"GATEWAY_OAUTH_SERVER":    "gateway",
		"GATEWAY_OAUTH_SECRET":    e2eOAuthSecret,
		"GATEWAY_OAUTH_PROVIDERS": "github",
	}
	for k, x := range extra {
		v[k] = x
	}
	return v
}

// TestOAuthServerWiring: the metadata documents, where they are served,
// and MCP_SERVER_ENABLED=false turning all of it off.
func TestOAuthServerWiring(t *testing.T) {
	gw := startGateway(t, oauthVars(nil))
	issuer := gw + "/functions/v1/mcp-server/oauth"
	r := call(t, "GET", gw+"/functions/v1/mcp-server/.well-known/oauth-protected-resource", "", "")
	want := `{"resource":"` + gw + `/functions/v1/mcp-server","authorization_servers":["` + issuer + `"],"scopes_supported":["mcp:read"],"bearer_methods_supported":["header"],"resource_name":"Pawtograder MCP server"}`
	if r.status != 200 || r.body != want {
		t.Errorf("protected-resource metadata: %d %s", r.status, r.body)
	}
	for _, p := range []string{
		issuer + "/.well-known/oauth-authorization-server",
		gw + "/.well-known/oauth-authorization-server/functions/v1/mcp-server/oauth",
		issuer + "/.well-known/openid-configuration",
		gw + "/.well-known/openid-configuration/functions/v1/mcp-server/oauth",
	} {
		r := call(t, "GET", p, "", "")
		if r.status != 200 || !strings.HasPrefix(r.body, `{"issuer":"`+issuer+`","authorization_endpoint":"`+issuer+`/authorize"`) {
			t.Errorf("%s: %d %s", p, r.status, r.body)
		}
	}
	// Browser clients can call the JSON endpoints.
	req, _ := http.NewRequest("OPTIONS", issuer+"/token", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("token preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// A 401 points at the metadata, unchanged in shape.
	r = call(t, "POST", gw+"/functions/v1/mcp-server", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r.status != 401 || r.header.Get("WWW-Authenticate") != `Bearer resource_metadata="`+gw+`/functions/v1/mcp-server/.well-known/oauth-protected-resource", scope="mcp:read"` {
		t.Errorf("challenge: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}

	off := startGateway(t, oauthVars(map[string]string{"MCP_SERVER_ENABLED": "false"}))
	for _, p := range []string{"/functions/v1/mcp-server/oauth/authorize", "/functions/v1/mcp-server/oauth/token", "/functions/v1/mcp-server/oauth/register",
		"/functions/v1/mcp-server/oauth/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/functions/v1/mcp-server/oauth",
		"/.well-known/openid-configuration/functions/v1/mcp-server/oauth", "/functions/v1/mcp-server/.well-known/oauth-protected-resource"} {
		if r := call(t, "GET", off+p, "", ""); r.status != 404 {
			t.Errorf("MCP_SERVER_ENABLED=false: %s answered %d", p, r.status)
		}
	}

	// Mode off: no OAuth metadata at all.
	none := startGateway(t, oauthVars(map[string]string{"GATEWAY_OAUTH_SERVER": "off"}))
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server/functions/v1/mcp-server/oauth"} {
		if r := call(t, "GET", none+p, "", ""); r.status != 404 {
			t.Errorf("mode off: %s answered %d", p, r.status)
		}
	}
}

// browser is a cookie-keeping HTTP client that stops at every redirect.
type browser struct {
	t  *testing.T
	hc *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t, &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, target string, form url.Values) (int, string, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(raw)
}

var (
	stateField = regexp.MustCompile(`name="state" value="([^"]+)"`)
	csrfInput  = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
)

const e2eRedirect = "http://127.0.0.1:7/callback"

// signInAs runs the browser through authorize, the stand-in sign-in page
// and the gateway's callback as userID; it returns the callback's answer.
func (b *browser) signInAs(gw, clientID, challenge, userID string) (int, string, string) {
	b.t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {e2eRedirect}, "state": {"st"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {gw + "/functions/v1/mcp-server"}, "scope": {"mcp:read"}}
	status, loc, body := b.do("GET", gw+"/functions/v1/mcp-server/oauth/authorize?"+q.Encode(), nil)
	if status != 303 {
		b.t.Fatalf("authorize: %d %s", status, body)
	}
	status, loc, body = b.do("GET", loc, nil) // Supabase Auth /authorize
	if status != 302 {
		b.t.Fatalf("auth authorize: %d %s", status, body)
	}
	status, _, body = b.do("GET", loc, nil) // the stand-in provider page
	m := stateField.FindStringSubmatch(body)
	if status != 200 || m == nil {
		b.t.Fatalf("stand-in page: %d %s", status, body)
	}
	status, loc, body = b.do("POST", env.AuthURL+"/callback", url.Values{"state": {m[1]}, "user_id": {userID}})
	if status != 302 || !strings.HasPrefix(loc, gw+"/functions/v1/mcp-server/oauth/callback?code=") {
		b.t.Fatalf("auth callback: %d %s %s", status, loc, body)
	}
	return b.do("GET", loc, nil)
}

func register(t *testing.T, gw string) string {
	t.Helper()
	r := call(t, "POST", gw+"/functions/v1/mcp-server/oauth/register", "", `{"client_name":"E2E Assistant","redirect_uris":["`+e2eRedirect+`"]}`)
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal([]byte(r.body), &out); r.status != 201 || err != nil {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	return out.ClientID
}

func formPost(t *testing.T, target string, form url.Values) answer {
	t.Helper()
	resp, err := http.PostForm(target, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// TestOAuthServerFullStack: a grant made through the real sign-in and the
// real store is an api_tokens row that mcp-tokens lists and revokes, and
// its access token calls a tool as the user under RLS.
func TestOAuthServerFullStack(t *testing.T) {
	env.RequireLocal(t) // signs in at the local stack's stand-in provider
	gw := startGateway(t, oauthVars(map[string]string{"MCP_JWT_SECRET": e2eSecret}))
	const verifier = "e2e-code-verifier-0123456789abcdefghijklmnopqrstuvwxyz"
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	clientID := register(t, gw)

	// A student signs in: refused, no code.
	status, _, body := newBrowser(t).signInAs(gw, clientID, challenge, gatewaytest.Sam)
	if status != 403 || !strings.Contains(body, "Only instructors and graders can connect assistants") {
		t.Fatalf("student: %d %s", status, body)
	}

	// Alice signs in and approves.
	b := newBrowser(t)
	status, loc, body := b.signInAs(gw, clientID, challenge, gatewaytest.Alice)
	if status != 303 || loc != gw+"/functions/v1/mcp-server/oauth/consent" {
		t.Fatalf("callback: %d %s %s", status, loc, body)
	}
	status, _, page := b.do("GET", loc, nil)
	m := csrfInput.FindStringSubmatch(page)
	if status != 200 || m == nil || !strings.Contains(page, "alice.instructor@example.edu") {
		t.Fatalf("consent: %d %s", status, page)
	}
	status, loc, _ = b.do("POST", gw+"/functions/v1/mcp-server/oauth/consent", url.Values{"csrf_token": {m[1]}, "decision": {"approve"}})
	back, _ := url.Parse(loc)
	code := back.Query().Get("code")
	if status != 303 || code == "" || back.Query().Get("iss") != gw+"/functions/v1/mcp-server/oauth" || back.Query().Get("state") != "st" {
		t.Fatalf("approve: %d %s", status, loc)
	}
	tokenURL := gw + "/functions/v1/mcp-server/oauth/token"
	r := formPost(t, tokenURL, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {e2eRedirect}, "client_id": {clientID}, "code_verifier": {verifier}})
	var tk struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal([]byte(r.body), &tk); r.status != 200 || err != nil || !strings.HasPrefix(tk.AccessToken, "mcp_") {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("token Cache-Control %q", r.header.Get("Cache-Control"))
	}
	// The code is single-use: its replay is refused (and revokes the
	// grant, tested below through a fresh grant's refresh token instead).
	if r := formPost(t, tokenURL, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {e2eRedirect}, "client_id": {clientID}, "code_verifier": {verifier}}); r.status != 400 {
		t.Fatalf("replayed code: %d %s", r.status, r.body)
	}
	// Replaying the code revoked the grant it issued.
	endpoint := gw + "/functions/v1/mcp-server"
	if r := call(t, "POST", endpoint, "Bearer "+tk.AccessToken, getAssignment); r.status != 401 || !strings.Contains(r.body, "API token has been revoked") {
		t.Fatalf("after code replay: %d %s", r.status, r.body)
	}

	// A second, clean grant.
	b = newBrowser(t)
	b.signInAs(gw, clientID, challenge, gatewaytest.Alice)
	_, _, page = b.do("GET", gw+"/functions/v1/mcp-server/oauth/consent", nil)
	_, loc, _ = b.do("POST", gw+"/functions/v1/mcp-server/oauth/consent", url.Values{"csrf_token": {csrfInput.FindStringSubmatch(page)[1]}, "decision": {"approve"}})
	back, _ = url.Parse(loc)
	r = formPost(t, tokenURL, url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {e2eRedirect}, "client_id": {clientID}, "code_verifier": {verifier}})
	if err := json.Unmarshal([]byte(r.body), &tk); r.status != 200 || err != nil {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	if r := call(t, "POST", endpoint, "Bearer "+tk.AccessToken, getAssignment); r.status != 200 || r.body != assignmentText {
		t.Fatalf("tool call: %d %s", r.status, r.body)
	}
	// Refresh rotates.
	r = formPost(t, tokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}, "client_id": {clientID}})
	var tk2 struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal([]byte(r.body), &tk2); r.status != 200 || err != nil || tk2.RefreshToken == tk.RefreshToken {
		t.Fatalf("refresh: %d %s", r.status, r.body)
	}

	// mcp-tokens lists the grant like any token, and revokes it.
	session := env.SessionToken(t, gatewaytest.Alice)
	list := call(t, "GET", gw+"/functions/v1/mcp-tokens", "Bearer "+session, "")
	var listed struct {
		Tokens []struct {
			TokenID   string `json:"token_id"`
			Name      string
			Scopes    []string
			RevokedAt *string `json:"revoked_at"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(list.body), &listed); list.status != 200 || err != nil {
		t.Fatalf("list: %d %s", list.status, list.body)
	}
	var grantID string
	for _, tok := range listed.Tokens {
		if tok.Name == "E2E Assistant — connected with OAuth" && tok.RevokedAt == nil {
			grantID = tok.TokenID
		}
	}
	if grantID == "" {
		t.Fatalf("grant not listed by mcp-tokens: %s", list.body)
	}
	del := call(t, "DELETE", gw+"/functions/v1/mcp-tokens", "Bearer "+session, `{"token_id":"`+grantID+`"}`)
	if del.status != 200 {
		t.Fatalf("revoke: %d %s", del.status, del.body)
	}
	if r := call(t, "POST", endpoint, "Bearer "+tk2.AccessToken, getAssignment); r.status != 401 || !strings.Contains(r.body, "API token has been revoked") {
		t.Errorf("after revocation: %d %s", r.status, r.body)
	}
	if r := formPost(t, tokenURL, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk2.RefreshToken}, "client_id": {clientID}}); r.status != 400 {
		t.Errorf("refresh after revocation: %d %s", r.status, r.body)
	}
}

// TestOAuthServerConcurrentRedemption: two simultaneous redemptions of one
// code against the real store: exactly one gets tokens (the store's
// guarded update is the single point of truth), and the loser's replay
// revokes the winner's grant.
func TestOAuthServerConcurrentRedemption(t *testing.T) {
	env.RequireLocal(t) // signs in at the local stack's stand-in provider
	gw := startGateway(t, oauthVars(map[string]string{"MCP_JWT_SECRET": e2eSecret}))
	const verifier = "e2e-code-verifier-0123456789abcdefghijklmnopqrstuvwxyz"
	sum := sha256.Sum256([]byte(verifier))
	clientID := register(t, gw)
	b := newBrowser(t)
	b.signInAs(gw, clientID, base64.RawURLEncoding.EncodeToString(sum[:]), gatewaytest.Gary)
	_, _, page := b.do("GET", gw+"/functions/v1/mcp-server/oauth/consent", nil)
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("consent page: %s", page)
	}
	_, loc, _ := b.do("POST", gw+"/functions/v1/mcp-server/oauth/consent", url.Values{"csrf_token": {m[1]}, "decision": {"approve"}})
	back, _ := url.Parse(loc)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {e2eRedirect}, "client_id": {clientID}, "code_verifier": {verifier}}
	statuses := make(chan int, 2)
	for range 2 {
		go func() {
			resp, err := http.PostForm(gw+"/functions/v1/mcp-server/oauth/token", form)
			if err != nil {
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	got := map[int]int{}
	got[<-statuses]++
	got[<-statuses]++
	if got[200] != 1 || got[400] != 1 {
		t.Errorf("statuses %v, want one 200 and one 400", got)
	}
}

// TestOAuthServerIssuerClash: GATEWAY_ISSUER_URL cannot take the
// authorization server's path.
func TestOAuthServerIssuerClash(t *testing.T) {
	all := map[string]string{
		"SUPABASE_URL": env.URL, "SUPABASE_ANON_KEY": env.AnonKey, "SUPABASE_SERVICE_ROLE_KEY": env.ServiceRoleKey,
		"MCP_JWT_SECRET": e2eSecret, "JWT_SECRET": env.SigningJWK, "GATEWAY_PUBLIC_URL": "https://project.example",
		"GATEWAY_OAUTH_SECRET": e2eOAuthSecret, "GATEWAY_ISSUER_URL": "https://project.example/functions/v1/mcp-server/oauth",
		"GATEWAY_OAUTH_ISSUER": "https://project.example/auth/v1",
	}
	cfg, err := config.Load(func(k string) string { return all[k] })
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = newServer(cfg, slog.New(slog.DiscardHandler))
	want := "GATEWAY_ISSUER_URL must not be https://project.example/functions/v1/mcp-server/oauth, where the OAuth authorization server lives (GATEWAY_OAUTH_SERVER=gateway); use another path such as …/mcp-server/oidc"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
