package oauthserver

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/goldenfile"
)

// checkGolden compares got with testdata/name (goldenfile, -update).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// TestMetadataGolden pins the RFC 8414 document and its OpenID form,
// served at every well-known location.
func TestMetadataGolden(t *testing.T) {
	h := newHarness(t, nil)
	base := strings.TrimSuffix(h.issuer, "/functions/v1/mcp-server/oauth")
	norm := func(b string) []byte { return []byte(strings.ReplaceAll(b, base, "https://project.example") + "\n") }
	for _, p := range []string{h.issuer + "/.well-known/oauth-authorization-server", base + "/.well-known/oauth-authorization-server/functions/v1/mcp-server/oauth"} {
		r := h.get(h.hc, p)
		if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%s: %d", p, r.status)
		}
		checkGolden(t, "metadata.golden", norm(r.body))
	}
	for _, p := range []string{h.issuer + "/.well-known/openid-configuration", base + "/.well-known/openid-configuration/functions/v1/mcp-server/oauth"} {
		r := h.get(h.hc, p)
		if r.status != 200 {
			t.Fatalf("%s: %d", p, r.status)
		}
		checkGolden(t, "openid-configuration.golden", norm(r.body))
	}
	if r := h.get(h.hc, h.issuer+"/jwks.json"); r.body != `{"keys":[]}` {
		t.Errorf("jwks: %s", r.body)
	}
}

// TestRegister: RFC 7591 for public clients, with exact error bodies.
func TestRegister(t *testing.T) {
	cases := []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"not json", "text/plain", `{}`, 400, `{"error":"invalid_client_metadata","error_description":"The registration request must be application/json"}`},
		{"malformed", "application/json", `[1]`, 400, `{"error":"invalid_client_metadata","error_description":"The registration request must be a JSON object of client metadata"}`},
		{"no redirect uris", "application/json", `{"client_name":"x"}`, 400, `{"error":"invalid_client_metadata","error_description":"redirect_uris must list at least one URI"}`},
		{"http non-loopback", "application/json", `{"redirect_uris":["http://evil.example/cb"]}`, 400,
			`{"error":"invalid_redirect_uri","error_description":"A redirect URI uses http on a host that is not a loopback address"}`},
		{"custom scheme", "application/json", `{"redirect_uris":["myapp://cb"]}`, 400,
			`{"error":"invalid_redirect_uri","error_description":"A redirect URI must use https (or http on a loopback address)"}`},
		{"fragment", "application/json", `{"redirect_uris":["https://a.example/cb#f"]}`, 400,
			`{"error":"invalid_redirect_uri","error_description":"A redirect URI must not contain a fragment"}`},
		{"javascript", "application/json", `{"redirect_uris":["javascript:alert(1)"]}`, 400,
			`{"error":"invalid_redirect_uri","error_description":"A redirect URI is not an absolute URL"}`},
		{"user info", "application/json", `{"redirect_uris":["https://u:p@a.example/cb"]}`, 400,
			`{"error":"invalid_redirect_uri","error_description":"A redirect URI must not contain user information"}`},
		{"bad application type", "application/json", `{"redirect_uris":["https://a.example/cb"],"application_type":"service"}`, 400,
			`{"error":"invalid_client_metadata","error_description":"application_type must be \"web\" or \"native\""}`},
		{"implicit grant", "application/json", `{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}`, 400,
			`{"error":"invalid_client_metadata","error_description":"grant_types may contain only \"authorization_code\" and \"refresh_token\""}`},
		{"token response type", "application/json", `{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`, 400,
			`{"error":"invalid_client_metadata","error_description":"response_types may contain only \"code\""}`},
		{"too many uris", "application/json", `{"redirect_uris":["https://a.example/1","https://a.example/2","https://a.example/3","https://a.example/4","https://a.example/5"]}`, 400,
			`{"error":"invalid_client_metadata","error_description":"redirect_uris may list at most 4 URIs"}`},
		{"too large", "application/json", `{"client_name":"` + strings.Repeat("a", maxFormBytes) + `"}`, 413,
			`{"error":"invalid_request","error_description":"Request body too large"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			checkJSON(t, h.do(h.hc, "POST", h.issuer+"/register", tc.contentType, tc.body), tc.status, tc.want)
		})
	}
}

// TestRegisterAnswer: the answer echoes the metadata, forces public
// client authentication and signs a client_id that verifies.
func TestRegisterAnswer(t *testing.T) {
	h := newHarness(t, nil)
	r := h.do(h.hc, "POST", h.issuer+"/register", "application/json",
		`{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"token_endpoint_auth_method":"client_secret_post","grant_types":["authorization_code","refresh_token"],"scope":"mcp:read"}`)
	if r.status != 201 || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var got map[string]any
	json.Unmarshal([]byte(r.body), &got)
	id, _ := got["client_id"].(string)
	c, ok := h.srv.decodeClientID(id)
	if !ok || c.Name != "Claude" || !c.HasRedirect("https://claude.ai/api/mcp/auth_callback") {
		t.Fatalf("client_id does not verify: %v %+v", ok, c)
	}
	delete(got, "client_id")
	want := map[string]any{"client_id_issued_at": float64(h.clock.Now().Unix()), "client_name": "Claude",
		"redirect_uris": []any{"https://claude.ai/api/mcp/auth_callback"}, "grant_types": []any{"authorization_code", "refresh_token"},
		"response_types": []any{"code"}, "token_endpoint_auth_method": "none", "application_type": "web"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Another server secret (or a rotated-away one) does not accept it.
	other := newHarness(t, func(o *Options) { o.Secrets = []string{strings.Repeat("z", 40)} })
	if _, ok := other.srv.decodeClientID(id); ok {
		t.Error("client_id verifies under another secret")
	}
	rotated := newHarness(t, func(o *Options) { o.Secrets = []string{strings.Repeat("z", 40), testSecret} })
	if _, ok := rotated.srv.decodeClientID(id); !ok {
		t.Error("client_id fails after rotation with the old secret kept")
	}
}

// FuzzDecodeClientID: arbitrary client ids never panic and never verify.
func FuzzDecodeClientID(f *testing.F) {
	s, err := New(Options{Issuer: "https://x.example/o", ResourceURL: "https://x.example/m", AuthURL: "https://x.example/a",
		Providers: []string{"github"}, Secrets: []string{testSecret}, Store: newMemStore(), Mint: func(string, []string, string, float64, time.Time) (string, error) { return "", nil }})
	if err != nil {
		f.Fatal(err)
	}
	good, _ := s.encodeClientID(dcrPayload{Redirect: []string{"https://a.example/cb"}})
	f.Add(good)
	f.Add("mcpc_.")
	f.Add("mcpc_e30.AAAA")
	f.Fuzz(func(t *testing.T, id string) {
		if c, ok := s.decodeClientID(id); ok && id != good {
			t.Errorf("forged id %q verified as %+v", id, c)
		}
	})
}

// FuzzCheckRedirectURI: whatever is accepted is https, or http on loopback,
// without a fragment.
func FuzzCheckRedirectURI(f *testing.F) {
	for _, s := range []string{"https://a.example/cb", "http://127.0.0.1:1/cb", "http://localhost/cb", "http://[::1]:8/x", "myapp://x", "https://a#b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkRedirectURI(raw) != "" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || strings.Contains(raw, "#") || !(u.Scheme == "https" || (u.Scheme == "http" && isLoopbackHost(u.Hostname()))) {
			t.Errorf("accepted %q", raw)
		}
	})
}

// TestClientIDSpelledOnlyOneWay: a signed client_id is accepted only in the
// spelling the server issued. Base64 decoding skips line breaks and ignores
// unused trailing bits, so without the canonical check these variants
// (the first found by FuzzDecodeClientID) verified as the same client.
func TestClientIDSpelledOnlyOneWay(t *testing.T) {
	s, err := New(Options{Issuer: "https://x.example/o", ResourceURL: "https://x.example/m", AuthURL: "https://x.example/a",
		Providers: []string{"github"}, Secrets: []string{testSecret}, Store: newMemStore(), Mint: func(string, []string, string, float64, time.Time) (string, error) { return "", nil }})
	if err != nil {
		t.Fatal(err)
	}
	good, err := s.encodeClientID(dcrPayload{Redirect: []string{"https://a.example/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.decodeClientID(good); !ok {
		t.Fatalf("the issued id %q does not verify", good)
	}
	dot := strings.LastIndexByte(good, '.')
	// A 32-byte MAC in unpadded base64url ends in a character carrying two
	// unused bits; setting the lowest one keeps the decoded bytes.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, good[len(good)-1])
	flipped := good[:len(good)-1] + string(alphabet[last^1])
	for name, id := range map[string]string{
		"line feed in the signature":       good[:dot+5] + "\n" + good[dot+5:],
		"carriage return in the signature": good[:dot+5] + "\r" + good[dot+5:],
		"trailing line feed":               good + "\n",
		"unused bits set":                  flipped,
	} {
		if _, ok := s.decodeClientID(id); ok {
			t.Errorf("%s: %q verified", name, id)
		}
	}
}
