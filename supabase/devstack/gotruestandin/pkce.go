package gotruestandin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed" // signin.html
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Supabase Auth's PKCE flow for third-party sign-in (GoTrue
// internal/api/external.go, pkce.go and token.go), with a stand-in
// provider:
//
//	GET  /authorize?provider=P&redirect_to=R&code_challenge=C&code_challenge_method=s256
//	     → 302 to the stand-in provider's sign-in page (flow state created)
//	GET  /stand-in/P?state=F   the provider's page: pick a seeded person
//	POST /callback (state, user_id) → 302 to R?code=<auth code>
//	POST /token?grant_type=pkce {"auth_code","code_verifier"} → session JSON
//
// GoTrue's checks and messages are kept: an unknown provider is 400
// validation_failed; code_challenge and its method go together and the
// challenge is 43–128 characters; redirect_to is used only when it passes
// the allow-list check (the Site URL's host, a loopback IP literal, or an
// allow-list pattern), otherwise the Site URL is used; at the token
// endpoint an unknown code is 404 flow_state_not_found, a flow older than
// 5 minutes 422 flow_state_expired, a wrong verifier 400
// bad_code_verifier; a redeemed flow state is deleted.

// FlowStateExpiry is GoTrue's default flow-state lifetime.
const FlowStateExpiry = 300 * time.Second

type flowState struct {
	id, provider, challenge, method, referrer string
	userID, authCode                          string
	created                                   time.Time
}

type flows struct {
	mu     sync.Mutex
	byID   map[string]*flowState
	byCode map[string]*flowState
}

func (f *flows) init() {
	if f.byID == nil {
		f.byID, f.byCode = map[string]*flowState{}, map[string]*flowState{}
	}
}

// prune drops expired flows so the maps stay bounded.
func (f *flows) prune(now time.Time) {
	for id, fs := range f.byID {
		if now.Sub(fs.created) > FlowStateExpiry {
			delete(f.byID, id)
			delete(f.byCode, fs.authCode)
		}
	}
}

var codeChallengeRe = regexp.MustCompile("^[a-zA-Z._~0-9-]+$")

func validatePKCEParams(method, challenge string) error {
	switch {
	case (challenge == "") != (method == ""):
		return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "PKCE flow requires code_challenge_method and code_challenge"}
	case challenge == "":
		return nil
	case len(challenge) < 43 || len(challenge) > 128:
		return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "code challenge has to be between 43 and 128 characters"}
	case !codeChallengeRe.MatchString(challenge):
		return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes"}
	}
	switch strings.ToLower(method) {
	case "s256", "plain":
		return nil
	}
	return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "Invalid code_challenge_method"}
}

var regularHostname = regexp.MustCompile("^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$")

// isRedirectURLValid is GoTrue's utilities.IsRedirectURLValid with
// allow-list patterns reduced to exact matches and a trailing "**"
// wildcard (GoTrue uses full globs).
func (s *Server) isRedirectURLValid(redirect string) bool {
	if redirect == "" {
		return false
	}
	base, berr := url.Parse(s.cfg.SiteURL)
	ref, rerr := url.Parse(redirect)
	if berr != nil || rerr != nil {
		return false
	}
	if base.Hostname() == ref.Hostname() && base.Scheme == ref.Scheme && (base.Port() == ref.Port() || isLocalhost(ref.Hostname())) {
		return true
	}
	isHTTP := ref.Scheme == "http" || ref.Scheme == "https"
	if ip := net.ParseIP(ref.Hostname()); ip != nil {
		return ip.IsLoopback()
	} else if isHTTP && !regularHostname.MatchString(ref.Hostname()) {
		return false
	}
	match, _, _ := strings.Cut(redirect, "#")
	for _, p := range s.cfg.RedirectAllowList {
		if prefix, ok := strings.CutSuffix(p, "**"); ok && strings.HasPrefix(match, prefix) || p == match {
			return true
		}
	}
	return false
}

func isLocalhost(h string) bool {
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	return h == "localhost"
}

// authorize is GET /authorize for an external provider.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	provider := q.Get("provider")
	if !slices.Contains(s.cfg.Providers, provider) {
		return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "Unsupported provider: provider is not enabled"}
	}
	referrer := q.Get("redirect_to")
	if !s.isRedirectURLValid(referrer) {
		referrer = s.cfg.SiteURL
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	if err := validatePKCEParams(method, challenge); err != nil {
		return err
	}
	if challenge == "" {
		// The implicit flow (tokens in the fragment) is not part of the
		// stand-in: the gateway only uses PKCE.
		return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "the local Auth stand-in supports only the PKCE flow"}
	}
	fs := &flowState{id: NewUUID(), provider: provider, challenge: challenge, method: strings.ToLower(method),
		referrer: referrer, created: s.cfg.Now()}
	s.flows.mu.Lock()
	s.flows.init()
	s.flows.prune(s.cfg.Now())
	s.flows.byID[fs.id] = fs
	s.flows.mu.Unlock()
	http.Redirect(w, r, s.cfg.PublicURL+"/stand-in/"+url.PathEscape(provider)+"?state="+fs.id, http.StatusFound)
	return nil
}

//go:embed signin.html
var signInHTML string

var signInPage = template.Must(template.New("signin").Parse(signInHTML))

// Persona is a person the stand-in provider offers to sign in as.
type Persona struct {
	ID, Email, Name string
}

// personas lists auth.users with their display names, by email.
func (s *Server) personas(ctx context.Context) ([]Persona, error) {
	rows, err := s.cfg.Pool.Query(ctx, `SELECT id::text, coalesce(email, ''), coalesce(raw_user_meta_data->>'name', '')
		FROM auth.users WHERE deleted_at IS NULL AND email IS NOT NULL ORDER BY email LIMIT 200`)
	if err != nil {
		return nil, fmt.Errorf("gotruestandin: list users: %w", err)
	}
	defer rows.Close()
	var out []Persona
	for rows.Next() {
		var p Persona
		if err := rows.Scan(&p.ID, &p.Email, &p.Name); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// standIn is the stand-in provider's sign-in page.
func (s *Server) standIn(w http.ResponseWriter, r *http.Request, provider string) error {
	state := r.URL.Query().Get("state")
	s.flows.mu.Lock()
	s.flows.init()
	fs := s.flows.byID[state]
	s.flows.mu.Unlock()
	if fs == nil || fs.provider != provider {
		return &HTTPError{Status: 404, ErrorCode: "flow_state_not_found", Message: "invalid flow state, no valid flow state found"}
	}
	people, err := s.personas(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// No form-action: the form's answer redirects to the caller's
	// redirect_to, which Chromium would check against it.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	return signInPage.Execute(w, map[string]any{"Provider": provider, "State": state, "People": people, "Action": s.cfg.PublicURL + "/callback"})
}

// callback is where the stand-in provider returns: the flow state gets
// its user and an auth code, and the browser goes to redirect_to?code=.
// Errors go to the referrer as GoTrue's redirectErrors sends them.
func (s *Server) callback(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "could not parse the form"}
	}
	s.flows.mu.Lock()
	s.flows.init()
	fs := s.flows.byID[r.Form.Get("state")]
	s.flows.mu.Unlock()
	if fs == nil {
		return &HTTPError{Status: 404, ErrorCode: "flow_state_not_found", Message: "invalid flow state, no valid flow state found"}
	}
	ref, err := url.Parse(fs.referrer)
	if err != nil {
		return err
	}
	q := ref.Query()
	if r.Form.Get("error") != "" {
		q.Set("error", "access_denied")
		q.Set("error_code", "provider_error")
		q.Set("error_description", "The person cancelled sign-in at the provider")
		ref.RawQuery = q.Encode()
		http.Redirect(w, r, ref.String(), http.StatusFound)
		return nil
	}
	userID := r.Form.Get("user_id")
	if _, _, ok, err := s.LookupUser(r.Context(), userID); err != nil || !ok {
		q.Set("error", "server_error")
		q.Set("error_code", "user_not_found")
		q.Set("error_description", "User not found")
		ref.RawQuery = q.Encode()
		http.Redirect(w, r, ref.String(), http.StatusFound)
		return nil
	}
	s.flows.mu.Lock()
	fs.userID, fs.authCode = userID, NewUUID()
	s.flows.byCode[fs.authCode] = fs
	s.flows.mu.Unlock()
	q.Set("code", fs.authCode)
	ref.RawQuery = q.Encode()
	http.Redirect(w, r, ref.String(), http.StatusFound)
	return nil
}

// token is POST /token; only grant_type=pkce is served.
func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Query().Get("grant_type") != "pkce" {
		return &HTTPError{Status: 400, ErrorCode: "invalid_credentials", Message: "unsupported_grant_type"}
	}
	var p struct {
		AuthCode     string `json:"auth_code"`
		CodeVerifier string `json:"code_verifier"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || json.Unmarshal(body, &p) != nil {
		return &HTTPError{Status: 400, ErrorCode: "bad_json", Message: "Could not parse request body as JSON"}
	}
	if p.AuthCode == "" || p.CodeVerifier == "" {
		return &HTTPError{Status: 400, ErrorCode: "validation_failed", Message: "invalid request: both auth code and code verifier should be non-empty"}
	}
	s.flows.mu.Lock()
	s.flows.init()
	fs := s.flows.byCode[p.AuthCode]
	s.flows.mu.Unlock()
	if fs == nil || fs.userID == "" {
		return &HTTPError{Status: 404, ErrorCode: "flow_state_not_found", Message: "invalid flow state, no valid flow state found"}
	}
	if s.cfg.Now().After(fs.created.Add(FlowStateExpiry)) {
		return &HTTPError{Status: 422, ErrorCode: "flow_state_expired", Message: "invalid flow state, flow state has expired"}
	}
	u, _, ok, err := s.LookupUser(r.Context(), fs.userID)
	if err != nil {
		return err
	}
	if !ok {
		return &HTTPError{Status: 404, ErrorCode: "user_not_found", Message: "User not found"}
	}
	if !verifyPKCE(fs.challenge, fs.method, p.CodeVerifier) {
		return &HTTPError{Status: 400, ErrorCode: "bad_code_verifier", Message: "code challenge does not match previously saved code verifier"}
	}
	s.flows.mu.Lock()
	delete(s.flows.byID, fs.id)
	delete(s.flows.byCode, fs.authCode)
	s.flows.mu.Unlock()
	sid, err := s.CreateSession(r.Context(), u.ID)
	if err != nil {
		return err
	}
	access, err := s.MintAccessToken(u.ID, u.Email, sid)
	if err != nil {
		return err
	}
	ttl := int64(s.cfg.AccessTokenTTL / time.Second)
	return writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "bearer", "expires_in": ttl,
		"expires_at": s.cfg.Now().Unix() + ttl, "refresh_token": NewUUID()[:12], "user": u,
	})
}

func verifyPKCE(challenge, method, verifier string) bool {
	switch method {
	case "s256":
		sum := sha256.Sum256([]byte(verifier))
		return subtle.ConstantTimeCompare([]byte(challenge), []byte(base64.RawURLEncoding.EncodeToString(sum[:]))) == 1
	case "plain":
		return subtle.ConstantTimeCompare([]byte(challenge), []byte(verifier)) == 1
	}
	return false
}
