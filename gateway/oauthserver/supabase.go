package oauthserver

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

// Sign-in goes through the project's own Supabase Auth with its PKCE flow
// for third-party providers: the browser is sent to
// GET /auth/v1/authorize?provider=…&redirect_to=<callback>&code_challenge=…
// &code_challenge_method=s256, the provider signs the person in, Supabase
// redirects to the callback with ?code=, and the gateway exchanges that
// code with POST /auth/v1/token?grant_type=pkce. The session Supabase
// returns is used for nothing but the user's id and email.

// signInURL is where the browser signs in with provider.
func (s *Server) signInURL(provider, challenge string) string {
	q := url.Values{}
	q.Set("provider", provider)
	q.Set("redirect_to", s.endpoint("/callback"))
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "s256")
	return s.opts.AuthPublicURL + "/authorize?" + q.Encode()
}

// supabaseUser is the part of the session's user the gateway keeps.
type supabaseUser struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// supabaseFailure is a refusal by Auth (bad or expired code); anything
// else from exchange is Auth being unavailable.
type supabaseFailure struct {
	Status int
	Code   string
	Msg    string
}

func (f *supabaseFailure) Error() string {
	return fmt.Sprintf("supabase auth refused the code: %d %s %s", f.Status, f.Code, f.Msg)
}

// exchange redeems a Supabase PKCE code for the signed-in user.
func (s *Server) exchange(ctx context.Context, code, verifier string) (*supabaseUser, error) {
	body, _ := json.Marshal(map[string]string{"auth_code": code, "code_verifier": verifier})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.opts.AuthURL+"/token?grant_type=pkce", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if s.opts.AnonKey != "" {
		req.Header.Set("apikey", s.opts.AnonKey)
	}
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauthserver: supabase auth unreachable: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("oauthserver: read supabase auth answer: %w", err)
	}
	if resp.StatusCode >= 500 {
		return nil, fmt.Errorf("oauthserver: supabase auth answered %d", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Code      string `json:"error_code"`
			Msg       string `json:"msg"`
			ErrorDesc string `json:"error_description"`
		}
		_ = json.Unmarshal(raw, &e)
		return nil, &supabaseFailure{Status: resp.StatusCode, Code: e.Code, Msg: strings.TrimSpace(e.Msg + e.ErrorDesc)}
	}
	var session struct {
		User supabaseUser `json:"user"`
	}
	if err := json.Unmarshal(raw, &session); err != nil || session.User.ID == "" {
		return nil, fmt.Errorf("oauthserver: supabase auth session without a user")
	}
	return &session.User, nil
}
