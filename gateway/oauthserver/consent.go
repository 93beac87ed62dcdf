package oauthserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// consent shows the consent page (GET) and takes the decision (POST).
func (s *Server) consent(c echo.Context) error {
	r := c.Request()
	p := s.getPending(c)
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if p == nil || p.UserID == "" {
			return s.expired(c)
		}
		return s.showConsent(c, p)
	case http.MethodPost:
	default:
		c.Response().Header().Set("Allow", "GET, POST")
		return s.page(c, http.StatusMethodNotAllowed, "Method not allowed", "Open this address in a browser.", "")
	}
	if p == nil || p.UserID == "" {
		return s.expired(c)
	}
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return s.page(c, http.StatusBadRequest, "Something went wrong", "The form could not be read.", "Start connecting again from your assistant.")
	}
	if !s.checkCSRF(p, r.PostForm.Get("csrf_token")) {
		// A missing token, or one from another authorization: a forged
		// cross-site post. Nothing is decided and the pending
		// authorization stays, so the real page still works.
		return s.page(c, http.StatusForbidden, "This request was not sent from the consent page", "Pawtograder refused it to protect your account.", "If you were connecting an assistant, go back to its consent page and choose again.")
	}
	decision := r.PostForm.Get("decision")
	if decision == "approve_read" && slices.Contains(p.Scopes, "mcp:write") {
		// The person grants reading only: the code carries every
		// requested scope but mcp:write.
		p.Scopes = slices.DeleteFunc(slices.Clone(p.Scopes), func(s string) bool { return s == "mcp:write" })
		decision = "approve"
	}
	if decision != "approve" && decision != "deny" {
		s.clearPending(c)
		return s.page(c, http.StatusBadRequest, "Something went wrong", "Choose Approve or Deny.", "Start connecting again from your assistant.")
	}
	// The cookie is sealed, not stored, so deleting it from this browser
	// does not stop a copy being posted again: the decision is recorded
	// server-side, and only the first one for this authorization counts.
	first, err := s.opts.Store.ConsumePending(r.Context(), p.ID, time.Unix(p.Expires, 0))
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth consent: recording the decision failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "Your decision could not be recorded just now.", "Go back to the consent page and choose again in a few minutes.")
	}
	s.clearPending(c)
	if !first {
		return s.expired(c)
	}
	if decision == "deny" {
		return s.redirectError(c, p.RedirectURI, p.State, codeAccessDenied, "The user denied the request")
	}
	code := sealing.RandomToken(32)
	err = s.opts.Store.SaveCode(r.Context(), Code{
		Hash:        hashToken(code),
		TokenID:     uuid.NewString(),
		ClientHash:  p.ClientHash,
		ClientName:  p.ClientName,
		RedirectURI: p.RedirectURI,
		Challenge:   p.Challenge,
		UserID:      p.UserID,
		Scopes:      p.Scopes,
		Resource:    p.Resource,
		ExpiresAt:   s.opts.Now().Add(s.opts.CodeTTL),
	})
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth consent: saving the code failed", "error", err.Error())
		return s.redirectError(c, p.RedirectURI, p.State, codeServerError, "The authorization could not be saved; try again")
	}
	return s.redirectTo(c, p.RedirectURI, p.State, url.Values{"code": {code}})
}

func (s *Server) showConsent(c echo.Context, p *pending) error {
	var scopes []string
	for _, sc := range p.Scopes {
		scopes = append(scopes, scopeDescriptions[sc])
	}
	data := struct {
		Title, ClientName, Account, Lifetime, GrantName, Action, CSRF string
		Return                                                        returnAddress
		Scopes                                                        []string
		// CanWrite offers "Approve read only" when mcp:write is asked for.
		CanWrite bool
	}{
		Title:      "Connect " + p.ClientName,
		ClientName: p.ClientName,
		Return:     redirectAddress(p.RedirectURI),
		Account:    p.Email,
		Lifetime:   humanDuration(s.opts.GrantTTL),
		GrantName:  GrantName(p.ClientName),
		Action:     s.endpoint("/consent"),
		CSRF:       s.csrfToken(p),
		Scopes:     scopes,
		CanWrite:   slices.Contains(p.Scopes, "mcp:write"),
	}
	if data.Account == "" {
		data.Account = "user " + p.UserID
	}
	return s.render(c, http.StatusOK, "consent", data, origin(p.RedirectURI))
}

// GrantName is the api_tokens name of a grant, as mcp-tokens lists it.
func GrantName(client string) string {
	if r := []rune(client); len(r) > 60 {
		client = string(r[:60]) + "…"
	}
	return client + " — connected with OAuth"
}

func humanDuration(d time.Duration) string {
	days := int(d / (24 * time.Hour))
	switch {
	case days >= 2:
		return fmt.Sprintf("%d days", days)
	case d >= time.Hour:
		return fmt.Sprintf("%d hours", int(d/time.Hour))
	}
	return strings.TrimSuffix(d.String(), "0s")
}
