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
)

// refreshPrefix marks refresh tokens, so revocation can tell them from
// access tokens without a database look-up.
const refreshPrefix = "mcpr_"

var (
	errBadCode    = oauthErr(http.StatusBadRequest, codeInvalidGrant, "The authorization code is invalid, expired or already used")
	errBadRefresh = oauthErr(http.StatusBadRequest, codeInvalidGrant, "The refresh token is invalid, expired or revoked")
)

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
			return nil, oauthErr(http.StatusBadRequest, codeInvalidRequest, "Parameter "+k+" is repeated")
		}
	}
	return r.PostForm, nil
}

// token is the token endpoint (OAuth 2.1 §3.2): public clients only,
// authorization_code and refresh_token grants.
func (s *Server) token(c echo.Context) error {
	if done, err := s.postPrologue(c, s.tokenLimit); done {
		return err
	}
	h := c.Response().Header()
	form, err := readForm(c)
	if err != nil {
		return s.writeError(c, err)
	}
	if c.Request().Header.Get("Authorization") != "" {
		// Public clients have no secret; a client trying to authenticate
		// is told so (RFC 6749 §5.2: 401 when the header was used).
		h.Set("WWW-Authenticate", `Basic realm="oauth"`)
		return s.writeError(c, oauthErr(http.StatusUnauthorized, codeInvalidClient, "Only public clients (token_endpoint_auth_method \"none\") are supported; send client_id in the body and no Authorization header"))
	}
	ctx := c.Request().Context()
	var res *tokenResponse
	switch form.Get("grant_type") {
	case "authorization_code":
		res, err = s.redeemCode(ctx, form)
	case "refresh_token":
		res, err = s.refresh(ctx, form)
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
// its first use issued (OAuth 2.1 §4.1.3).
func (s *Server) redeemCode(ctx context.Context, form url.Values) (*tokenResponse, error) {
	code, verifier, redirect := form.Get("code"), form.Get("code_verifier"), form.Get("redirect_uri")
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
	now := s.opts.Now()
	stored, err := s.opts.Store.MarkCodeUsed(ctx, hashToken(code), now)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errBadCode
	case err != nil:
		return nil, errServer.withCause(err)
	}
	if stored.Used {
		if err := s.opts.Store.RevokeGrant(ctx, stored.TokenID, now); err != nil {
			return nil, errServer.withCause(err)
		}
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
	err = s.opts.Store.CreateGrant(ctx, Grant{
		TokenID:     stored.TokenID,
		UserID:      stored.UserID,
		Name:        GrantName(stored.ClientName),
		Scopes:      stored.Scopes,
		ExpiresAt:   now.Add(s.opts.GrantTTL),
		ClientID:    client.ID,
		ClientName:  stored.ClientName,
		RedirectURI: stored.RedirectURI,
	})
	if err != nil {
		return nil, errServer.withCause(err)
	}
	return s.issue(ctx, stored.UserID, stored.TokenID, client.ID, stored.Scopes, now.Add(s.opts.GrantTTL), now)
}

// refresh is the refresh_token grant with rotation: each refresh token
// works once; presenting one again revokes the whole grant
// (OAuth 2.1 §4.3.1), since either the client or an attacker holds a
// stolen copy.
func (s *Server) refresh(ctx context.Context, form url.Values) (*tokenResponse, error) {
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
	now := s.opts.Now()
	stored, err := s.opts.Store.MarkRefreshUsed(ctx, hashToken(rt), now)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, errBadRefresh
	case err != nil:
		return nil, errServer.withCause(err)
	}
	if stored.Used {
		if err := s.opts.Store.RevokeGrant(ctx, stored.TokenID, now); err != nil {
			return nil, errServer.withCause(err)
		}
		s.log.WarnContext(ctx, "oauth: refresh token reused; its grant is revoked", "token_id", stored.TokenID)
		return nil, errBadRefresh.withCause(errors.New("refresh token reused"))
	}
	if stored.ClientHash != hashToken(client.ID) {
		return nil, errBadRefresh.withCause(errors.New("refresh token of another client"))
	}
	if !now.Before(stored.ExpiresAt) {
		return nil, errBadRefresh.withCause(errors.New("refresh token expired"))
	}
	scopes := stored.Scopes
	if sc := form.Get("scope"); sc != "" {
		asked := strings.Fields(sc)
		var narrowed []string
		for _, a := range asked {
			if a == "offline_access" {
				continue
			}
			if !slices.Contains(stored.Scopes, a) {
				return nil, oauthErr(http.StatusBadRequest, codeInvalidScope, "scope exceeds what was granted")
			}
			narrowed = append(narrowed, a)
		}
		if len(narrowed) > 0 {
			scopes = narrowed
		}
	}
	active, err := s.opts.Store.GrantActive(ctx, stored.TokenID, now)
	if err != nil {
		return nil, errServer.withCause(err)
	}
	if !active {
		return nil, errBadRefresh.withCause(errors.New("grant revoked or expired"))
	}
	// Rotation keeps the grant's scopes for the next refresh token, so a
	// narrowed access token never narrows the grant.
	res, err := s.issue(ctx, stored.UserID, stored.TokenID, client.ID, stored.Scopes, stored.ExpiresAt, now)
	if err != nil {
		return nil, err
	}
	if len(scopes) != len(stored.Scopes) {
		res.scopes = scopes
		if res.access, err = s.opts.Mint(stored.UserID, scopes, stored.TokenID, s.accessDays(), now); err != nil {
			return nil, errServer.withCause(err)
		}
	}
	return res, nil
}

// issue saves a new refresh token for the grant and mints the access
// token: an mcp_ API token whose jti is the grant's token id, so revoking
// the grant (here or in mcp-tokens) stops it at once.
func (s *Server) issue(ctx context.Context, sub, tokenID, clientID string, scopes []string, expires, now time.Time) (*tokenResponse, error) {
	rt := refreshPrefix + randomToken(32)
	err := s.opts.Store.SaveRefresh(ctx, Refresh{Hash: hashToken(rt), TokenID: tokenID, UserID: sub, ClientHash: hashToken(clientID), Scopes: scopes, ExpiresAt: expires})
	if err != nil {
		return nil, errServer.withCause(err)
	}
	res := &tokenResponse{refresh: rt, scopes: scopes}
	if res.access, err = s.opts.Mint(sub, scopes, tokenID, s.accessDays(), now); err != nil {
		return nil, errServer.withCause(err)
	}
	return res, nil
}

// accessDays is the access-token lifetime in the unit MintAPIToken takes.
func (s *Server) accessDays() float64 { return s.opts.AccessTokenTTL.Hours() / 24 }
