// Package supabasesignin is the browser sign-in through the project's own
// Supabase Auth that the gateway's pages share (the OAuth server's consent
// and the write tools' approval): Auth's PKCE flow for third-party
// providers. The browser is sent to
// GET /auth/v1/authorize?provider=…&redirect_to=<callback>&code_challenge=…
// &code_challenge_method=s256, the provider signs the person in, Supabase
// redirects to the callback with ?code=, and the gateway exchanges that
// code with POST /auth/v1/token?grant_type=pkce. The session Supabase
// returns is used for nothing but the user's id and email.
package supabasesignin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Auth is where the gateway and browsers reach Supabase Auth.
type Auth struct {
	// URL is where the gateway reaches Auth (…/auth/v1), for the exchange.
	URL string
	// PublicURL is where browsers reach it, for the sign-in link.
	PublicURL string
	// AnonKey is sent as apikey ("" when Auth is reached directly).
	AnonKey string
	// HTTP makes the exchange.
	HTTP *http.Client
}

// User is the part of the session's user the gateway keeps.
type User struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// Refusal is Auth refusing the code (bad, expired or used); any other
// error from Exchange is Auth being unavailable.
type Refusal struct {
	Status int
	Code   string
	Msg    string
}

func (f *Refusal) Error() string {
	return fmt.Sprintf("supabase auth refused the code: %d %s %s", f.Status, f.Code, f.Msg)
}

// AuthorizeURL is where the browser signs in with provider, to come back
// to redirectTo with a code bound to challenge (S256).
func (a Auth) AuthorizeURL(provider, redirectTo, challenge string) string {
	q := url.Values{}
	q.Set("provider", provider)
	q.Set("redirect_to", redirectTo)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "s256")
	return a.PublicURL + "/authorize?" + q.Encode()
}

// Exchange redeems a PKCE code for the signed-in user.
func (a Auth) Exchange(ctx context.Context, code, verifier string) (*User, error) {
	body, _ := json.Marshal(map[string]string{"auth_code": code, "code_verifier": verifier})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL+"/token?grant_type=pkce", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if a.AnonKey != "" {
		req.Header.Set("apikey", a.AnonKey)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("supabasesignin: supabase auth unreachable: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("supabasesignin: read supabase auth answer: %w", err)
	}
	if resp.StatusCode >= 500 {
		return nil, fmt.Errorf("supabasesignin: supabase auth answered %d", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Code      string `json:"error_code"`
			Msg       string `json:"msg"`
			ErrorDesc string `json:"error_description"`
		}
		_ = json.Unmarshal(raw, &e)
		return nil, &Refusal{Status: resp.StatusCode, Code: e.Code, Msg: strings.TrimSpace(e.Msg + e.ErrorDesc)}
	}
	var session struct {
		User User `json:"user"`
	}
	if err := json.Unmarshal(raw, &session); err != nil || session.User.ID == "" {
		return nil, fmt.Errorf("supabasesignin: supabase auth session without a user")
	}
	return &session.User, nil
}

// providerNames are display names for Supabase Auth's provider ids.
var providerNames = map[string]string{
	"github": "GitHub", "azure": "Microsoft", "google": "Google", "gitlab": "GitLab",
	"bitbucket": "Bitbucket", "apple": "Apple", "discord": "Discord", "keycloak": "Keycloak",
	"linkedin_oidc": "LinkedIn", "slack_oidc": "Slack", "workos": "WorkOS", "zoom": "Zoom",
}

// ProviderName is a provider id as a person reads it on a button.
func ProviderName(id string) string {
	if n, ok := providerNames[id]; ok {
		return n
	}
	if id == "" {
		return id
	}
	return strings.ToUpper(id[:1]) + id[1:]
}
