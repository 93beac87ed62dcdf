package oauthserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cimdHost serves metadata documents over TLS on 127.0.0.1.
type cimdHost struct {
	srv     *httptest.Server
	fetches atomic.Int32
	docs    map[string]string // path → body
	cache   string
}

func newCIMDHost(t *testing.T) *cimdHost {
	c := &cimdHost{docs: map[string]string{}, cache: "max-age=600"}
	c.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.fetches.Add(1)
		body, ok := c.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", c.cache)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *cimdHost) url(path string) string { return c.srv.URL + path }

func (c *cimdHost) tls() *tls.Config {
	return c.srv.Client().Transport.(*http.Transport).TLSClientConfig
}

// TestCIMD: a metadata-document client goes through the whole flow, and
// its document is fetched once while cached.
func TestCIMD(t *testing.T) {
	host := newCIMDHost(t)
	id := host.url("/client.json")
	host.docs["/client.json"] = `{"client_id":"` + id + `","client_name":"Doc Client","redirect_uris":["` + testRedirect + `"],"token_endpoint_auth_method":"none"}`
	h := newHarness(t, func(o *Options) { o.AllowPrivateCIMD = true; o.CIMDTLS = host.tls() })
	code := h.approve(id)
	tk := decodeTokens(t, h.exchange(id, code))
	if tk.AccessToken == "" {
		t.Fatal("no access token")
	}
	if n := host.fetches.Load(); n != 1 {
		t.Errorf("document fetched %d times, want 1 (cached for max-age)", n)
	}
	h.clock.Add(11 * time.Minute)
	if _, err := h.srv.resolveClient(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if n := host.fetches.Load(); n != 2 {
		t.Errorf("after max-age: %d fetches, want 2", n)
	}
}

// TestCIMDRefusals: every document rule, with the exact invalid_client
// description, checked at the token endpoint.
func TestCIMDRefusals(t *testing.T) {
	host := newCIMDHost(t)
	doc := func(id, extra string) string {
		return `{"client_id":"` + id + `","redirect_uris":["` + testRedirect + `"]` + extra + `}`
	}
	host.docs["/other-id.json"] = doc("https://elsewhere.example/c.json", "")
	host.docs["/secret.json"] = doc(host.url("/secret.json"), `,"token_endpoint_auth_method":"private_key_jwt"`)
	host.docs["/big.json"] = doc(host.url("/big.json"), `,"client_name":"`+strings.Repeat("x", 6000)+`"`)
	host.docs["/bad-redirect.json"] = `{"client_id":"` + host.url("/bad-redirect.json") + `","redirect_uris":["http://evil.example/cb"]}`
	host.docs["/not-json.json"] = `<html>`
	cases := []struct{ id, desc string }{
		{host.url("/other-id.json"), "The client ID metadata document's client_id must equal its URL"},
		{host.url("/secret.json"), `Only public clients (token_endpoint_auth_method \"none\") are supported`},
		{host.url("/big.json"), "The client ID metadata document is larger than 5 KiB"},
		{host.url("/bad-redirect.json"), `The client ID metadata document is invalid: A redirect URI uses http on a host that is not a loopback address`},
		{host.url("/not-json.json"), "The client ID metadata document is not a JSON object of client metadata"},
		{host.url("/missing.json"), "The client ID metadata document could not be fetched (HTTP 404)"},
		{"http://example.com/c.json", "A client ID metadata document URL must be an https URL"},
		{"https://example.com/", "A client ID metadata document URL must have a path"},
		{"https://example.com/a/../c.json", "A client ID metadata document URL must not contain dot segments"},
		{"https://u@example.com/c.json", "A client ID metadata document URL must not contain user information or a fragment"},
	}
	h := newHarness(t, func(o *Options) { o.AllowPrivateCIMD = true; o.CIMDTLS = host.tls() })
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			r := h.postForm(h.hc, h.issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {"c"}, "code_verifier": {testVerifier}, "client_id": {tc.id}})
			checkJSON(t, r, 401, `{"error":"invalid_client","error_description":"`+tc.desc+`"}`)
		})
	}
}

// TestCIMDPrivateAddress: without the test allowance, a document on a
// loopback address is refused after resolution, both as an IP literal and
// through a name that resolves to one ("localhost"), before any request.
func TestCIMDPrivateAddress(t *testing.T) {
	host := newCIMDHost(t)
	host.docs["/client.json"] = `{}`
	h := newHarness(t, func(o *Options) { o.CIMDTLS = host.tls() })
	port := strings.TrimPrefix(host.srv.URL, "https://127.0.0.1:")
	for _, id := range []string{host.url("/client.json"), "https://localhost:" + port + "/client.json"} {
		r := h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(id).Encode())
		if r.status != 400 || !strings.Contains(r.body, "must resolve to a public address") || r.header.Get("Location") != "" {
			t.Errorf("%s: %d %s", id, r.status, r.body)
		}
	}
	if n := host.fetches.Load(); n != 0 {
		t.Errorf("%d requests reached the private host", n)
	}
}

func TestIsPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false,
		"192.168.1.1": false, "169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "::1": false,
		"fd00::1": false, "fe80::1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "224.0.0.1": false,
		"64:ff9b::a00:1": false, "198.18.0.1": false,
	} {
		if got := isPublicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("isPublicAddr(%s) = %v", s, got)
		}
	}
}

func TestCacheTTL(t *testing.T) {
	for cc, want := range map[string]time.Duration{
		"": 5 * time.Minute, "max-age=600": 10 * time.Minute, "public, max-age=5": time.Minute,
		"max-age=999999": 24 * time.Hour, "no-store": 0, "no-cache": 0, "max-age=0": 0, "max-age=x": 5 * time.Minute,
	} {
		if got := cacheTTL(cc); got != want {
			t.Errorf("cacheTTL(%q) = %v, want %v", cc, got, want)
		}
	}
}

// TestCIMDAuthMethods: which token endpoint authentication methods make a
// metadata document a public client. The plural
// token_endpoint_auth_methods_supported, which SEP-3149 makes the one a
// document carries, decides when it lists anything, and "none" among it
// is enough; without it the singular decides, or nothing at all (the
// implicit public client). Each document is checked at the token endpoint
// (an accepted one reaches the code check), and a document with only the
// plural goes through the whole flow.
func TestCIMDAuthMethods(t *testing.T) {
	const (
		pluralRefused   = `{"error":"invalid_client","error_description":"Only public clients are supported: token_endpoint_auth_methods_supported must include \"none\""}`
		singularRefused = `{"error":"invalid_client","error_description":"Only public clients (token_endpoint_auth_method \"none\") are supported"}`
		accepted        = `{"error":"invalid_grant","error_description":"The authorization code is invalid, expired or already used"}`
	)
	cases := []struct {
		name, methods string // the document's members, JSON
		status        int
		body          string
	}{
		{"plural only, none", `"token_endpoint_auth_methods_supported":["none"]`, 400, accepted},
		{"plural only, none among others", `"token_endpoint_auth_methods_supported":["private_key_jwt","none"]`, 400, accepted},
		{"plural only, without none", `"token_endpoint_auth_methods_supported":["private_key_jwt"]`, 401, pluralRefused},
		{"plural only, a client secret", `"token_endpoint_auth_methods_supported":["client_secret_basic"]`, 401, pluralRefused},
		{"plural with none, singular prefers another (ChatGPT)", `"token_endpoint_auth_method":"private_key_jwt","token_endpoint_auth_methods_supported":["none","private_key_jwt"]`, 400, accepted},
		{"plural without none decides over the singular", `"token_endpoint_auth_method":"none","token_endpoint_auth_methods_supported":["private_key_jwt"]`, 401, pluralRefused},
		{"both none", `"token_endpoint_auth_method":"none","token_endpoint_auth_methods_supported":["none"]`, 400, accepted},
		{"an empty plural leaves the singular", `"token_endpoint_auth_method":"none","token_endpoint_auth_methods_supported":[]`, 400, accepted},
		{"singular only, none", `"token_endpoint_auth_method":"none"`, 400, accepted},
		{"singular only, another", `"token_endpoint_auth_method":"private_key_jwt"`, 401, singularRefused},
		{"neither (implicit public client)", ``, 400, accepted},
	}
	host := newCIMDHost(t)
	h := newHarness(t, func(o *Options) { o.AllowPrivateCIMD = true; o.CIMDTLS = host.tls() })
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := fmt.Sprintf("/methods-%d.json", i)
			id := host.url(path)
			members := `"client_id":"` + id + `","client_name":"Doc Client","redirect_uris":["` + testRedirect + `"]`
			if tc.methods != "" {
				members += "," + tc.methods
			}
			host.docs[path] = "{" + members + "}"
			r := h.postForm(h.hc, h.issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {"made-up"}, "code_verifier": {testVerifier}, "client_id": {id}})
			checkJSON(t, r, tc.status, tc.body)
		})
	}
	t.Run("plural only, the whole flow", func(t *testing.T) {
		id := host.url("/plural-only.json")
		host.docs["/plural-only.json"] = `{"client_id":"` + id + `","client_name":"Doc Client","redirect_uris":["` + testRedirect + `"],"token_endpoint_auth_methods_supported":["none"]}`
		if tk := decodeTokens(t, h.exchange(id, h.approve(id))); tk.AccessToken == "" {
			t.Error("no access token")
		}
	})
}
