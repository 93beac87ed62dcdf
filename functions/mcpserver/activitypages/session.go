package activitypages

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/sealing"
	"github.com/pawtograder/mcp-gateway/gateway/supabasesignin"
)

// session is the sealed cookie: a sign-in on its way through Supabase
// Auth, or the person signed in, each with its own expiry.
type session struct {
	SignIn *signIn  `json:"s,omitempty"`
	User   *account `json:"u,omitempty"`
}

type signIn struct {
	Verifier string `json:"v"`
	Return   string `json:"r"` // the page to return to: a path below BaseURL
	Expires  int64  `json:"e"`
}

type account struct {
	ID      string `json:"i"`
	Email   string `json:"m,omitempty"`
	Expires int64  `json:"e"`
}

// Lifetimes: a sign-in from the page to the callback, and the signed-in
// session (short: the pages can revoke connections).
const (
	signInTTL  = 15 * time.Minute
	sessionTTL = time.Hour
)

func (p *Pages) cookieName() string {
	if p.secure {
		return "__Secure-mcp_activity"
	}
	return "mcp_activity"
}

// readSession returns the cookie's live parts.
func (p *Pages) readSession(c echo.Context) *session {
	s := &session{}
	ck, err := c.Cookie(p.cookieName())
	if err != nil || ck.Value == "" || len(ck.Value) > 4096 {
		return s
	}
	raw, err := p.cookie.Open(ck.Value, p.cookieName())
	if err != nil || json.Unmarshal(raw, s) != nil {
		return &session{}
	}
	now := p.opts.Now().Unix()
	if s.SignIn != nil && (now >= s.SignIn.Expires || s.SignIn.Verifier == "") {
		s.SignIn = nil
	}
	if s.User != nil && (now >= s.User.Expires || s.User.ID == "") {
		s.User = nil
	}
	return s
}

// writeSession stores s, or removes the cookie when s holds nothing.
func (p *Pages) writeSession(c echo.Context, s *session) error {
	var expires int64
	if s.SignIn != nil {
		expires = s.SignIn.Expires
	}
	if s.User != nil {
		expires = max(expires, s.User.Expires)
	}
	ck := &http.Cookie{Name: p.cookieName(), Path: p.path, HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode}
	if expires == 0 {
		ck.MaxAge = -1
		c.SetCookie(ck)
		return nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if ck.Value, err = p.cookie.Seal(raw, p.cookieName()); err != nil {
		return err
	}
	ck.Expires, ck.MaxAge = time.Unix(expires, 0), int(expires-p.opts.Now().Unix())
	c.SetCookie(ck)
	return nil
}

// signedIn returns the signed-in person, or starts the sign-in (answering
// the request) and returns nil. returnTo is the page to come back to.
func (p *Pages) signedIn(c echo.Context, returnTo string) (*account, error) {
	s := p.readSession(c)
	if s.User != nil {
		return s.User, nil
	}
	s.SignIn = &signIn{Verifier: sealing.RandomToken(32), Return: returnTo, Expires: p.opts.Now().Add(signInTTL).Unix()}
	if err := p.writeSession(c, s); err != nil {
		return nil, err
	}
	challenge := sealing.S256(s.SignIn.Verifier)
	redirect := p.opts.BaseURL + pathCallback
	if len(p.opts.Providers) == 1 {
		pages.Secure(c.Response().Header())
		return nil, c.Redirect(http.StatusSeeOther, p.supabase.AuthorizeURL(p.opts.Providers[0], redirect, challenge))
	}
	var links []signInLink
	for _, pr := range p.opts.Providers {
		links = append(links, signInLink{Name: supabasesignin.ProviderName(pr), URL: p.supabase.AuthorizeURL(pr, redirect, challenge)})
	}
	return nil, p.render(c, http.StatusOK, "signin", signInPage{Title: "Sign in to see your connections", Links: links})
}

type signInLink struct{ Name, URL string }

type signInPage struct {
	Title string
	Links []signInLink
}

// callback is where Supabase Auth returns the browser with ?code=.
func (p *Pages) callback(c echo.Context) error {
	s := p.readSession(c)
	in := s.SignIn
	if in == nil {
		return p.message(c, http.StatusBadRequest, "Sign-in expired", "This sign-in is no longer valid.", "Open the page again.")
	}
	s.SignIn = nil
	q := c.Request().URL.Query()
	if q.Get("error") != "" || q.Get("code") == "" {
		_ = p.writeSession(c, s)
		return p.message(c, http.StatusBadRequest, "Sign-in did not complete", "You are not signed in.", "Open the page again.")
	}
	user, err := p.supabase.Exchange(c.Request().Context(), q.Get("code"), in.Verifier)
	if err != nil {
		p.opts.Logger.InfoContext(c.Request().Context(), "activitypages: sign-in exchange failed", "error", err.Error())
		_ = p.writeSession(c, s)
		return p.message(c, http.StatusBadGateway, "Sign-in did not complete", "Pawtograder's sign-in service did not accept this sign-in.", "Open the page again.")
	}
	s.User = &account{ID: user.ID, Email: user.Email, Expires: p.opts.Now().Add(sessionTTL).Unix()}
	if err := p.writeSession(c, s); err != nil {
		return err
	}
	if !strings.HasPrefix(in.Return, PathConnections) && !strings.HasPrefix(in.Return, PathActivity) {
		in.Return = PathConnections
	}
	pages.Secure(c.Response().Header())
	return c.Redirect(http.StatusSeeOther, p.opts.BaseURL+in.Return)
}

// who names the signed-in person.
func (a *account) who() string {
	if a.Email != "" {
		return a.Email
	}
	return "user " + a.ID
}
