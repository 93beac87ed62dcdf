package oauthserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
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
	d, err := s.decide(r.Context(), p, r.PostForm.Get("decision"))
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth consent: reading the client's grants failed", "error", err.Error())
		return s.unavailable(c)
	}
	if d == nil {
		s.clearPending(c)
		return s.page(c, http.StatusBadRequest, "Something went wrong", "Choose one of the consent page's buttons.", "Start connecting again from your assistant.")
	}
	// The cookie is sealed, not stored, so deleting it from this browser
	// does not stop a copy being posted again: the decision is recorded
	// server-side, and only the first one for this authorization counts.
	first, err := s.opts.Store.ConsumePending(r.Context(), p.ID, time.Unix(p.Expires, 0))
	if err != nil {
		s.log.ErrorContext(r.Context(), "oauth consent: recording the decision failed", "error", err.Error())
		return s.unavailable(c)
	}
	s.clearPending(c)
	if !first {
		return s.expired(c)
	}
	if d.refusal != "" {
		return s.redirectError(c, p.RedirectURI, p.State, codeAccessDenied, d.refusal)
	}
	return s.issueCode(c, p, d)
}

// The descriptions of the consent's refusals (RFC 6749 §4.1.2.1
// access_denied, the resource owner's refusal): Deny, and keeping what a
// step-up would have added to.
const (
	descDenied = "The user denied the request"
	descKept   = "The user kept the access this client already has and added nothing; what it could do before still works"
)

// decision is what a posted choice grants: the code's scopes and the
// grants it replaces, or, when refusal is set, access_denied with it.
type decision struct {
	scopes, replaces []string
	refusal          string
}

// decide reads the posted choice; nil means no choice the page offers.
// The step-up is looked up again here rather than trusting the page, and
// before the decision is recorded, so a failure leaves the page usable.
// On a step-up, Approve replaces the client's grants with one that also
// holds what they had, and any choice that would add nothing ("keep", the
// step-up page's other button, or "Approve read only" when reading is
// all the client asked beyond what it has) leaves them untouched and
// tells the client so, without a code: a code for what the client
// already has would replace its grant for nothing, and a client that
// asked for more because a call needed it (mcp-remote, the TypeScript
// SDK) would retry that call with it, be refused again and open another
// consent page.
func (s *Server) decide(ctx context.Context, p *pending, choice string) (*decision, error) {
	asked := p.Scopes
	switch {
	case choice == "deny":
		return &decision{refusal: descDenied}, nil
	case choice == "approve", choice == "keep":
	case choice == "approve_read" && slices.Contains(p.Scopes, "mcp:write"):
		asked = slices.DeleteFunc(slices.Clone(p.Scopes), func(s string) bool { return s == "mcp:write" })
	default:
		return nil, nil
	}
	up, err := s.findStepUp(ctx, p)
	if err != nil {
		return nil, err
	}
	switch {
	case up == nil && choice == "keep":
		return nil, nil // a new connection has nothing to keep
	case up == nil:
		return &decision{scopes: asked}, nil
	case choice == "keep", !slices.ContainsFunc(asked, func(sc string) bool { return !slices.Contains(up.Has, sc) }):
		return &decision{refusal: descKept}, nil
	}
	return &decision{scopes: unionScopes(asked, up.Has), replaces: up.Replaces}, nil
}

// issueCode saves the code of an approval and sends the client to its
// redirect URI with it.
func (s *Server) issueCode(c echo.Context, p *pending, d *decision) error {
	code := sealing.RandomToken(32)
	err := s.opts.Store.SaveCode(c.Request().Context(), Code{
		Hash:        hashToken(code),
		TokenID:     uuid.NewString(),
		ClientHash:  p.ClientHash,
		ClientName:  p.ClientName,
		RedirectURI: p.RedirectURI,
		Challenge:   p.Challenge,
		UserID:      p.UserID,
		Scopes:      d.scopes,
		Resource:    p.Resource,
		ExpiresAt:   s.opts.Now().Add(s.opts.CodeTTL),
		Replaces:    d.replaces,
	})
	if err != nil {
		s.log.ErrorContext(c.Request().Context(), "oauth consent: saving the code failed", "error", err.Error())
		return s.redirectError(c, p.RedirectURI, p.State, codeServerError, "The authorization could not be saved; try again")
	}
	return s.redirectTo(c, p.RedirectURI, p.State, url.Values{"code": {code}})
}

// unavailable is the page for a store failure before the decision was
// recorded: the consent page still works once the store does.
func (s *Server) unavailable(c echo.Context) error {
	return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "Your decision could not be recorded just now.", "Go back to the consent page and choose again in a few minutes.")
}

// stepUp is an authorization that adds scopes to a connection the client
// already has: the signed-in person holds live grants issued to the same
// client_id (grants are api_tokens rows of the user, marked with their
// client in mcp_oauth_grants), and the request asks for scopes none of
// them holds. Approving replaces those grants with one that holds their
// scopes as well as the approved ones (Code.Replaces): CreateGrant revokes
// them in the transaction that creates it, so the person's token list has
// one live grant for the client.
//
// Replaced, not widened in place, and the old grant's access and refresh
// tokens are revoked with it rather than kept: an access token is an mcp_
// JWT whose jti is its grant's token_id and whose scopes are in its
// claims, so the only way to stop it is to revoke that grant, and keeping
// it live would mean two grants again. The client loses nothing: the
// token response that redeems the step-up code carries its new pair.
type stepUp struct {
	// Replaces are the live grants' token ids, Has their scopes together.
	Replaces, Has []string
	// Adds are the requested scopes that none of them holds.
	Adds []string
}

// findStepUp returns the step-up p is, or nil when the client has no live
// grant of the person or its grants already hold every requested scope:
// that is a new connection, as before.
func (s *Server) findStepUp(ctx context.Context, p *pending) (*stepUp, error) {
	grants, err := s.opts.Store.LiveGrants(ctx, p.UserID, p.ClientHash, s.opts.Now())
	if err != nil || len(grants) == 0 {
		return nil, err
	}
	up := &stepUp{Has: []string{}}
	for _, g := range grants {
		up.Replaces = append(up.Replaces, g.TokenID)
		up.Has = unionScopes(up.Has, g.Scopes)
	}
	for _, sc := range p.Scopes {
		if !slices.Contains(up.Has, sc) {
			up.Adds = append(up.Adds, sc)
		}
	}
	if len(up.Adds) == 0 {
		return nil, nil
	}
	return up, nil
}

// unionScopes is every scope of a and b once, the MCP scopes first in
// their fixed order (grantScopes's); never nil.
func unionScopes(a, b []string) []string {
	out := []string{}
	for _, sc := range slices.Concat(mcpScopes, a, b) {
		if (slices.Contains(a, sc) || slices.Contains(b, sc)) && !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// accessPhrase says in a few words what scopes allow: "read access and
// write access (…)".
func accessPhrase(scopes []string) string {
	if len(scopes) == 0 {
		return "a connection without access"
	}
	var parts []string
	for _, sc := range scopes {
		if w, ok := scopeAccess[sc]; ok {
			parts = append(parts, w)
		} else {
			parts = append(parts, sc)
		}
	}
	return strings.Join(parts, " and ")
}

func (s *Server) showConsent(c echo.Context, p *pending) error {
	up, err := s.findStepUp(c.Request().Context(), p)
	if err != nil {
		s.log.ErrorContext(c.Request().Context(), "oauth consent: reading the client's grants failed", "error", err.Error())
		return s.page(c, http.StatusServiceUnavailable, "Pawtograder is unavailable", "The connection request could not be checked just now.", "Reload this page in a few minutes.")
	}
	shown := p.Scopes
	if up != nil {
		// The grant that replaces the existing one keeps what it had.
		shown = unionScopes(p.Scopes, up.Has)
	}
	data := struct {
		Title, Account, Lifetime, Action, CSRF string
		// ClientName and GrantName hold what the client registered, so
		// their hidden characters are drawn as markers and counted.
		ClientName, GrantName hiddentext.Marked
		Return                returnAddress
		Scopes                []scopeLine
		// CanWrite offers "Approve read only" when mcp:write is asked for
		// (a new connection only).
		CanWrite bool
		// StepUp says the client already has Has, and approving adds Adds;
		// its buttons are AddLabel and KeepLabel.
		StepUp                         bool
		Has, Adds, AddLabel, KeepLabel string
	}{
		Title:      "Connect " + hiddentext.Mark(p.ClientName),
		ClientName: hiddentext.ForPage(p.ClientName),
		Return:     redirectAddress(p.RedirectURI),
		Account:    p.Email,
		Lifetime:   humanDuration(s.opts.GrantTTL),
		GrantName:  hiddentext.ForPage(GrantName(p.ClientName)),
		Action:     s.endpoint("/consent"),
		CSRF:       s.csrfToken(p),
		Scopes:     scopeLines(shown),
		CanWrite:   slices.Contains(p.Scopes, "mcp:write"),
	}
	if up != nil {
		data.Title = "Add access for " + hiddentext.Mark(p.ClientName)
		data.StepUp, data.Has, data.Adds = true, accessPhrase(up.Has), accessPhrase(up.Adds)
		data.AddLabel, data.KeepLabel = stepUpLabels(up)
	}
	if data.Account == "" {
		data.Account = "user " + p.UserID
	}
	return s.render(c, http.StatusOK, "consent", data, origin(p.RedirectURI))
}

// stepUpLabels are the step-up page's two buttons, each saying what it
// does: "Add write access" and "Keep read only" for a read grant asked
// for mcp:write.
func stepUpLabels(up *stepUp) (add, keep string) {
	short := func(scopes []string) string {
		var words []string
		for _, sc := range scopes {
			if w, ok := scopeShort[sc]; ok {
				words = append(words, w)
			} else {
				words = append(words, sc)
			}
		}
		return strings.Join(words, " and ")
	}
	add = "Add " + short(up.Adds) + " access"
	keep = "Keep it as it is"
	if len(up.Has) > 0 {
		keep = "Keep " + short(up.Has) + " only"
	}
	return add, keep
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
