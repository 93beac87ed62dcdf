package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// authRecorder records the Authorization header of each request it passes
// on, to capture the user JWT a Factory sends.
type authRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (a *authRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	a.seen = append(a.seen, r.Header.Get("Authorization"))
	a.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// recordingUpstream stands in for PostgREST reached directly: it records
// each Authorization header and forwards to the local stack with its apikey.
func recordingUpstream(t *testing.T, target string) (string, func() []string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		r.Header.Set("apikey", env.AnonKey)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestIssuerEndToEnd: with GATEWAY_ISSUER_URL under mcp-server's path, the
// gateway publishes the discovery document and the JWKS there; a user JWT
// minted by the same factory configuration carries the issuer and verifies
// with the published key; PostgREST accepts it; mcp-server still works.
func TestIssuerEndToEnd(t *testing.T) {
	rest, bearers := recordingUpstream(t, env.RestURL)
	gw, cfg, _ := startGatewayAt(t, func(base string) map[string]string {
		return map[string]string{
			"GATEWAY_ISSUER_URL":    base + "/functions/v1/mcp-server/oidc/",
			"GATEWAY_POSTGREST_URL": rest,
		}
	})
	iss := gw + "/functions/v1/mcp-server/oidc"
	if cfg.IssuerURL != iss {
		t.Fatalf("IssuerURL = %q, want %q", cfg.IssuerURL, iss)
	}

	r := call(t, "GET", iss+"/.well-known/openid-configuration", "", "")
	wantDoc := `{"issuer":"` + iss + `","jwks_uri":"` + iss + `/.well-known/jwks.json","id_token_signing_alg_values_supported":["ES256"],"response_types_supported":["id_token"],"subject_types_supported":["public"]}`
	if r.status != 200 || r.body != wantDoc {
		t.Fatalf("discovery: %d\n got %s\nwant %s", r.status, r.body, wantDoc)
	}
	for k, v := range map[string]string{"Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=300", "Content-Type": "application/json"} {
		if got := r.header.Get(k); got != v {
			t.Errorf("discovery %s = %q, want %q", k, got, v)
		}
	}
	var doc struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil {
		t.Fatal(err)
	}
	r = call(t, "GET", doc.JWKSURI, "", "")
	if r.status != 200 || r.header.Get("Cache-Control") != "public, max-age=300" || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("jwks: %d %v %s", r.status, r.header, r.body)
	}
	if strings.Contains(r.body, `"d"`) {
		t.Fatalf("JWKS publishes the private component: %s", r.body)
	}
	set, err := jwk.Parse([]byte(r.body))
	if err != nil || set.Len() != 1 {
		t.Fatalf("jwks %s: %v", r.body, err)
	}

	// Mint as mcp-server does, from the same configuration, and read
	// PostgREST with the token so the stack checks it too.
	rec := &authRecorder{}
	users := userclient.NewFactory(userclient.Options{
		RestURL: cfg.PostgRESTURL.String(), AnonKey: cfg.SupabaseAnonKey, SigningKey: cfg.SigningKey,
		DirectUpstream: cfg.PostgRESTDirect, Issuer: cfg.IssuerURL,
		HTTPClient: &http.Client{Transport: rec, Timeout: 10 * time.Second},
	})
	client, err := users.ForUser(context.Background(), gatewaytest.Alice)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := client.From("assignments").Select("id").Eq("id", "1").Rows(context.Background())
	if err != nil {
		t.Fatalf("PostgREST refused the issuer's token: %v", err)
	}
	var got []map[string]any
	if err := json.Unmarshal(rows, &got); err != nil || len(got) != 1 {
		t.Errorf("assignments visible to Alice: %s (%v), want one row", rows, err)
	}
	if len(rec.seen) == 0 || !strings.HasPrefix(rec.seen[0], "Bearer ") {
		t.Fatalf("no user JWT sent: %q", rec.seen)
	}
	tok := strings.TrimPrefix(rec.seen[0], "Bearer ")

	parsed, err := jwt.NewParser(
		jwt.WithValidMethods([]string{"ES256"}),
		jwt.WithIssuer(iss),
		jwt.WithAudience("authenticated"),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(time.Now),
	).Parse(tok, func(tk *jwt.Token) (any, error) {
		kid, _ := tk.Header["kid"].(string)
		key, ok := set.LookupKeyID(kid)
		if !ok {
			t.Fatalf("kid %q is not in the JWKS", kid)
		}
		var pub ecdsa.PublicKey
		if err := key.Raw(&pub); err != nil {
			return nil, err
		}
		return &pub, nil
	})
	if err != nil {
		t.Fatalf("user JWT does not verify with the published key: %v", err)
	}
	claims := parsed.Claims.(jwt.MapClaims)
	if claims["role"] != "authenticated" || claims["sub"] != gatewaytest.Alice {
		t.Errorf("claims = %v", claims)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
	if !strings.HasSuffix(string(payload), `,"iss":"`+iss+`"}`) {
		t.Errorf("payload %s does not end with the issuer", payload)
	}

	// mcp-server, whose path the issuer shares, still serves tools/call,
	// and reads PostgREST with user JWTs that carry the issuer.
	alice := "Bearer " + env.SessionToken(t, gatewaytest.Alice)
	if r := call(t, "POST", gw+"/functions/v1/mcp-server", alice, getAssignment); r.status != 200 || r.body != assignmentText {
		t.Fatalf("tools/call: %d %s", r.status, r.body)
	}
	wantPayload := `"sub":"` + gatewaytest.Alice + `","role":"authenticated","aud":"authenticated",`
	found := false
	for _, b := range bearers() {
		parts := strings.Split(strings.TrimPrefix(b, "Bearer "), ".")
		if len(parts) != 3 || b == rec.seen[0] {
			continue
		}
		p, _ := base64.RawURLEncoding.DecodeString(parts[1])
		if strings.HasPrefix(string(p), "{"+wantPayload) && strings.HasSuffix(string(p), `,"iss":"`+iss+`"}`) {
			found = true
		}
	}
	if !found {
		t.Errorf("mcp-server sent no user JWT with the issuer to PostgREST")
	}
	// Only the configured path serves the documents.
	if r := call(t, "GET", gw+"/.well-known/jwks.json", "", ""); r.status != 404 {
		t.Errorf("root JWKS: %d %s", r.status, r.body)
	}
}

// TestIssuerAtRoot: an issuer path outside /functions/v1/ is served at the
// gateway's root, and mcp-server is unaffected.
func TestIssuerAtRoot(t *testing.T) {
	gw, _, _ := startGatewayAt(t, func(base string) map[string]string {
		return map[string]string{"GATEWAY_ISSUER_URL": base + "/oidc"}
	})
	r := call(t, "GET", gw+"/oidc/.well-known/openid-configuration", "", "")
	if r.status != 200 || !strings.HasPrefix(r.body, `{"issuer":"`+gw+`/oidc","jwks_uri":"`+gw+`/oidc/.well-known/jwks.json"`) {
		t.Fatalf("discovery: %d %s", r.status, r.body)
	}
	if r := call(t, "GET", gw+"/oidc/.well-known/jwks.json", "", ""); r.status != 200 || !strings.HasPrefix(r.body, `{"keys":[{`) {
		t.Fatalf("jwks: %d %s", r.status, r.body)
	}
	if r := call(t, "POST", gw+"/functions/v1/mcp-server", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != 401 {
		t.Fatalf("mcp-server without a token: %d %s", r.status, r.body)
	}
}

// TestIssuerUnset: without GATEWAY_ISSUER_URL no issuer route exists.
func TestIssuerUnset(t *testing.T) {
	gw, cfg, _ := startGatewayAt(t, func(string) map[string]string { return nil })
	if cfg.IssuerURL != "" {
		t.Fatalf("IssuerURL = %q", cfg.IssuerURL)
	}
	for _, p := range []string{"/.well-known/openid-configuration", "/.well-known/jwks.json", "/oidc/.well-known/jwks.json"} {
		if r := call(t, "GET", gw+p, "", ""); r.status != 404 {
			t.Errorf("%s: %d %s", p, r.status, r.body)
		}
	}
	// Under mcp-server the path is the function's own: it answers as the
	// MCP endpoint (401 without a token), not with a document.
	if r := call(t, "GET", gw+"/functions/v1/mcp-server/oidc/.well-known/jwks.json", "", ""); r.status != 401 {
		t.Errorf("mcp-server sub-path: %d %s", r.status, r.body)
	}
}

// TestIssuerWithMCPServerDisabled: the documents stay reachable when
// mcp-server itself answers 404.
func TestIssuerWithMCPServerDisabled(t *testing.T) {
	gw, _, _ := startGatewayAt(t, func(base string) map[string]string {
		return map[string]string{"GATEWAY_ISSUER_URL": base + "/functions/v1/mcp-server/oidc", "MCP_SERVER_ENABLED": "false"}
	})
	if r := call(t, "GET", gw+"/functions/v1/mcp-server/oidc/.well-known/jwks.json", "", ""); r.status != 200 {
		t.Errorf("jwks: %d %s", r.status, r.body)
	}
	if r := call(t, "GET", gw+"/functions/v1/mcp-server", "", ""); r.status != 404 {
		t.Errorf("mcp-server: %d %s", r.status, r.body)
	}
}

func TestIssuerMount(t *testing.T) {
	tests := []struct {
		path       string
		inFunction bool
		rel        string
		wantErr    bool
	}{
		{"", false, "", false},
		{"/oidc", false, "/oidc", false},
		{"/functions/v1/mcp-server/oidc", true, "/oidc", false},
		{"/functions/v1/mcp-server", true, "", false},
		{"/mcp-server/oidc", true, "/oidc", false}, // behind a path-stripping proxy
		{"/functions/v1/mcp-serverx/oidc", false, "/functions/v1/mcp-serverx/oidc", false},
		{"/functions/v1/mcp-tokens/oidc", false, "", true},
		{"/mcp-tokens", false, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			in, rel, err := issuerMount(tc.path)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff([2]any{tc.inFunction, tc.rel}, [2]any{in, rel}); diff != "" {
				t.Errorf("mount (-want +got):\n%s", diff)
			}
		})
	}
}
