package oauthserver

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// pending is an authorization in progress, from the authorization request
// to the consent decision. It lives only in a cookie: sealed with
// AES-256-GCM (confidential and tamper-proof), bound to its purpose by
// the cookie name as associated data, expiring after PendingTTL, HttpOnly,
// SameSite=Lax (it must survive the top-level redirect back from the
// sign-in provider) and Secure whenever the issuer is https. Any replica
// with the same secret can continue it. Nothing is stored server-side
// until the decision, when the store records the authorization's id
// (Store.ConsumePending), so a copy of the cookie posted again decides
// nothing.
type pending struct {
	ID          string   `json:"id"`
	ClientHash  string   `json:"ch"`
	ClientName  string   `json:"cn"`
	RedirectURI string   `json:"ru"`
	State       string   `json:"st,omitempty"`
	Challenge   string   `json:"cc"`
	Scopes      []string `json:"sc"`
	Resource    string   `json:"rs,omitempty"`
	// SupabaseVerifier is the PKCE verifier of the sign-in with Supabase.
	SupabaseVerifier string `json:"sv"`
	// UserID and Email are set once the user has signed in as staff.
	UserID  string `json:"uid,omitempty"`
	Email   string `json:"em,omitempty"`
	Expires int64  `json:"exp"`
}

func (s *Server) cookieName() string {
	if s.secure {
		return "__Secure-mcp_oauth"
	}
	return "mcp_oauth"
}

func (s *Server) setPending(c echo.Context, p *pending) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	v, err := s.keys.seal.Seal(raw, s.cookieName())
	if err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{
		Name: s.cookieName(), Value: v, Path: s.Path(),
		Expires: time.Unix(p.Expires, 0), MaxAge: int(p.Expires - s.opts.Now().Unix()),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	})
	return nil
}

func (s *Server) clearPending(c echo.Context) {
	c.SetCookie(&http.Cookie{Name: s.cookieName(), Value: "", Path: s.Path(), MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// getPending opens the cookie; nil when absent, tampered with or expired.
func (s *Server) getPending(c echo.Context) *pending {
	ck, err := c.Cookie(s.cookieName())
	if err != nil || ck.Value == "" || len(ck.Value) > 8192 {
		return nil
	}
	raw, err := s.keys.seal.Open(ck.Value, s.cookieName())
	if err != nil {
		return nil
	}
	var p pending
	if json.Unmarshal(raw, &p) != nil || p.ID == "" || s.opts.Now().Unix() >= p.Expires {
		return nil
	}
	return &p
}

// csrfToken binds the consent form to one pending authorization: a token
// from another authorization (or another user's) does not verify.
func (s *Server) csrfToken(p *pending) string {
	return s.keys.csrf.Sign("consent|" + p.ID + "|" + p.UserID)
}

func (s *Server) checkCSRF(p *pending, token string) bool {
	return token != "" && s.keys.csrf.Verify("consent|"+p.ID+"|"+p.UserID, token)
}
