package oauthserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

const (
	testSecret    = "oauth-test-secret-0123456789abcdefghijkl"
	testMCPSecret = "mcp-test-secret-with-at-least-32-characters"
	aliceID       = "10000000-0000-4000-8000-000000000001"
	samID         = "10000000-0000-4000-8000-000000000003"
	testRedirect  = "http://127.0.0.1:33418/oauth/callback"
	testVerifier  = "dBjftJeZ4CQP-0123456789_abcdefghijklmnopqrstu"
)

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fakeAuth stands in for Supabase Auth's PKCE token endpoint.
type fakeAuth struct {
	mu    sync.Mutex
	codes map[string]fakeSignIn
	calls int
}

type fakeSignIn struct{ userID, email, challenge string }

func (f *fakeAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if r.URL.Path != "/auth/v1/token" || r.URL.Query().Get("grant_type") != "pkce" {
		http.NotFound(w, r)
		return
	}
	var body struct {
		AuthCode     string `json:"auth_code"`
		CodeVerifier string `json:"code_verifier"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	s, ok := f.codes[body.AuthCode]
	w.Header().Set("Content-Type", "application/json")
	switch {
	case !ok:
		w.WriteHeader(404)
		io.WriteString(w, `{"code":404,"error_code":"flow_state_not_found","msg":"invalid flow state, no valid flow state found"}`)
	case sealing.S256(body.CodeVerifier) != s.challenge:
		w.WriteHeader(400)
		io.WriteString(w, `{"code":400,"error_code":"bad_code_verifier","msg":"code challenge does not match previously saved code verifier"}`)
	default:
		delete(f.codes, body.AuthCode)
		json.NewEncoder(w).Encode(map[string]any{"access_token": "sb-session", "refresh_token": "sb-refresh",
			"user": map[string]any{"id": s.userID, "email": s.email}})
	}
}

type harness struct {
	t      *testing.T
	srv    *Server
	ts     *httptest.Server
	store  *memStore
	auth   *fakeAuth
	clock  *clock
	issuer string
	hc     *http.Client
}

// newHarness serves the authorization server the way the gateway mounts
// it (mcp-server's group, prefix /oauth) with a fake Supabase Auth.
func newHarness(t *testing.T, mod func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, store: newMemStore(aliceID), auth: &fakeAuth{codes: map[string]fakeSignIn{}},
		clock: &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}}
	authSrv := httptest.NewServer(h.auth)
	t.Cleanup(authSrv.Close)
	h.ts = httptest.NewUnstartedServer(nil)
	base := "http://" + h.ts.Listener.Addr().String()
	h.issuer = base + "/functions/v1/mcp-server/oauth"
	opts := Options{
		Issuer:        h.issuer,
		ResourceURL:   base + "/functions/v1/mcp-server",
		Secrets:       []string{testSecret},
		AuthURL:       authSrv.URL + "/auth/v1",
		AuthPublicURL: "https://project.example/auth/v1",
		Providers:     []string{"github"},
		Store:         h.store,
		Mint: func(sub string, scopes []string, id string, days float64, now time.Time) (string, error) {
			return mcpauth.MintAPIToken(testMCPSecret, sub, scopes, id, days, now)
		},
		Verify: func(tok string, now time.Time) (string, error) {
			c, err := mcpauth.VerifyAPIToken(testMCPSecret, tok, now)
			if err != nil {
				return "", err
			}
			return c.TokenID, nil
		},
		Logger: slog.New(slog.DiscardHandler),
		Now:    h.clock.Now,
	}
	if mod != nil {
		mod(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	e := echo.New()
	srv.Register(e.Group("/functions/v1/mcp-server"), "/oauth")
	srv.RegisterRoot(e)
	h.ts.Config.Handler = e
	h.ts.Start()
	t.Cleanup(h.ts.Close)
	h.hc = h.newBrowser()
	return h
}

// newBrowser is an HTTP client with its own cookie jar that does not
// follow redirects, so each hop can be checked.
func (h *harness) newBrowser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (h *harness) do(hc *http.Client, method, target, contentType, body string) reply {
	h.t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hc.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

func (h *harness) get(hc *http.Client, target string) reply { return h.do(hc, "GET", target, "", "") }

func (h *harness) postForm(hc *http.Client, target string, v url.Values) reply {
	return h.do(hc, "POST", target, "application/x-www-form-urlencoded", v.Encode())
}

// register performs DCR and returns the client_id.
func (h *harness) register(redirects ...string) string {
	h.t.Helper()
	if len(redirects) == 0 {
		redirects = []string{testRedirect}
	}
	b, _ := json.Marshal(map[string]any{"client_name": "Test Assistant", "redirect_uris": redirects, "token_endpoint_auth_method": "none"})
	r := h.do(h.hc, "POST", h.issuer+"/register", "application/json", string(b))
	if r.status != 201 {
		h.t.Fatalf("register: %d %s", r.status, r.body)
	}
	var out struct {
		ClientID string `json:"client_id"`
	}
	json.Unmarshal([]byte(r.body), &out)
	return out.ClientID
}

// authorizeParams are a valid authorization request for clientID.
func (h *harness) authorizeParams(clientID string) url.Values {
	return url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {testRedirect},
		"code_challenge":        {sealing.S256(testVerifier)},
		"code_challenge_method": {"S256"},
		"state":                 {"xyz-state"},
		"scope":                 {"mcp:read offline_access"},
		"resource":              {h.srv.opts.ResourceURL},
	}
}

// signIn follows the authorization request to Supabase and back as user,
// and returns the callback's reply.
func (h *harness) signIn(hc *http.Client, params url.Values, userID, email string) reply {
	h.t.Helper()
	r := h.get(hc, h.issuer+"/authorize?"+params.Encode())
	if r.status != http.StatusSeeOther {
		h.t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	if loc.Host != "project.example" || loc.Path != "/auth/v1/authorize" {
		h.t.Fatalf("authorize redirected to %s", loc)
	}
	code := "sb-code-" + sealing.RandomToken(6)
	h.auth.mu.Lock()
	h.auth.codes[code] = fakeSignIn{userID, email, loc.Query().Get("code_challenge")}
	h.auth.mu.Unlock()
	return h.get(hc, loc.Query().Get("redirect_to")+"?code="+code)
}

var csrfField = `name="csrf_token" value="`

// consentPage signs in as Alice and returns the consent page's reply.
func (h *harness) consentPage(hc *http.Client, params url.Values) reply {
	h.t.Helper()
	r := h.signIn(hc, params, aliceID, "alice@example.edu")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != h.issuer+"/consent" {
		h.t.Fatalf("callback: %d %s %s", r.status, r.header.Get("Location"), r.body)
	}
	return h.get(hc, h.issuer+"/consent")
}

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, csrfField)
	if !ok {
		t.Fatalf("no CSRF token in page:\n%s", page)
	}
	tok, _, _ := strings.Cut(rest, `"`)
	return tok
}

// approve runs the whole browser part for clientID and returns the code.
func (h *harness) approve(clientID string) string {
	h.t.Helper()
	hc := h.newBrowser()
	page := h.consentPage(hc, h.authorizeParams(clientID))
	r := h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(h.t, page.body)}, "decision": {"approve"}})
	if r.status != http.StatusSeeOther {
		h.t.Fatalf("approve: %d %s", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	return loc.Query().Get("code")
}

// exchange redeems a code.
func (h *harness) exchange(clientID, code string) reply {
	return h.postForm(h.hc, h.issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {testRedirect}, "client_id": {clientID}, "code_verifier": {testVerifier}})
}

type tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

func decodeTokens(t *testing.T, r reply) tokens {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	var tk tokens
	if err := json.Unmarshal([]byte(r.body), &tk); err != nil {
		t.Fatal(err)
	}
	return tk
}
