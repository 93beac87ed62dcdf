package oauthserver

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// TestFullFlow walks the happy path: registration, authorization,
// sign-in, consent, code exchange, a refresh with rotation, and the
// access token as mcpauth sees it.
func TestFullFlow(t *testing.T) {
	h := newHarness(t, nil)
	clientID := h.register()
	code := h.approve(clientID)
	tk := decodeTokens(t, h.exchange(clientID, code))
	if tk.TokenType != "Bearer" || tk.ExpiresIn != 3600 || tk.Scope != "mcp:read" || !strings.HasPrefix(tk.RefreshToken, "mcpr_") {
		t.Errorf("token response = %+v", tk)
	}
	claims, err := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.clock.Now())
	if err != nil {
		t.Fatalf("access token does not verify as an mcp_ API token: %v", err)
	}
	if !strings.HasPrefix(tk.AccessToken, "mcp_") || claims.Subject != aliceID || claims.ExpiresAt.Sub(h.clock.Now()) != time.Hour {
		t.Errorf("claims = %+v", claims)
	}
	g := h.store.grants[claims.TokenID]
	if g == nil {
		t.Fatalf("no grant row for jti %s", claims.TokenID)
	}
	want := Grant{TokenID: claims.TokenID, UserID: aliceID, Name: "Test Assistant — connected with OAuth", Scopes: []string{"mcp:read"},
		ExpiresAt: h.clock.Now().Add(DefaultGrantTTL), ClientID: clientID, ClientName: "Test Assistant", RedirectURI: testRedirect}
	if diff := cmp.Diff(want, *g); diff != "" {
		t.Errorf("grant (-want +got):\n%s", diff)
	}

	// An hour later the access token has expired; the refresh token gets
	// a new pair for the same grant, and is then spent.
	h.clock.Add(time.Hour + 2*time.Second)
	if _, err := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.clock.Now()); err == nil {
		t.Error("access token still valid after an hour")
	}
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}, "client_id": {clientID}}
	tk2 := decodeTokens(t, h.postForm(h.hc, h.issuer+"/token", refresh))
	c2, err := mcpauth.VerifyAPIToken(testMCPSecret, tk2.AccessToken, h.clock.Now())
	if err != nil || c2.TokenID != claims.TokenID || tk2.RefreshToken == tk.RefreshToken {
		t.Fatalf("refresh: claims %+v err %v", c2, err)
	}
	// Rotation: once the new refresh token has been used, the old one
	// replayed revokes the grant, and then even the newest refresh token
	// is refused.
	tk3 := decodeTokens(t, h.postForm(h.hc, h.issuer+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk2.RefreshToken}, "client_id": {clientID}}))
	r := h.postForm(h.hc, h.issuer+"/token", refresh)
	checkJSON(t, r, 400, `{"error":"invalid_grant","error_description":"The refresh token is invalid, expired or revoked"}`)
	if !h.store.isRevoked(claims.TokenID) {
		t.Error("reused refresh token did not revoke the grant")
	}
	r = h.postForm(h.hc, h.issuer+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk3.RefreshToken}, "client_id": {clientID}})
	checkJSON(t, r, 400, `{"error":"invalid_grant","error_description":"The refresh token is invalid, expired or revoked"}`)
}

func checkJSON(t *testing.T, r reply, status int, body string) {
	t.Helper()
	if r.status != status || r.body != body {
		t.Errorf("got %d %s\nwant %d %s", r.status, r.body, status, body)
	}
	if r.status >= 400 && r.status != 405 {
		if r.header.Get("Cache-Control") != "no-store" || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("headers: Cache-Control %q Content-Type %q", r.header.Get("Cache-Control"), r.header.Get("Content-Type"))
		}
	}
}

// TestCodeRules covers every way a code exchange is refused, each with
// the exact RFC 6749 §5.2 body.
func TestCodeRules(t *testing.T) {
	badCode := `{"error":"invalid_grant","error_description":"The authorization code is invalid, expired or already used"}`
	cases := []struct {
		name   string
		mutate func(h *harness, clientID string, v url.Values)
		status int
		body   string
	}{
		{"wrong verifier", func(h *harness, _ string, v url.Values) { v.Set("code_verifier", strings.Repeat("x", 43)) },
			400, `{"error":"invalid_grant","error_description":"code_verifier does not match the code_challenge"}`},
		{"missing verifier", func(h *harness, _ string, v url.Values) { v.Del("code_verifier") },
			400, `{"error":"invalid_request","error_description":"code_verifier is required (PKCE)"}`},
		{"wrong redirect uri", func(h *harness, _ string, v url.Values) { v.Set("redirect_uri", "http://127.0.0.1:9/other") },
			400, `{"error":"invalid_grant","error_description":"redirect_uri does not match the authorization request"}`},
		{"another client", func(h *harness, _ string, v url.Values) { v.Set("client_id", h.register()) }, 400, badCode},
		{"forged client id", func(h *harness, id string, v url.Values) { v.Set("client_id", id[:len(id)-2]+"AA") },
			401, `{"error":"invalid_client","error_description":"Unknown client: register the client first, or use a client ID metadata document URL"}`},
		{"unknown code", func(h *harness, _ string, v url.Values) { v.Set("code", "nope") }, 400, badCode},
		{"expired code", func(h *harness, _ string, v url.Values) { h.clock.Add(61 * time.Second) }, 400, badCode},
		{"resource mismatch", func(h *harness, _ string, v url.Values) { v.Set("resource", "https://evil.example/mcp") },
			400, `{"error":"invalid_target","error_description":"resource must be ` + h0resource + `"}`},
		{"unsupported grant", func(h *harness, _ string, v url.Values) { v.Set("grant_type", "password") },
			400, `{"error":"unsupported_grant_type","error_description":"grant_type must be \"authorization_code\" or \"refresh_token\""}`},
		{"missing grant type", func(h *harness, _ string, v url.Values) { v.Del("grant_type") },
			400, `{"error":"invalid_request","error_description":"grant_type is required"}`},
		{"missing code", func(h *harness, _ string, v url.Values) { v.Del("code") },
			400, `{"error":"invalid_request","error_description":"code is required"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			clientID := h.register()
			code := h.approve(clientID)
			v := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {testRedirect},
				"client_id": {clientID}, "code_verifier": {testVerifier}}
			tc.mutate(h, clientID, v)
			body := strings.ReplaceAll(tc.body, h0resource, h.srv.opts.ResourceURL)
			checkJSON(t, h.postForm(h.hc, h.issuer+"/token", v), tc.status, body)
			if h.store.grantCount() != 0 {
				t.Error("a refused exchange created a grant")
			}
		})
	}
}

// h0resource stands for the harness's resource URL in expected bodies.
const h0resource = "RESOURCE"

// TestCodeReplayRevokes: a code works once; the second use is refused and
// revokes the grant the first use created (OAuth 2.1 §4.1.3).
func TestCodeReplayRevokes(t *testing.T) {
	h := newHarness(t, nil)
	clientID := h.register()
	code := h.approve(clientID)
	tk := decodeTokens(t, h.exchange(clientID, code))
	claims, _ := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.clock.Now())
	checkJSON(t, h.exchange(clientID, code), 400, `{"error":"invalid_grant","error_description":"The authorization code is invalid, expired or already used"}`)
	if !h.store.isRevoked(claims.TokenID) {
		t.Error("replayed code did not revoke the grant")
	}
}

// TestTokenEndpointShape: form bodies only, public clients only, CORS,
// bounded bodies, no-store.
func TestTokenEndpointShape(t *testing.T) {
	h := newHarness(t, nil)
	r := h.do(h.hc, "POST", h.issuer+"/token", "application/json", `{"grant_type":"authorization_code"}`)
	checkJSON(t, r, 400, `{"error":"invalid_request","error_description":"The request body must be application/x-www-form-urlencoded"}`)
	r = h.do(h.hc, "POST", h.issuer+"/token", "application/x-www-form-urlencoded", "grant_type=x&code="+strings.Repeat("a", maxFormBytes))
	checkJSON(t, r, 413, `{"error":"invalid_request","error_description":"Request body too large"}`)
	r = h.do(h.hc, "POST", h.issuer+"/token", "application/x-www-form-urlencoded", "grant_type=refresh_token&grant_type=authorization_code")
	checkJSON(t, r, 400, `{"error":"invalid_request","error_description":"A parameter is repeated"}`)
	req, _ := http.NewRequest("POST", h.issuer+"/token", strings.NewReader("grant_type=authorization_code"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("client", "secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("Basic auth: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	r = h.do(h.hc, "OPTIONS", h.issuer+"/token", "", "")
	if r.status != 204 || r.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
	r = h.get(h.hc, h.issuer+"/token")
	if r.status != 405 || r.header.Get("Allow") != "POST, OPTIONS" {
		t.Errorf("GET /token: %d %v", r.status, r.header)
	}
}

// TestTokenEndpointPastedToken: a token request whose Authorization header
// is a pasted mcp_ token (mcp-remote's --header) is told how to switch to
// OAuth, in the body and in the challenge; any other Authorization keeps
// the public-client answer.
func TestTokenEndpointPastedToken(t *testing.T) {
	h := newHarness(t, nil)
	pasted := `{"error":"invalid_client","error_description":"` + msgPastedToken + `"}`
	public := `{"error":"invalid_client","error_description":"Only public clients (token_endpoint_auth_method \"none\") are supported; send client_id in the body and no Authorization header"}`
	tests := []struct {
		name, auth, body, challenge string
	}{
		{"bearer mcp_", "Bearer mcp_eyJhbGciOiJIUzI1NiJ9.e30.x", pasted, `Bearer error="invalid_client", error_description="` + msgPastedToken + `"`},
		{"scheme in lower case", "bearer mcp_abc", pasted, `Bearer error="invalid_client", error_description="` + msgPastedToken + `"`},
		{"bearer of another kind", "Bearer eyJhbGciOiJFUzI1NiJ9.e30.x", public, `Basic realm="oauth"`},
		{"basic", "Basic Y2xpZW50OnNlY3JldA==", public, `Basic realm="oauth"`},
		{"mcp_ without a scheme", "mcp_abc", public, `Basic realm="oauth"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", h.issuer+"/token", strings.NewReader("grant_type=refresh_token&refresh_token=x&client_id=y"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", tt.auth)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 401 || string(b) != tt.body || resp.Header.Get("WWW-Authenticate") != tt.challenge {
				t.Errorf("got %d %q %s\nwant 401 %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b, tt.challenge, tt.body)
			}
			if strings.Contains(string(b), tt.auth) {
				t.Errorf("the answer repeats the Authorization header")
			}
		})
	}
}

// TestRefreshRules: another client's refresh token, scope widening,
// a revoked grant, an expired grant.
func TestRefreshRules(t *testing.T) {
	bad := `{"error":"invalid_grant","error_description":"The refresh token is invalid, expired or revoked"}`
	cases := []struct {
		name   string
		mutate func(h *harness, tokenID string, v url.Values)
		status int
		body   string
	}{
		{"another client", func(h *harness, _ string, v url.Values) { v.Set("client_id", h.register()) }, 400, bad},
		{"wider scope", func(h *harness, _ string, v url.Values) { v.Set("scope", "mcp:read mcp:write") },
			400, `{"error":"invalid_scope","error_description":"scope exceeds what was granted"}`},
		{"revoked grant", func(h *harness, id string, _ url.Values) { h.store.revoked[id] = true }, 400, bad},
		{"expired grant", func(h *harness, _ string, _ url.Values) { h.clock.Add(DefaultGrantTTL) }, 400, bad},
		{"unknown token", func(h *harness, _ string, v url.Values) { v.Set("refresh_token", "mcpr_nope") }, 400, bad},
		{"missing token", func(h *harness, _ string, v url.Values) { v.Del("refresh_token") },
			400, `{"error":"invalid_request","error_description":"refresh_token is required"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			clientID := h.register()
			tk := decodeTokens(t, h.exchange(clientID, h.approve(clientID)))
			claims, _ := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.clock.Now())
			v := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tk.RefreshToken}, "client_id": {clientID}}
			tc.mutate(h, claims.TokenID, v)
			checkJSON(t, h.postForm(h.hc, h.issuer+"/token", v), tc.status, tc.body)
		})
	}
}

// TestRevocation (RFC 7009): a refresh token or an access token revokes
// the grant; unknown tokens and other clients' tokens get 200 and revoke
// nothing.
func TestRevocation(t *testing.T) {
	for _, kind := range []string{"refresh", "access"} {
		t.Run(kind, func(t *testing.T) {
			h := newHarness(t, nil)
			clientID := h.register()
			tk := decodeTokens(t, h.exchange(clientID, h.approve(clientID)))
			claims, _ := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.clock.Now())
			tok := tk.RefreshToken
			if kind == "access" {
				tok = tk.AccessToken
			}
			other := h.register()
			r := h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {tok}, "client_id": {other}})
			if r.status != 200 || h.store.isRevoked(claims.TokenID) {
				t.Fatalf("another client's revocation: %d, revoked %v", r.status, h.store.isRevoked(claims.TokenID))
			}
			r = h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {"garbage"}, "client_id": {clientID}})
			if r.status != 200 {
				t.Errorf("unknown token: %d %s", r.status, r.body)
			}
			r = h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {tok}, "client_id": {clientID}, "token_type_hint": {"refresh_token"}})
			if r.status != 200 || !h.store.isRevoked(claims.TokenID) {
				t.Errorf("revocation: %d, revoked %v", r.status, h.store.isRevoked(claims.TokenID))
			}
		})
	}
	h := newHarness(t, nil)
	checkJSON(t, h.postForm(h.hc, h.issuer+"/revoke", url.Values{"client_id": {h.register()}}), 400,
		`{"error":"invalid_request","error_description":"token is required"}`)
}
