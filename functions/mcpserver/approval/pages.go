package approval

import (
	"bytes"
	"embed"
	"fmt"
	"github.com/pawtograder/mcp-gateway/gateway/supabasesignin"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/htmlpage"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

//go:embed templates/pages.html
var templateFS embed.FS

var pages = htmlpage.Must(templateFS, "templates/pages.html")

// Register mounts the pages on mcp-server's group g:
// GET PathPrefix/callback (the return from sign-in) and GET and POST
// PathPrefix/:id (the review page and the decision).
func (s *Service) Register(g *echo.Group) {
	g.GET(PathPrefix+"/callback", s.callback)
	g.Match([]string{http.MethodGet, http.MethodHead, http.MethodPost}, PathPrefix+"/:id", s.action)
}

func (s *Service) render(c echo.Context, status int, name string, data any) error {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	pages.Secure(c.Response().Header())
	return c.HTMLBlob(status, buf.Bytes())
}

type messagePage struct{ Title, Text, Hint string }

func (s *Service) page(c echo.Context, status int, title, text, hint string) error {
	return s.render(c, status, "message", messagePage{Title: title, Text: text, Hint: hint})
}

func (s *Service) csrfToken(actionID, userID string) string {
	return s.keys.csrf.Sign("approve|" + actionID + "|" + userID)
}

// action serves PathPrefix/:id: sign-in first, then the review page (GET)
// or the decision (POST). Only a sign-in made for this very action counts.
func (s *Service) action(c echo.Context) error {
	id := c.Param("id")
	if !uuidPattern.MatchString(id) {
		return s.page(c, http.StatusNotFound, "No such approval", "This address is not an approval link.", "Ask your assistant for the link again.")
	}
	st := s.readCookie(c)
	g := st.grantFor(id)
	if c.Request().Method == http.MethodPost {
		if g == nil {
			return s.page(c, http.StatusForbidden, "Sign in first", "This decision was not sent from a signed-in approval page, so nothing was decided.", "Open the approval link again.")
		}
		return s.decide(c, id, st, g)
	}
	if g == nil {
		return s.startSignIn(c, id, st)
	}
	a, err := s.get(c.Request().Context(), id, g.UserID)
	if err != nil {
		s.opts.Logger.ErrorContext(c.Request().Context(), "approval: reading an action failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "The proposal could not be read just now. Nothing was decided or written.", "Try again in a few minutes.")
	}
	if a == nil {
		return s.notYours(c, st, g)
	}
	if a.State != StatePending {
		return s.statePage(c, a)
	}
	return s.render(c, http.StatusOK, "review", s.reviewData(a, g))
}

// notYours answers for an action that is not the signed-in person's (or
// does not exist; the two are not told apart).
func (s *Service) notYours(c echo.Context, st *cookieState, g *grant) error {
	who := account(g)
	st.drop(g.ActionID)
	if err := s.writeCookie(c, st); err != nil {
		return err
	}
	return s.page(c, http.StatusForbidden, "This approval is not yours",
		"You are signed in as "+who+". Only the person whose assistant proposed this change can approve it, signed in as themselves; nothing was written.",
		"If it is yours, sign out of Pawtograder and open the link again with your own account.")
}

// statePage says what became of a decided or expired action.
func (s *Service) statePage(c echo.Context, a *Action) error {
	switch a.State {
	case StateApproved:
		return s.page(c, http.StatusOK, "Already approved", "It was approved and written ("+writtenRow(a)+").", "Each link can be used once. You can close this page.")
	case StateRejected:
		return s.page(c, http.StatusOK, "Rejected", "This proposal was rejected; nothing was written.", "You can close this page.")
	case StateExpired:
		return s.page(c, http.StatusGone, "This link has expired", "Proposals wait "+minutes(s.opts.TTL)+" for approval; this one was not approved in time, and nothing was written.", "Ask your assistant to propose it again.")
	}
	return s.page(c, http.StatusOK, "Not written", failureText(a.Failure, a.FailureDetail), "Ask your assistant to propose it again if you still want it.")
}

// writtenRow names the row an approved action wrote, as its tool's
// preview calls it.
func writtenRow(a *Action) string {
	if a.Preview.Written != "" {
		return a.Preview.Written + " #" + a.RowID
	}
	return "row " + a.RowID
}

func minutes(d time.Duration) string {
	if m := int(d / time.Minute); m != 1 {
		return fmt.Sprintf("%d minutes", m)
	}
	return "1 minute"
}

// startSignIn sends the browser to Supabase Auth with a PKCE verifier
// bound to this action, or shows the providers when there are several.
// A sign-in already in progress in this browser keeps its verifier and
// waits for this action too; grants for other actions are kept.
func (s *Service) startSignIn(c echo.Context, id string, st *cookieState) error {
	if st.SignIn != nil {
		st.SignIn.wait(id)
	} else {
		st.SignIn = &signInState{ActionID: id, Verifier: sealing.RandomToken(32), Expires: s.opts.Now().Add(signInTTL).Unix()}
	}
	if err := s.writeCookie(c, st); err != nil {
		return err
	}
	challenge := sealing.S256(st.SignIn.Verifier)
	if len(s.opts.Providers) == 1 {
		pages.Secure(c.Response().Header())
		return c.Redirect(http.StatusSeeOther, s.signInURL(s.opts.Providers[0], challenge))
	}
	type link struct{ Name, URL string }
	var links []link
	for _, p := range s.opts.Providers {
		links = append(links, link{Name: supabasesignin.ProviderName(p), URL: s.signInURL(p, challenge)})
	}
	return s.render(c, http.StatusOK, "signin", struct {
		Title string
		Links []link
	}{Title: "Sign in to review a change", Links: links})
}

func (s *Service) signInURL(provider, challenge string) string {
	return s.supabase.AuthorizeURL(provider, s.opts.BaseURL+PathPrefix+"/callback", challenge)
}

// callback is where Supabase Auth returns the browser with ?code=. The
// signed-in person gets a grant for every action the sign-in waits for,
// and this browser tab goes to the first of them.
func (s *Service) callback(c echo.Context) error {
	st := s.readCookie(c)
	in := st.SignIn
	if in == nil {
		return s.page(c, http.StatusBadRequest, "Sign-in expired", "This sign-in is no longer valid.", "Open the approval link again.")
	}
	q := c.Request().URL.Query()
	if q.Get("error") != "" || q.Get("code") == "" {
		st.SignIn = nil
		if err := s.writeCookie(c, st); err != nil {
			return err
		}
		return s.page(c, http.StatusBadRequest, "Sign-in did not complete", "Nothing was decided or written.", "Open the approval link again.")
	}
	if !s.callbacks.allow(s.opts.ClientAddress(c.Request())) {
		c.Response().Header().Set("Retry-After", "60")
		return s.page(c, http.StatusTooManyRequests, "Too many sign-ins", "This address has sent more sign-ins than Pawtograder takes in a minute; nothing was decided or written.", "Wait a minute, then open the approval link again.")
	}
	user, err := s.supabase.Exchange(c.Request().Context(), q.Get("code"), in.Verifier)
	if err != nil {
		s.opts.Logger.InfoContext(c.Request().Context(), "approval: sign-in exchange failed", "error", err.Error())
		return s.page(c, http.StatusBadGateway, "Sign-in did not complete", "Pawtograder's sign-in service did not accept this sign-in.", "Open the approval link again.")
	}
	for _, id := range append([]string{in.ActionID}, in.Waiting...) {
		st.add(grant{ActionID: id, UserID: user.ID, Email: user.Email, Expires: in.Expires})
	}
	st.SignIn = in.next()
	if err := s.writeCookie(c, st); err != nil {
		return err
	}
	pages.Secure(c.Response().Header())
	return c.Redirect(http.StatusSeeOther, s.ApprovalURL(in.ActionID))
}
