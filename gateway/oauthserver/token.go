package oauthserver

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// refreshPrefix marks refresh tokens, so revocation can tell them from
// access tokens without a database look-up.
const refreshPrefix = "mcpr_"

var (
	errBadCode    = oauthErr(http.StatusBadRequest, codeInvalidGrant, "The authorization code is invalid, expired or already used")
	errBadRefresh = oauthErr(http.StatusBadRequest, codeInvalidGrant, "The refresh token is invalid, expired or revoked")
)

// descRepeated is the description of a repeated parameter. It does not
// name the parameter: no error_description echoes request text, which
// would let a request put words of its choosing on the client's pages.
const descRepeated = "A parameter is repeated"

// readForm parses an application/x-www-form-urlencoded body of at most
// 16 KiB; a repeated parameter is invalid_request (RFC 6749 §3.2).
func readForm(c echo.Context) (url.Values, error) {
	r := c.Request()
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, "The request body must be application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errBodySize
		}
		return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, "The request body could not be parsed")
	}
	for k, v := range r.PostForm {
		if len(v) > 1 && k != "resource" {
			return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, descRepeated)
		}
	}
	return r.PostForm, nil
}

// token is the token endpoint (OAuth 2.1 §3.2): public clients only,
// authorization_code and refresh_token grants.
func (s *Server) token(c echo.Context) error {
	if done, err := s.postPrologue(c, nil); done {
		return err
	}
	h := c.Response().Header()
	form, err := readForm(c)
	if err != nil {
		return s.writeError(c, err)
	}
	if auth := c.Request().Header.Get("Authorization"); auth != "" {
		// Public clients have no secret; a client trying to authenticate
		// is told so (RFC 6749 §5.2: 401 when the header was used).
		if isPastedToken(auth) {
			h.Set("WWW-Authenticate", `Bearer error="invalid_client", error_description="`+msgPastedToken+`"`)
			return s.writeError(c, oauthErr(http.StatusUnauthorized, codeInvalidClient, msgPastedToken))
		}
		h.Set("WWW-Authenticate", `Basic realm="oauth"`)
		return s.writeError(c, oauthErr(http.StatusUnauthorized, codeInvalidClient, "Only public clients (token_endpoint_auth_method \"none\") are supported; send client_id in the body and no Authorization header"))
	}
	ctx, addr := c.Request().Context(), s.clientIP(c.Request())
	var res *tokenResponse
	switch form.Get("grant_type") {
	case "authorization_code":
		res, err = s.redeemCode(ctx, form, addr)
	case "refresh_token":
		res, err = s.refresh(ctx, form, addr)
	case "":
		err = oauthErr(http.StatusBadRequest, codeInvalidRequest, "grant_type is required")
	default:
		err = oauthErr(http.StatusBadRequest, codeUnsupportedGrantType, `grant_type must be "authorization_code" or "refresh_token"`)
	}
	if err != nil {
		return s.writeError(c, err)
	}
	setNoStore(h)
	return writeJSON(c, http.StatusOK, jsjson.NewObject(5).
		Set("access_token", res.access).
		Set("token_type", "Bearer").
		Set("expires_in", float64(s.opts.AccessTokenTTL/time.Second)).
		Set("refresh_token", res.refresh).
		Set("scope", strings.Join(res.scopes, " ")))
}

type tokenResponse struct {
	access, refresh string
	scopes          []string
}

// checkResource applies RFC 8707 at the token endpoint: any resource
// given must be this server (and, for a code, the one authorized).
func (s *Server) checkResource(form url.Values) error {
	for _, res := range form["resource"] {
		if !s.isResource(res) {
			return oauthErr(http.StatusBadRequest, codeInvalidTarget, "resource must be "+s.opts.ResourceURL)
		}
	}
	return nil
}

// redeemCode is the authorization_code grant. The code is marked used
// before anything else is checked, atomically, so it works at most once
// whatever the outcome; a code that was used already revokes the grant
// its first use issued (OAuth 2.1 §4.1.3), in the same step. Should that
// grant not exist yet (the first use is still being checked), it is
// created revoked: either way a replayed code leaves no live grant. A
// redemption that finds no code it may use is charged to the client's
// budget of failures from addr, the client's address (failures).
func (s *Server) redeemCode(ctx context.Context, form url.Values, addr string) (*tokenResponse, error) {
	code, verifier := form.Get("code"), form.Get("code_verifier")
	switch {
	case code == "":
		return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, "code is required")
	case verifier == "":
		return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, "code_verifier is required (PKCE)")
	}
	if err := s.checkResource(form); err != nil {
		return nil, err
	}
	client, err := s.resolveClient(ctx, form.Get("client_id"))
	if err != nil {
		return nil, err
	}
	budget := s.failuresOf(client, addr)
	if err := budget.check(); err != nil {
		return nil, err
	}
	res, err := s.exchangeCode(ctx, form, client, code)
	budget.charge(err)
	return res, err
}

// exchangeCode marks code used and, when it was this client's, unused,
// unexpired and matches the request, creates its grant and the tokens.
func (s *Server) exchangeCode(ctx context.Context, form url.Values, client *Client, code string) (*tokenResponse, error) {
	redirect, verifier := form.Get("redirect_uri"), form.Get("code_verifier")
	now := s.opts.Now()
	stored, err := s.opts.Store.MarkCodeUsed(ctx, hashToken(code), now)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errBadCode
	case err != nil:
		return nil, errServer.withCause(err)
	}
	if stored.Used {
		s.log.WarnContext(ctx, "oauth: authorization code replayed; its grant is revoked", "token_id", stored.TokenID)
		return nil, errBadCode.withCause(errors.New("code replayed"))
	}
	switch {
	case !now.Before(stored.ExpiresAt):
		return nil, errBadCode.withCause(errors.New("code expired"))
	case stored.ClientHash != hashToken(client.ID):
		return nil, errBadCode.withCause(errors.New("code issued to another client"))
	case redirect != "" && redirect != stored.RedirectURI, redirect == "" && len(client.RedirectURIs) != 1:
		return nil, oauthErr(http.StatusBadRequest, codeInvalidGrant, "redirect_uri does not match the authorization request")
	case !verifyPKCE(stored.Challenge, verifier):
		return nil, oauthErr(http.StatusBadRequest, codeInvalidGrant, "code_verifier does not match the code_challenge")
	case stored.Resource != "" && len(form["resource"]) > 0 && !slices.Contains(form["resource"], stored.Resource):
		return nil, oauthErr(http.StatusBadRequest, codeInvalidTarget, "resource does not match the authorization request")
	}
	expires := now.Add(s.opts.GrantTTL)
	rt := refreshPrefix + sealing.RandomToken(32)
	active, err := s.opts.Store.CreateGrant(ctx, stored.Hash, Grant{
		TokenID:     stored.TokenID,
		UserID:      stored.UserID,
		Name:        GrantName(stored.ClientName),
		Scopes:      stored.Scopes,
		ExpiresAt:   expires,
		ClientID:    client.ID,
		ClientName:  stored.ClientName,
		RedirectURI: stored.RedirectURI,
	}, hashToken(rt), now)
	if err != nil {
		return nil, errServer.withCause(err)
	}
	if !active {
		// The first use wins, and its tokens are answered; the replay that
		// raced it has revoked them already, as it would have a moment
		// later.
		s.log.WarnContext(ctx, "oauth: authorization code replayed during its redemption; its grant is created revoked", "token_id", stored.TokenID)
	}
	res := &tokenResponse{refresh: rt, scopes: stored.Scopes}
	if res.access, err = s.opts.Mint(stored.UserID, stored.Scopes, stored.TokenID, s.accessDays(), now); err != nil {
		return nil, errServer.withCause(err)
	}
	return res, nil
}

// refresh is the refresh_token grant with rotation: each refresh token
// is replaced on use, and presenting a replaced one again revokes the
// whole grant (OAuth 2.1 §4.3.1), since either the client or an attacker
// holds a stolen copy. The request is checked in full before the token is
// touched, so a refused request (say, invalid_scope) spends nothing. One
// retry is forgiven: while a token's replacement has never been used, the
// token itself still works, and replaces that unused replacement (hosts
// retry a refresh whose answer was lost; without this a timeout would end
// the connection). Once the replacement has been used, the old token is
// reuse again. The rotation, the retry and the revocation on reuse are
// one step of the store (Store.RotateRefresh), so concurrent refreshes of
// one token are decided one after the other. A refresh refused for its
// token (unknown, of another client, expired, revoked, reused) or its
// scope is charged to the client's budget of failures from addr, the
// client's address; one that finds its grant counts against the grant
// (limitRefresh).
func (s *Server) refresh(ctx context.Context, form url.Values, addr string) (*tokenResponse, error) {
	rt := form.Get("refresh_token")
	if rt == "" {
		return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, "refresh_token is required")
	}
	if err := s.checkResource(form); err != nil {
		return nil, err
	}
	client, err := s.resolveClient(ctx, form.Get("client_id"))
	if err != nil {
		return nil, err
	}
	budget := s.failuresOf(client, addr)
	if err := budget.check(); err != nil {
		return nil, err
	}
	res, err := s.rotate(ctx, form, client, rt)
	budget.charge(err)
	return res, err
}

// rotate finds refresh token rt and, when it is client's, live and within
// its grant's refresh budget, replaces it and mints an access token.
func (s *Server) rotate(ctx context.Context, form url.Values, client *Client, rt string) (*tokenResponse, error) {
	now := s.opts.Now()
	hash := hashToken(rt)
	stored, err := s.opts.Store.FindRefresh(ctx, hash)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errBadRefresh
	case err != nil:
		return nil, errServer.withCause(err)
	}
	if stored.ClientHash != hashToken(client.ID) {
		return nil, errBadRefresh.withCause(errors.New("refresh token of another client"))
	}
	if !now.Before(stored.ExpiresAt) {
		return nil, errBadRefresh.withCause(errors.New("refresh token expired"))
	}
	if err := s.limitRefresh(stored.TokenID); err != nil {
		return nil, err
	}
	scopes, err := narrowScopes(stored.Scopes, form.Get("scope"))
	if err != nil {
		return nil, err
	}
	next := refreshPrefix + sealing.RandomToken(32)
	outcome, err := s.opts.Store.RotateRefresh(ctx, hash, hashToken(next), now)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errBadRefresh
	case err != nil:
		return nil, errServer.withCause(err)
	}
	switch outcome {
	case Inactive:
		return nil, errBadRefresh.withCause(errors.New("grant revoked or expired"))
	case Reused:
		s.log.WarnContext(ctx, "oauth: refresh token reused; its grant is revoked", "token_id", stored.TokenID)
		return nil, errBadRefresh.withCause(errors.New("refresh token reused"))
	case Retried:
		s.log.InfoContext(ctx, "oauth: refresh retried before its replacement was used", "token_id", stored.TokenID)
	}
	// The replacement keeps the grant's scopes, so a narrowed access token
	// never narrows the grant.
	res := &tokenResponse{refresh: next, scopes: scopes}
	if res.access, err = s.opts.Mint(stored.UserID, scopes, stored.TokenID, s.accessDays(), now); err != nil {
		return nil, errServer.withCause(err)
	}
	return res, nil
}

// narrowScopes is the scope of a refresh request: the granted scopes, or
// the subset asked for; anything beyond the grant is invalid_scope.
func narrowScopes(granted []string, asked string) ([]string, error) {
	if asked == "" {
		return granted, nil
	}
	var narrowed []string
	for _, a := range strings.Fields(asked) {
		if a == "offline_access" {
			continue
		}
		if !slices.Contains(granted, a) {
			return nil, oauthErr(http.StatusBadRequest, codeInvalidScope, "scope exceeds what was granted")
		}
		narrowed = append(narrowed, a)
	}
	if len(narrowed) == 0 {
		return granted, nil
	}
	return narrowed, nil
}

// accessDays is the access-token lifetime in the unit MintAPIToken takes.
func (s *Server) accessDays() float64 { return s.opts.AccessTokenTTL.Hours() / 24 }

// msgPastedToken answers a token request that carries an mcp_ token as its
// Authorization header: mcp-remote sends a --header argument to every
// endpoint, the token endpoint included, so a client configuration that
// still holds a pasted token can never finish signing in. The text uses
// only the characters RFC 6749 §5.2 allows in error_description (no quote
// or backslash), so it can stand in the WWW-Authenticate header too.
const msgPastedToken = "The token request carries an Authorization: Bearer mcp_ header, so the MCP client configuration still sends a pasted token (for mcp-remote, a --header argument). Remove it and the environment variable that holds it, clear ~/.mcp-auth and restart the client to sign in with OAuth."

// isPastedToken reports whether an Authorization header value is a Bearer
// mcp_ token (the scheme is case-insensitive, RFC 9110 §11.1).
func isPastedToken(auth string) bool {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(auth), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && strings.HasPrefix(strings.TrimSpace(cred), "mcp_")
}
