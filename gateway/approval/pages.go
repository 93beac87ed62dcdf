package approval

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/htmlpage"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

//go:embed templates/pages.html
var templateFS embed.FS

var pages = htmlpage.Must(templateFS, "templates/pages.html")

// maxFormBytes bounds the decision form.
const maxFormBytes = 4 << 10

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

// session is the sign-in cookie: bound to one action, sealed
// (AES-256-GCM, the cookie name as associated data), HttpOnly,
// SameSite=Lax (it must survive the redirect back from the provider),
// Secure on https, expiring with the sign-in.
type session struct {
	ActionID string `json:"a"`
	Verifier string `json:"v"`
	UserID   string `json:"u,omitempty"`
	Email    string `json:"m,omitempty"`
	Expires  int64  `json:"e"`
}

func (s *Service) cookieName() string {
	if s.secure {
		return "__Secure-mcp_approval"
	}
	return "mcp_approval"
}

func (s *Service) setSession(c echo.Context, ss *session) error {
	raw, err := json.Marshal(ss)
	if err != nil {
		return err
	}
	v, err := s.keys.cookie.Seal(raw, s.cookieName())
	if err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: s.cookieName(), Value: v, Path: s.path,
		Expires: time.Unix(ss.Expires, 0), MaxAge: int(ss.Expires - s.opts.Now().Unix()),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
	return nil
}

func (s *Service) clearSession(c echo.Context) {
	c.SetCookie(&http.Cookie{Name: s.cookieName(), Value: "", Path: s.path, MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

func (s *Service) getSession(c echo.Context) *session {
	ck, err := c.Cookie(s.cookieName())
	if err != nil || ck.Value == "" || len(ck.Value) > 4096 {
		return nil
	}
	raw, err := s.keys.cookie.Open(ck.Value, s.cookieName())
	if err != nil {
		return nil
	}
	var ss session
	if json.Unmarshal(raw, &ss) != nil || ss.ActionID == "" || s.opts.Now().Unix() >= ss.Expires {
		return nil
	}
	return &ss
}

// signInTTL bounds a sign-in from the link to the decision.
const signInTTL = 15 * time.Minute

func (s *Service) csrfToken(actionID, userID string) string {
	return s.keys.csrf.Sign("approve|" + actionID + "|" + userID)
}

// action serves PathPrefix/:id: sign-in first, then the review page (GET)
// or the decision (POST).
func (s *Service) action(c echo.Context) error {
	id := c.Param("id")
	if !uuidPattern.MatchString(id) {
		return s.page(c, http.StatusNotFound, "No such approval", "This address is not an approval link.", "Ask your assistant for the link again.")
	}
	ss := s.getSession(c)
	signedIn := ss != nil && ss.ActionID == id && ss.UserID != ""
	if c.Request().Method == http.MethodPost {
		if !signedIn {
			return s.page(c, http.StatusForbidden, "Sign in first", "This decision was not sent from a signed-in approval page, so nothing was decided.", "Open the approval link again.")
		}
		return s.decide(c, id, ss)
	}
	if !signedIn {
		return s.startSignIn(c, id)
	}
	a, err := s.get(c.Request().Context(), id, ss.UserID)
	if err != nil {
		s.opts.Logger.ErrorContext(c.Request().Context(), "approval: reading an action failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "The proposal could not be read just now.", "Try again in a few minutes.")
	}
	if a == nil {
		return s.notYours(c, ss)
	}
	if a.State != tools.StatePending {
		return s.statePage(c, a)
	}
	return s.render(c, http.StatusOK, "review", s.reviewData(a, ss))
}

// notYours answers for an action that is not the signed-in person's (or
// does not exist; the two are not told apart).
func (s *Service) notYours(c echo.Context, ss *session) error {
	s.clearSession(c)
	return s.page(c, http.StatusForbidden, "This approval is not yours",
		"You are signed in as "+account(ss)+". Only the person whose assistant proposed this change can approve it, signed in as themselves; nothing was written.",
		"If it is yours, sign out of Pawtograder and open the link again with your own account.")
}

func account(ss *session) string {
	if ss.Email != "" {
		return ss.Email
	}
	return "user " + ss.UserID
}

// statePage says what became of a decided or expired action.
func (s *Service) statePage(c echo.Context, a *Action) error {
	switch a.State {
	case tools.StateApproved:
		text := "It was approved and written."
		if a.RowID == "" {
			text = "It was approved; the write is in progress."
		}
		return s.page(c, http.StatusOK, "Already approved", text, "Each link can be used once. You can close this page.")
	case tools.StateRejected:
		return s.page(c, http.StatusOK, "Rejected", "This proposal was rejected; nothing was written.", "You can close this page.")
	case tools.StateExpired:
		return s.page(c, http.StatusGone, "This link has expired", "Proposals wait 10 minutes for approval; this one was not approved in time, and nothing was written.", "Ask your assistant to propose it again.")
	}
	return s.page(c, http.StatusOK, "Not written", "This proposal did not complete: "+a.Failure+".", "Ask your assistant to propose it again if you still want it.")
}

// startSignIn sends the browser to Supabase Auth with a new PKCE verifier
// bound to this action, or shows the providers when there are several.
func (s *Service) startSignIn(c echo.Context, id string) error {
	ss := &session{ActionID: id, Verifier: sealing.RandomToken(32), Expires: s.opts.Now().Add(signInTTL).Unix()}
	if err := s.setSession(c, ss); err != nil {
		return err
	}
	challenge := sealing.S256(ss.Verifier)
	if len(s.opts.Providers) == 1 {
		pages.Secure(c.Response().Header())
		return c.Redirect(http.StatusSeeOther, s.signInURL(s.opts.Providers[0], challenge))
	}
	type link struct{ Name, URL string }
	var links []link
	for _, p := range s.opts.Providers {
		links = append(links, link{Name: providerName(p), URL: s.signInURL(p, challenge)})
	}
	return s.render(c, http.StatusOK, "signin", struct {
		Title string
		Links []link
	}{Title: "Sign in to review a change", Links: links})
}

func (s *Service) signInURL(provider, challenge string) string {
	q := url.Values{}
	q.Set("provider", provider)
	q.Set("redirect_to", s.opts.BaseURL+PathPrefix+"/callback")
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "s256")
	return s.opts.AuthPublicURL + "/authorize?" + q.Encode()
}

var providerNames = map[string]string{"github": "GitHub", "azure": "Microsoft", "google": "Google", "gitlab": "GitLab"}

func providerName(id string) string {
	if n, ok := providerNames[id]; ok {
		return n
	}
	return strings.ToUpper(id[:1]) + id[1:]
}

// callback is where Supabase Auth returns the browser with ?code=.
func (s *Service) callback(c echo.Context) error {
	ss := s.getSession(c)
	if ss == nil || ss.Verifier == "" {
		return s.page(c, http.StatusBadRequest, "Sign-in expired", "This sign-in is no longer valid.", "Open the approval link again.")
	}
	q := c.Request().URL.Query()
	if q.Get("error") != "" || q.Get("code") == "" {
		s.clearSession(c)
		return s.page(c, http.StatusBadRequest, "Sign-in did not complete", "Nothing was decided or written.", "Open the approval link again.")
	}
	id, email, err := s.exchange(c.Request().Context(), q.Get("code"), ss.Verifier)
	if err != nil {
		s.opts.Logger.InfoContext(c.Request().Context(), "approval: sign-in exchange failed", "error", err.Error())
		s.clearSession(c)
		return s.page(c, http.StatusBadGateway, "Sign-in did not complete", "Pawtograder's sign-in service did not accept this sign-in.", "Open the approval link again.")
	}
	ss.UserID, ss.Email, ss.Verifier = id, email, ""
	if err := s.setSession(c, ss); err != nil {
		return err
	}
	pages.Secure(c.Response().Header())
	return c.Redirect(http.StatusSeeOther, s.ApprovalURL(ss.ActionID))
}

// exchange redeems a Supabase PKCE code for the signed-in user's id and
// email; the session itself is dropped.
func (s *Service) exchange(ctx context.Context, code, verifier string) (string, string, error) {
	body, _ := json.Marshal(map[string]string{"auth_code": code, "code_verifier": verifier})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.opts.AuthURL+"/token?grant_type=pkce", bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if s.opts.AnonKey != "" {
		req.Header.Set("apikey", s.opts.AnonKey)
	}
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("supabase auth unreachable: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("supabase auth answered %d", resp.StatusCode)
	}
	var session struct {
		User struct {
			ID    string `json:"id"`
			Email string `json:"email"`
		} `json:"user"`
	}
	if err := json.Unmarshal(raw, &session); err != nil || session.User.ID == "" {
		return "", "", fmt.Errorf("supabase auth session without a user")
	}
	return session.User.ID, session.User.Email, nil
}

// decide takes the Approve or Reject of the signed-in person.
func (s *Service) decide(c echo.Context, id string, ss *session) error {
	r := c.Request()
	ctx := r.Context()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return s.page(c, http.StatusBadRequest, "Something went wrong", "The form could not be read; nothing was decided.", "Open the approval link again.")
	}
	if !s.keys.csrf.Verify("approve|"+id+"|"+ss.UserID, r.PostForm.Get("csrf_token")) {
		return s.page(c, http.StatusForbidden, "This request was not sent from the approval page", "Pawtograder refused it to protect your account; nothing was decided.", "Open the approval link again to decide.")
	}
	var approve bool
	switch r.PostForm.Get("decision") {
	case "approve":
		approve = true
	case "reject":
	default:
		return s.page(c, http.StatusBadRequest, "Something went wrong", "Choose Approve or Reject.", "Open the approval link again.")
	}
	now := s.now()
	outcome, err := s.opts.Store.Decide(ctx, id, ss.UserID, approve, now)
	if err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: recording a decision failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "Your decision could not be recorded just now; nothing was written.", "Open the approval link again in a few minutes.")
	}
	s.clearSession(c)
	a, err := s.opts.Store.Get(ctx, id, ss.UserID, now)
	if err != nil || a == nil {
		if outcome == OutcomeNotFound {
			return s.notYours(c, ss)
		}
		s.opts.Logger.ErrorContext(ctx, "approval: reading a decided action failed", "outcome", outcome)
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "Your decision was recorded, but the proposal could not be read back.", "Ask your assistant for the action's state.")
	}
	switch outcome {
	case OutcomeRejected:
		s.audit(ctx, eventRejected, a, "rejected")
		return s.page(c, http.StatusOK, "Rejected", "Nothing was written.", "You can close this page and tell your assistant.")
	case OutcomeExpired:
		s.audit(ctx, eventExpired, a, "expired")
		return s.statePage(c, a)
	case OutcomeRevoked:
		s.audit(ctx, eventFailed, a, "token_revoked")
		return s.page(c, http.StatusForbidden, "The assistant's access was revoked", "The token that proposed this change has been revoked since, so it was not written.", "Reconnect the assistant if you still want it.")
	case OutcomeApproved:
	default:
		return s.statePage(c, a)
	}
	s.audit(ctx, eventApproved, a, "approved")
	rowID, werr := s.opts.Perform(ctx, ss.UserID, a.Preview.Write, now)
	failure := ""
	if werr != nil {
		failure = boundText(werr.Error(), 300)
		s.opts.Logger.WarnContext(ctx, "approval: the approved write failed", "tool", a.Tool, "action_id", a.ID, "error", werr.Error())
	}
	if _, err := s.opts.Store.Record(context.WithoutCancel(ctx), id, rowID, failure); err != nil {
		s.opts.Logger.ErrorContext(ctx, "approval: recording the write failed", "action_id", a.ID, "error", err.Error())
	}
	a.RowID = rowID
	if werr != nil {
		s.audit(ctx, eventFailed, a, "write_failed")
		return s.page(c, http.StatusOK, "Approved, but not written", "Pawtograder refused the write: "+failure+".", "Nothing was changed. Tell your assistant.")
	}
	s.audit(ctx, eventWritten, a, "written")
	return s.page(c, http.StatusOK, "Approved and written", a.Preview.Action+": done.", "You can close this page and tell your assistant.")
}

func boundText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
