package oauthserver

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// redirectParams returns the query of a 303 to the client's redirect URI.
func redirectParams(t *testing.T, r reply) url.Values {
	t.Helper()
	if r.status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303; body %s", r.status, r.body)
	}
	loc, err := url.Parse(r.header.Get("Location"))
	if err != nil || !strings.HasPrefix(r.header.Get("Location"), testRedirect+"?") {
		t.Fatalf("redirected to %q, want %s?…", r.header.Get("Location"), testRedirect)
	}
	return loc.Query()
}

// TestAuthorizeRules: problems found before the client and redirect URI
// are verified give an HTML page (never a redirect); later ones go to the
// client with error, error_description, state and iss.
func TestAuthorizeRules(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(h *harness, v url.Values)
		// page: status and a phrase of the HTML page; else redirect error.
		pageStatus int
		page       string
		err, desc  string
		noState    bool
	}{
		{name: "unknown client", mutate: func(h *harness, v url.Values) { v.Set("client_id", "someone") },
			pageStatus: 400, page: "registration was not recognised"},
		{name: "forged client id", mutate: func(h *harness, v url.Values) {
			id := v.Get("client_id")
			v.Set("client_id", id[:20]+"x"+id[21:])
		}, pageStatus: 400, page: "registration was not recognised"},
		{name: "missing client id", mutate: func(h *harness, v url.Values) { v.Del("client_id") },
			pageStatus: 400, page: "client_id is required"},
		{name: "wrong redirect uri", mutate: func(h *harness, v url.Values) { v.Set("redirect_uri", "https://evil.example/cb") },
			pageStatus: 400, page: "is not one it registered"},
		{name: "redirect uri differing in port", mutate: func(h *harness, v url.Values) { v.Set("redirect_uri", "http://127.0.0.1:1/oauth/callback") },
			pageStatus: 400, page: "is not one it registered"},
		{name: "redirect uri with fragment", mutate: func(h *harness, v url.Values) { v.Set("redirect_uri", testRedirect+"#x") },
			pageStatus: 400, page: "is not one it registered"},
		{name: "missing pkce", mutate: func(h *harness, v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") },
			err: "invalid_request", desc: "code_challenge is required (PKCE with S256)"},
		{name: "plain pkce", mutate: func(h *harness, v url.Values) { v.Set("code_challenge_method", "plain") },
			err: "invalid_request", desc: `code_challenge_method must be "S256"`},
		{name: "pkce method omitted", mutate: func(h *harness, v url.Values) { v.Del("code_challenge_method") },
			err: "invalid_request", desc: `code_challenge_method must be "S256"`},
		{name: "malformed challenge", mutate: func(h *harness, v url.Values) { v.Set("code_challenge", "short") },
			err: "invalid_request", desc: "code_challenge must be the 43-character base64url SHA-256 of the code verifier"},
		{name: "token response type", mutate: func(h *harness, v url.Values) { v.Set("response_type", "token") },
			err: "unsupported_response_type", desc: `response_type must be "code"`},
		{name: "resource mismatch", mutate: func(h *harness, v url.Values) { v.Set("resource", "https://other.example/mcp") },
			err: "invalid_target", desc: "resource must be " + h0resource},
		{name: "repeated parameter", mutate: func(h *harness, v url.Values) { v.Add("scope", "mcp:write") },
			err: "invalid_request", desc: "A parameter is repeated"},
		{name: "state too long", mutate: func(h *harness, v url.Values) { v.Set("state", strings.Repeat("s", 1025)) },
			err: "invalid_request", desc: "state is longer than 1024 characters", noState: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			v := h.authorizeParams(h.register())
			tc.mutate(h, v)
			r := h.get(h.hc, h.issuer+"/authorize?"+v.Encode())
			if tc.page != "" {
				if r.status != tc.pageStatus || r.header.Get("Location") != "" || !strings.Contains(r.body, tc.page) {
					t.Fatalf("got %d Location %q body %s; want page %d containing %q", r.status, r.header.Get("Location"), r.body, tc.pageStatus, tc.page)
				}
				checkPageHeaders(t, r)
				return
			}
			want := url.Values{"error": {tc.err}, "error_description": {strings.ReplaceAll(tc.desc, h0resource, h.srv.opts.ResourceURL)},
				"state": {"xyz-state"}, "iss": {h.issuer}}
			if tc.noState {
				want.Del("state")
			}
			if diff := cmp.Diff(want, redirectParams(t, r)); diff != "" {
				t.Errorf("redirect (-want +got):\n%s", diff)
			}
		})
	}
}

// checkPageHeaders pins the security headers of every HTML page.
func checkPageHeaders(t *testing.T, r reply) {
	t.Helper()
	csp := r.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "style-src 'sha256-"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	for k, v := range map[string]string{"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"} {
		if got := r.header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if strings.Contains(r.body, "<script") || strings.Contains(r.body, "src=") || strings.Contains(r.body, "<link") {
		t.Error("page loads or runs something external")
	}
}

// TestSignInRedirect: the browser goes to Supabase Auth's PKCE flow with
// the gateway's callback, and the pending cookie is HttpOnly, Lax, scoped
// to the issuer path and short-lived.
func TestSignInRedirect(t *testing.T) {
	h := newHarness(t, nil)
	r := h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(h.register()).Encode())
	loc, _ := url.Parse(r.header.Get("Location"))
	q := loc.Query()
	if q.Get("provider") != "github" || q.Get("redirect_to") != h.issuer+"/callback" || q.Get("code_challenge_method") != "s256" || len(q.Get("code_challenge")) != 43 {
		t.Errorf("sign-in URL %s", loc)
	}
	sc := r.header.Get("Set-Cookie")
	for _, want := range []string{"mcp_oauth=", "Path=/functions/v1/mcp-server/oauth", "HttpOnly", "SameSite=Lax", "Max-Age=600"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %q", sc, want)
		}
	}
	// With an https issuer the cookie is Secure and __Secure- prefixed.
	s := &Server{secure: true}
	if s.cookieName() != "__Secure-mcp_oauth" {
		t.Error(s.cookieName())
	}
}

// TestProviderChooser: several providers give an accessible choice page.
func TestProviderChooser(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Providers = []string{"github", "azure"} })
	hc := h.newBrowser()
	r := h.get(hc, h.issuer+"/authorize?"+h.authorizeParams(h.register()).Encode())
	if r.status != 200 || !strings.Contains(r.body, "Continue with GitHub") || !strings.Contains(r.body, "Continue with Microsoft") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	checkPageHeaders(t, r)
	r = h.get(hc, h.issuer+"/signin?provider=azure")
	loc, _ := url.Parse(r.header.Get("Location"))
	if r.status != 303 || loc.Query().Get("provider") != "azure" {
		t.Errorf("signin: %d %s", r.status, loc)
	}
	if r := h.get(hc, h.issuer+"/signin?provider=google"); r.status != 400 {
		t.Errorf("unoffered provider: %d", r.status)
	}
	if r := h.get(h.newBrowser(), h.issuer+"/signin?provider=azure"); r.status != 400 || !strings.Contains(r.body, "expired") {
		t.Errorf("no pending cookie: %d", r.status)
	}
}

// TestConsentPage: what the person sees and the headers that protect it.
func TestConsentPage(t *testing.T) {
	h := newHarness(t, nil)
	r := h.consentPage(h.newBrowser(), h.authorizeParams(h.register()))
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	checkPageHeaders(t, r)
	if csp := r.header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "form-action 'self' http://127.0.0.1:33418") {
		t.Errorf("CSP form-action: %q", csp)
	}
	for _, want := range []string{"Allow Test Assistant to use Pawtograder as you?",
		`<span class="addr"><span class="scheme">http://</span><wbr><span class="host" title="127.0.0.1:33418"><span class="reg">127.0.0.1:33418</span></span><wbr><span class="path">/oauth/callback</span></span>`, "alice@example.edu",
		"Read what you can see", "at most 30 days", "Test Assistant — connected with OAuth", `lang="en"`, `name="viewport"`,
		`value="approve">Approve</button>`, `value="deny">Deny</button>`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
}

// TestConsentCSRF: a post without the page's token, or with the token of
// another authorization, decides nothing.
func TestConsentCSRF(t *testing.T) {
	h := newHarness(t, nil)
	clientID := h.register()
	hcA, hcB := h.newBrowser(), h.newBrowser()
	pageA := h.consentPage(hcA, h.authorizeParams(clientID))
	pageB := h.consentPage(hcB, h.authorizeParams(clientID))
	for name, tok := range map[string]string{"missing": "", "from another authorization": csrfOf(t, pageB.body), "garbage": "AAAA"} {
		r := h.postForm(hcA, h.issuer+"/consent", url.Values{"csrf_token": {tok}, "decision": {"approve"}})
		if r.status != 403 || r.header.Get("Location") != "" || !strings.Contains(r.body, "not sent from the consent page") {
			t.Errorf("%s: %d %q", name, r.status, r.header.Get("Location"))
		}
	}
	if len(h.store.codes) != 0 {
		t.Error("a refused post issued a code")
	}
	// The real page still works afterwards.
	r := h.postForm(hcA, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(t, pageA.body)}, "decision": {"approve"}})
	if q := redirectParams(t, r); q.Get("code") == "" || q.Get("state") != "xyz-state" || q.Get("iss") != h.issuer {
		t.Errorf("approve: %v", q)
	}
	// And the pending authorization is spent: posting again is refused.
	r = h.postForm(hcA, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(t, pageA.body)}, "decision": {"approve"}})
	if r.status != 400 || !strings.Contains(r.body, "expired") {
		t.Errorf("second approve: %d", r.status)
	}
}

// TestDeny sends access_denied to the client and issues nothing.
func TestDeny(t *testing.T) {
	h := newHarness(t, nil)
	hc := h.newBrowser()
	page := h.consentPage(hc, h.authorizeParams(h.register()))
	r := h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(t, page.body)}, "decision": {"deny"}})
	want := url.Values{"error": {"access_denied"}, "error_description": {"The user denied the request"}, "state": {"xyz-state"}, "iss": {h.issuer}}
	if diff := cmp.Diff(want, redirectParams(t, r)); diff != "" {
		t.Errorf("deny (-want +got):\n%s", diff)
	}
	if len(h.store.codes) != 0 {
		t.Error("deny issued a code")
	}
}

// TestStudentRefused: a person who is not staff gets the page and no code.
func TestStudentRefused(t *testing.T) {
	h := newHarness(t, nil)
	hc := h.newBrowser()
	r := h.signIn(hc, h.authorizeParams(h.register()), samID, "sam@example.edu")
	if r.status != 403 || !strings.Contains(r.body, "Only instructors and graders can connect assistants") || !strings.Contains(r.body, "sam@example.edu") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	checkPageHeaders(t, r)
	if r := h.get(hc, h.issuer+"/consent"); r.status != 400 {
		t.Errorf("consent after refusal: %d", r.status)
	}
	if len(h.store.codes) != 0 {
		t.Error("a student got a code")
	}
}

// TestCallbackFailures: a sign-in cancelled at the provider goes back to
// the client as access_denied; a bad Supabase code is a page; no cookie is
// a page; a tampered cookie is a page.
func TestCallbackFailures(t *testing.T) {
	h := newHarness(t, nil)
	hc := h.newBrowser()
	h.get(hc, h.issuer+"/authorize?"+h.authorizeParams(h.register()).Encode())
	r := h.get(hc, h.issuer+"/callback?error=access_denied&error_description=cancelled")
	want := url.Values{"error": {"access_denied"}, "error_description": {"Sign-in did not complete"}, "state": {"xyz-state"}, "iss": {h.issuer}}
	if diff := cmp.Diff(want, redirectParams(t, r)); diff != "" {
		t.Errorf("cancelled (-want +got):\n%s", diff)
	}

	hc = h.newBrowser()
	h.get(hc, h.issuer+"/authorize?"+h.authorizeParams(h.register()).Encode())
	if r := h.get(hc, h.issuer+"/callback?code=unknown"); r.status != 400 || !strings.Contains(r.body, "did not accept this sign-in") {
		t.Errorf("bad code: %d %s", r.status, r.body)
	}
	if r := h.get(h.newBrowser(), h.issuer+"/callback?code=x"); r.status != 400 || !strings.Contains(r.body, "expired") {
		t.Errorf("no cookie: %d", r.status)
	}
	req, _ := http.NewRequest("GET", h.issuer+"/callback?code=x", nil)
	req.AddCookie(&http.Cookie{Name: "mcp_oauth", Value: "dGFtcGVyZWQ"})
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("tampered cookie: %d", resp.StatusCode)
	}
	// The pending authorization expires after 10 minutes.
	hc = h.newBrowser()
	h.get(hc, h.issuer+"/authorize?"+h.authorizeParams(h.register()).Encode())
	h.clock.Add(DefaultPendingTTL)
	if r := h.get(hc, h.issuer+"/callback?code=x"); r.status != 400 || !strings.Contains(r.body, "expired") {
		t.Errorf("expired pending: %d", r.status)
	}
}

// TestScopes: unknown scopes are dropped (RFC 6749 §3.3) and the token
// response says what was granted; mcp:write is granted when asked for.
func TestScopes(t *testing.T) {
	cases := map[string]string{
		"":                                  "mcp:read",
		"openid profile":                    "mcp:read",
		"mcp:read mcp:write offline_access": "mcp:read mcp:write",
		"mcp:write":                         "mcp:write",
		"mcp:admin mcp:read":                "mcp:read",
	}
	for asked, want := range cases {
		if got := strings.Join(grantScopes(asked), " "); got != want {
			t.Errorf("grantScopes(%q) = %q, want %q", asked, got, want)
		}
	}
	h := newHarness(t, nil)
	clientID := h.register()
	hc := h.newBrowser()
	v := h.authorizeParams(clientID)
	v.Set("scope", "mcp:read unknown:scope")
	page := h.consentPage(hc, v)
	r := h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(t, page.body)}, "decision": {"approve"}})
	tk := decodeTokens(t, h.exchange(clientID, redirectParams(t, r).Get("code")))
	if tk.Scope != "mcp:read" {
		t.Errorf("scope = %q", tk.Scope)
	}
}

// TestRateLimits: registrations and authorization attempts per address.
func TestRateLimits(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.RegisterPerMinute = 2; o.AuthorizePerMinute = 1 })
	h.register()
	h.register()
	r := h.do(h.hc, "POST", h.issuer+"/register", "application/json", `{"redirect_uris":["https://a.example/cb"]}`)
	checkJSON(t, r, 429, `{"error":"temporarily_unavailable","error_description":"Too many requests from this address; try again in a minute"}`)
	if r.header.Get("Retry-After") != "30" {
		t.Errorf("Retry-After %q, want 30 (one registration every 30 s)", r.header.Get("Retry-After"))
	}
	h.clock.Add(time.Minute)
	clientID := h.register()
	h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(clientID).Encode())
	r = h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(clientID).Encode())
	if r.status != 429 || !strings.Contains(r.body, "Too many connection attempts") {
		t.Errorf("authorize: %d", r.status)
	}
}

// TestMethods: each endpoint answers a wrong method with 405.
func TestMethods(t *testing.T) {
	h := newHarness(t, nil)
	for path, method := range map[string]string{"/authorize": "POST", "/callback": "POST", "/consent": "PUT", "/register": "GET", "/revoke": "GET", "/.well-known/oauth-authorization-server": "POST"} {
		if r := h.do(h.hc, method, h.issuer+path, "", ""); r.status != 405 {
			t.Errorf("%s %s: %d", method, path, r.status)
		}
	}
}

// TestStyleHashMatches: the CSP's style hash is that of the stylesheet
// the page actually carries, so browsers apply it (and nothing else).
func TestStyleHashMatches(t *testing.T) {
	h := newHarness(t, nil)
	r := h.consentPage(h.newBrowser(), h.authorizeParams(h.register()))
	_, rest, _ := strings.Cut(r.body, "<style>")
	css, _, _ := strings.Cut(rest, "</style>")
	sum := sha256.Sum256([]byte(css))
	want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if !strings.Contains(r.header.Get("Content-Security-Policy"), want) || len(css) < 100 {
		t.Errorf("CSP %q does not allow the page's stylesheet (%s)", r.header.Get("Content-Security-Policy"), want)
	}
}
