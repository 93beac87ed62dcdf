package oauthserver

import (
	"encoding/json"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// The redirect URIs real hosts register.
const (
	chatGPTRedirect   = "https://chatgpt.com/connector_platform_oauth_redirect"
	chatGPTConnector  = "https://chatgpt.com/connector/oauth/g-0123abcd4567"
	claudeAIRedirect  = "https://claude.ai/api/mcp/auth_callback"
	claudeComRedirect = "https://claude.com/api/mcp/auth_callback"
)

// approveAt runs the browser part for clientID returning to redirect.
func (h *harness) approveAt(clientID, redirect string) string {
	h.t.Helper()
	hc := h.newBrowser()
	v := h.authorizeParams(clientID)
	v.Set("redirect_uri", redirect)
	page := h.consentPage(hc, v)
	r := h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(h.t, page.body)}, "decision": {"approve"}})
	loc := r.header.Get("Location")
	if r.status != 303 || !strings.HasPrefix(loc, redirect+"?") {
		h.t.Fatalf("approve: %d %s", r.status, loc)
	}
	u, _ := url.Parse(loc)
	return u.Query().Get("code")
}

func (h *harness) exchangeAt(clientID, code, redirect string) reply {
	return h.postForm(h.hc, h.issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {testVerifier}})
}

// TestRealHostRegistrations: ChatGPT's and Claude's registrations, by
// metadata document and by Dynamic Client Registration, in documents
// shaped like theirs, each completing the flow at every redirect URI.
// ChatGPT's document prefers private_key_jwt and lists none among its
// choices; it is a public client.
func TestRealHostRegistrations(t *testing.T) {
	host := newCIMDHost(t)
	docs := map[string]func(id string) map[string]any{
		"/chatgpt.json": func(id string) map[string]any {
			return map[string]any{
				"client_id": id, "client_name": "ChatGPT", "client_uri": "https://chatgpt.com",
				"redirect_uris":                         []string{chatGPTRedirect, chatGPTConnector},
				"grant_types":                           []string{"authorization_code", "refresh_token"},
				"response_types":                        []string{"code"},
				"token_endpoint_auth_method":            "private_key_jwt",
				"token_endpoint_auth_methods_supported": []string{"private_key_jwt", "none"},
				"token_endpoint_auth_signing_alg":       "RS256",
				"jwks_uri":                              "https://chatgpt.com/oauth/jwks.json",
				"application_type":                      "web",
			}
		},
		"/claude.json": func(id string) map[string]any {
			return map[string]any{
				"client_id": id, "client_name": "Claude", "client_uri": "https://claude.ai",
				"redirect_uris":              []string{claudeAIRedirect, claudeComRedirect},
				"grant_types":                []string{"authorization_code", "refresh_token"},
				"response_types":             []string{"code"},
				"token_endpoint_auth_method": "none",
			}
		},
	}
	for path, doc := range docs {
		b, _ := json.Marshal(doc(host.url(path)))
		host.docs[path] = string(b)
	}
	h := newHarness(t, func(o *Options) { o.AllowPrivateCIMD = true; o.CIMDTLS = host.tls() })
	cimd := map[string][]string{
		"/chatgpt.json": {chatGPTRedirect, chatGPTConnector},
		"/claude.json":  {claudeAIRedirect, claudeComRedirect},
	}
	for path, redirects := range cimd {
		for _, redirect := range redirects {
			t.Run("metadata document "+path+" "+redirect, func(t *testing.T) {
				id := host.url(path)
				if tk := decodeTokens(t, h.exchangeAt(id, h.approveAt(id, redirect), redirect)); tk.RefreshToken == "" {
					t.Error("no refresh token")
				}
			})
		}
	}
	dcr := map[string]string{
		"ChatGPT": `{"client_name":"ChatGPT","redirect_uris":["` + chatGPTRedirect + `","` + chatGPTConnector + `"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"client_secret_post","scope":"mcp:read offline_access"}`,
		"Claude":  `{"client_name":"Claude","redirect_uris":["` + claudeAIRedirect + `","` + claudeComRedirect + `"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none","scope":"mcp:read"}`,
	}
	for name, body := range dcr {
		r := h.do(h.hc, "POST", h.issuer+"/register", "application/json", body)
		if r.status != 201 {
			t.Fatalf("%s registration: %d %s", name, r.status, r.body)
		}
		var reg struct {
			ClientID     string   `json:"client_id"`
			RedirectURIs []string `json:"redirect_uris"`
			Method       string   `json:"token_endpoint_auth_method"`
		}
		json.Unmarshal([]byte(r.body), &reg)
		if reg.Method != "none" {
			t.Errorf("%s: token_endpoint_auth_method %q, want none", name, reg.Method)
		}
		for _, redirect := range reg.RedirectURIs {
			t.Run("registration "+name+" "+redirect, func(t *testing.T) {
				if tk := decodeTokens(t, h.exchangeAt(reg.ClientID, h.approveAt(reg.ClientID, redirect), redirect)); tk.RefreshToken == "" {
					t.Error("no refresh token")
				}
			})
		}
	}
}

// TestOpenIDConfiguration: the OpenID form of the metadata is a valid
// OpenID Provider Metadata document (OpenID Connect Discovery 1.0 §3):
// every REQUIRED field present, issuer identical to the issuer it is
// served for, RS256 among the ID token algorithms, endpoints under the
// issuer, and the key set it names served.
func TestOpenIDConfiguration(t *testing.T) {
	h := newHarness(t, nil)
	r := h.get(h.hc, h.issuer+"/.well-known/openid-configuration")
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported", "subject_types_supported", "id_token_signing_alg_values_supported"} {
		if _, ok := doc[f]; !ok {
			t.Errorf("REQUIRED %s missing", f)
		}
	}
	if doc["issuer"] != h.issuer {
		t.Errorf("issuer %v, want %s", doc["issuer"], h.issuer)
	}
	strs := func(k string) []string {
		var out []string
		for _, v := range doc[k].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	if !slices.Contains(strs("id_token_signing_alg_values_supported"), "RS256") {
		t.Error("id_token_signing_alg_values_supported lacks RS256")
	}
	if !slices.Contains(strs("response_types_supported"), "code") {
		t.Error("response_types_supported lacks code")
	}
	for _, s := range strs("subject_types_supported") {
		if s != "public" && s != "pairwise" {
			t.Errorf("subject type %q", s)
		}
	}
	for _, f := range []string{"authorization_endpoint", "token_endpoint", "jwks_uri", "registration_endpoint", "revocation_endpoint"} {
		if v, _ := doc[f].(string); !strings.HasPrefix(v, h.issuer+"/") {
			t.Errorf("%s %q is not under the issuer", f, v)
		}
	}
	if k := h.get(h.hc, doc["jwks_uri"].(string)); k.status != 200 || k.body != `{"keys":[]}` {
		t.Errorf("jwks_uri: %d %s", k.status, k.body)
	}
}

// TestSpecialPurposeRanges: every range of the IANA IPv4 and IPv6
// Special-Purpose Address Registries, IPv4 and IPv6 multicast and the
// IPv4-compatible block are refused at both edges and inside; the
// addresses just outside each range, and ordinary public addresses, pass.
func TestSpecialPurposeRanges(t *testing.T) {
	registry := []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16",
		"192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"255.255.255.255/32",
		"::/128", "::1/128", "::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64",
		"2001::/23", "2001::/32", "2001:db8::/32", "2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16",
		"fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
	}
	var prefixes []netip.Prefix
	for _, s := range registry {
		prefixes = append(prefixes, netip.MustParsePrefix(s))
	}
	inSome := func(a netip.Addr) bool {
		for _, p := range prefixes {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	for _, p := range prefixes {
		first, last := p.Addr(), lastAddr(p)
		mid := first
		for range 3 {
			if n := mid.Next(); p.Contains(n) {
				mid = n
			}
		}
		for _, a := range []netip.Addr{first, mid, last} {
			if isPublicAddr(a) {
				t.Errorf("%s (in %s) is treated as public", a, p)
			}
		}
		for _, a := range []netip.Addr{first.Prev(), last.Next()} {
			if a.IsValid() && !inSome(a) && !isPublicAddr(a) {
				t.Errorf("%s (just outside %s) is refused", a, p)
			}
		}
	}
	for _, s := range []string{
		"8.8.8.8", "1.1.1.1", "11.0.0.1", "100.128.0.1", "172.32.0.1", "192.0.3.1", "223.255.255.255",
		"2606:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001::1", "2001:200::1", "2003::1", "2620:4f:8001::1",
	} {
		if !isPublicAddr(netip.MustParseAddr(s)) {
			t.Errorf("public %s is refused", s)
		}
	}
	// Zoned and mapped spellings are judged too.
	for _, s := range []string{"fe80::1%eth0", "::ffff:8.8.8.8", "::8.8.8.8", "2002:808:808::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "64:ff9b:1::808:808"} {
		if isPublicAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s is treated as public", s)
		}
	}
}

// lastAddr is the highest address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
