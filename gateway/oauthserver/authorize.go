package oauthserver

import (
	"github.com/pawtograder/mcp-gateway/gateway/supabasesignin"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// authorize is the authorization endpoint (OAuth 2.1 §4.1.1). Until the
// client and its redirect URI are verified, every problem is an HTML page:
// redirecting to an unverified URI would make the server an open
// redirector. After that, problems go back to the client
// (RFC 6749 §4.1.2.1) with error, error_description, state and iss
// (RFC 9207).
func (s *Server) authorize(c echo.Context) error {
	r := c.Request()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		c.Response().Header().Set("Allow", "GET")
		return s.page(c, http.StatusMethodNotAllowed, "Method not allowed", "Open this address in a browser.", "")
	}
	if ok, wait := s.authorizeLimit.allow(s.clientIP(r)); !ok {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
		return s.page(c, http.StatusTooManyRequests, "Too many attempts", "Too many connection attempts came from your network in the last minute.", "Wait a minute, then start connecting again from your assistant.")
	}
	q := r.URL.Query()
	client, err := s.resolveClient(r.Context(), q.Get("client_id"))
	if err != nil {
		e := asError(err)
		if e.Status >= 500 {
			s.log.ErrorContext(r.Context(), "oauth authorize: client look-up failed", "error", e.Error())
		}
		return s.page(c, http.StatusBadRequest, "This application cannot connect", "The application's registration was not recognised: "+e.Description+".", "Start connecting again from your assistant; if this keeps happening, tell the assistant's developers.")
	}
	redirect, refusal := redirectFor(q, client)
	if refusal != "" {
		return s.page(c, http.StatusBadRequest, "This application cannot connect", refusal, "")
	}
	state := q.Get("state")
	if len(state) > maxStateLen {
		return s.redirectError(c, redirect, "", codeInvalidRequest, "state is longer than 1024 characters")
	}
	if code, desc := s.checkAuthorizeQuery(q); code != "" {
		return s.redirectError(c, redirect, state, code, desc)
	}
	challenge := q.Get("code_challenge")
	p := &pending{
		ID:               sealing.RandomToken(16),
		ClientHash:       hashToken(client.ID),
		ClientName:       client.DisplayName(),
		RedirectURI:      redirect,
		State:            state,
		Challenge:        challenge,
		Scopes:           grantScopes(q.Get("scope")),
		Resource:         q.Get("resource"),
		SupabaseVerifier: sealing.RandomToken(32),
		Expires:          s.opts.Now().Add(s.opts.PendingTTL).Unix(),
	}
	if err := s.setPending(c, p); err != nil {
		return s.writeError(c, err)
	}
	if len(s.opts.Providers) == 1 {
		pages.Secure(c.Response().Header())
		return c.Redirect(http.StatusSeeOther, s.supabase.AuthorizeURL(s.opts.Providers[0], s.endpoint("/callback"), sealing.S256(p.SupabaseVerifier)))
	}
	return s.signInPage(c, p)
}

// redirectFor is where the request may return to, or, when it names no
// address the client registered, the reason shown on a page instead (an
// unregistered address is never redirected to).
func redirectFor(q url.Values, client *Client) (redirect, refusal string) {
	redirect = q.Get("redirect_uri")
	switch {
	case len(q["redirect_uri"]) > 1:
		return "", "The request names more than one redirect address."
	case redirect == "" && len(client.RedirectURIs) == 1:
		return client.RedirectURIs[0], ""
	case redirect == "":
		return "", "The request does not say where to return to (redirect_uri is missing)."
	case !client.HasRedirect(redirect):
		return "", "The address the application asked to return to is not one it registered, so Pawtograder will not send you there."
	}
	return redirect, ""
}

// checkAuthorizeQuery is the first parameter of an authorization request
// that is wrong, as an OAuth error code and description ("" when all are
// right): repeated parameters, the response type, PKCE and the resource.
func (s *Server) checkAuthorizeQuery(q url.Values) (code, desc string) {
	for k, v := range q {
		if len(v) > 1 && k != "resource" {
			return codeInvalidRequest, descRepeated
		}
	}
	if q.Get("response_type") != "code" {
		return codeUnsupportedResponseType, `response_type must be "code"`
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	switch {
	case challenge == "":
		return codeInvalidRequest, "code_challenge is required (PKCE with S256)"
	case method != "S256":
		return codeInvalidRequest, `code_challenge_method must be "S256"`
	case len(challenge) != 43 || !pkceValue.MatchString(challenge):
		return codeInvalidRequest, "code_challenge must be the 43-character base64url SHA-256 of the code verifier"
	}
	for _, res := range q["resource"] {
		if !s.isResource(res) {
			return codeInvalidTarget, "resource must be " + s.opts.ResourceURL
		}
	}
	return "", ""
}

// signInPage lets the person choose among several sign-in providers.
func (s *Server) signInPage(c echo.Context, p *pending) error {
	type link struct{ Name, URL string }
	data := struct {
		Title      string
		ClientName hiddentext.Marked
		Providers  []link
	}{Title: "Sign in", ClientName: hiddentext.ForPage(p.ClientName)}
	for _, id := range s.opts.Providers {
		data.Providers = append(data.Providers, link{supabasesignin.ProviderName(id), s.endpoint("/signin?provider=" + url.QueryEscape(id))})
	}
	return s.render(c, http.StatusOK, "signin", data, "")
}

// signin sends the browser to Supabase Auth with the chosen provider.
func (s *Server) signin(c echo.Context) error {
	if c.Request().Method != http.MethodGet {
		return s.page(c, http.StatusMethodNotAllowed, "Method not allowed", "Open this address in a browser.", "")
	}
	p := s.getPending(c)
	if p == nil {
		return s.expired(c)
	}
	provider := c.QueryParam("provider")
	if !slices.Contains(s.opts.Providers, provider) {
		return s.page(c, http.StatusBadRequest, "Unknown sign-in option", "That sign-in option is not offered here.", "Go back and choose one of the listed options.")
	}
	pages.Secure(c.Response().Header())
	return c.Redirect(http.StatusSeeOther, s.supabase.AuthorizeURL(provider, s.endpoint("/callback"), sealing.S256(p.SupabaseVerifier)))
}

// expired is the page for a missing, tampered or expired pending cookie.
func (s *Server) expired(c echo.Context) error {
	return s.page(c, http.StatusBadRequest, "This sign-in has expired", "The connection request was not found in this browser: it expired, was already completed, or was started in another browser.", "Start connecting again from your assistant.")
}

// isResource reports whether a resource indicator names this MCP server
// (an optional trailing slash aside).
func (s *Server) isResource(res string) bool {
	return strings.TrimRight(res, "/") == strings.TrimRight(s.opts.ResourceURL, "/")
}

// mcpScopes are the scopes a grant can hold, in their fixed order.
var mcpScopes = []string{"mcp:read", "mcp:write"}

// grantScopes turns the requested scope into what is granted: the known
// MCP scopes asked for, in a fixed order; unknown scopes are dropped (RFC
// 6749 §3.3 lets the server ignore them, and the token response then
// says what was granted); nothing known asked for means mcp:read.
// offline_access needs no entry: every grant gets a refresh token.
func grantScopes(scope string) []string {
	asked := strings.Fields(scope)
	var out []string
	for _, s := range mcpScopes {
		if slices.Contains(asked, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = []string{"mcp:read"}
	}
	return out
}

// descNotStaff is the error_description a client gets when the person who
// signed in cannot grant access (not staff, not enrolled, disabled).
const descNotStaff = "The signed-in account cannot grant access"

// errorParams are an authorization error response's error and
// error_description.
func errorParams(code, desc string) url.Values {
	return url.Values{"error": {code}, "error_description": {desc}}
}

// redirectError sends an authorization error to a verified redirect URI.
// desc must be a fixed text: it reaches the client, and whatever it
// shows, from the request it must never echo.
func (s *Server) redirectError(c echo.Context, redirect, state, code, desc string) error {
	return s.redirectTo(c, redirect, state, errorParams(code, desc))
}

// redirectTo answers 303 to redirectURL.
func (s *Server) redirectTo(c echo.Context, redirect, state string, params url.Values) error {
	pages.Secure(c.Response().Header())
	return c.Redirect(http.StatusSeeOther, s.redirectURL(redirect, state, params))
}

// redirectURL is a verified redirect URI with params, state and iss added
// to its query (keeping any query it has, RFC 6749 §3.1.2).
func (s *Server) redirectURL(redirect, state string, params url.Values) string {
	if state != "" {
		params.Set("state", state)
	}
	params.Set("iss", s.opts.Issuer)
	sep := "?"
	if strings.Contains(redirect, "?") {
		sep = "&"
	}
	return redirect + sep + params.Encode()
}
