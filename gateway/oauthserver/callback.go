package oauthserver

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
)

// callback is where Supabase Auth returns the browser after sign-in, with
// ?code= (or ?error=). The code is exchanged for the user, the staff rule
// is applied, and the browser moves on to the consent page with the user
// recorded in the pending cookie. The Supabase session itself is dropped.
func (s *Server) callback(c echo.Context) error {
	r := c.Request()
	if r.Method != http.MethodGet {
		return s.page(c, http.StatusMethodNotAllowed, "Method not allowed", "Open this address in a browser.", "")
	}
	p := s.getPending(c)
	if p == nil {
		return s.expired(c)
	}
	q := r.URL.Query()
	if q.Get("error") != "" || q.Get("code") == "" {
		// Sign-in was cancelled or failed at the provider or Auth. The
		// client's redirect URI is verified, so the client hears of it.
		s.clearPending(c)
		return s.redirectError(c, p.RedirectURI, p.State, codeAccessDenied, "Sign-in did not complete")
	}
	user, err := s.exchange(r.Context(), q.Get("code"), p.SupabaseVerifier)
	if err != nil {
		var refused *supabaseFailure
		if errors.As(err, &refused) {
			s.log.InfoContext(r.Context(), "oauth callback: sign-in code refused", "status", refused.Status, "error_code", refused.Code)
			return s.page(c, http.StatusBadRequest, "Sign-in did not complete", "Pawtograder's sign-in service did not accept this sign-in (it may have expired or been used already).", "Start connecting again from your assistant.")
		}
		s.log.ErrorContext(r.Context(), "oauth callback: sign-in exchange failed", "error", err.Error())
		return s.page(c, http.StatusBadGateway, "Sign-in is unavailable", "Pawtograder's sign-in service could not be reached.", "Try again in a few minutes.")
	}
	staff, err := s.opts.Store.IsStaff(r.Context(), user.ID)
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth callback: role look-up failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "Your roles could not be checked just now.", "Try again in a few minutes.")
	}
	if !staff {
		s.clearPending(c)
		return s.page(c, http.StatusForbidden, "Only instructors and graders can connect assistants",
			"You are signed in as "+displayAccount(user)+", which is not an instructor or grader in any Pawtograder class, so no assistant can be connected to this account.",
			"If you should have staff access, ask your course's instructor to add you.")
	}
	p.UserID, p.Email = user.ID, user.Email
	if err := s.setPending(c, p); err != nil {
		return s.writeError(c, err)
	}
	pageSecurity(c.Response().Header(), "")
	return c.Redirect(http.StatusSeeOther, s.endpoint("/consent"))
}

func displayAccount(u *supabaseUser) string {
	if u.Email != "" {
		return u.Email
	}
	return "user " + u.ID
}

// redirectHost is what the consent page shows of a redirect URI: the
// whole origin, since a client name can say anything.
func redirectHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}
