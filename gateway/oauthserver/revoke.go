package oauthserver

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// revoke is token revocation (RFC 7009). Either kind of token revokes the
// whole grant: the api_tokens row (so mcp-tokens shows it revoked), every
// access token (their jti is the grant's id) and every refresh token. A
// token that is unknown, already revoked, or was issued to another client
// gets the same 200 and revokes nothing (RFC 7009 §2.2: the client cannot act on
// the difference, and an attacker learns nothing from it); such a request
// is charged to the client's budget of failures from its address, as a
// token request that finds nothing is (failures), while one that revokes
// its grant does so once.
func (s *Server) revoke(c echo.Context) error {
	if done, err := s.postPrologue(c, nil); done {
		return err
	}
	form, err := readForm(c)
	if err != nil {
		return s.writeError(c, err)
	}
	token := form.Get("token")
	if token == "" {
		return s.writeError(c, oauthErr(http.StatusBadRequest, codeInvalidRequest, "token is required"))
	}
	ctx := c.Request().Context()
	client, err := s.resolveClient(ctx, form.Get("client_id"))
	if err != nil {
		return s.writeError(c, err)
	}
	budget := s.failuresOf(client, s.clientIP(c.Request()))
	if err := budget.check(); err != nil {
		return s.writeError(c, err)
	}
	revoked, err := s.revokeGrantOf(ctx, token, client)
	if err != nil {
		return s.writeError(c, err)
	}
	if !revoked {
		budget.spend()
	}
	setNoStore(c.Response().Header())
	return c.NoContent(http.StatusOK)
}

// revokeGrantOf revokes the grant token belongs to when it is client's,
// and reports whether it did.
func (s *Server) revokeGrantOf(ctx context.Context, token string, client *Client) (bool, error) {
	tokenID, err := s.grantOf(ctx, token, client)
	if err != nil || tokenID == "" {
		return false, err
	}
	revoked, err := s.opts.Store.RevokeGrant(ctx, tokenID, client.ID, s.opts.Now())
	if err != nil {
		return false, errServer.withCause(err)
	}
	if revoked {
		s.log.InfoContext(ctx, "oauth: grant revoked by its client", "token_id", tokenID)
	}
	return revoked, nil
}

// grantOf finds the grant a token belongs to: for a refresh token only if
// it was issued to client; for an access token, any grant, which
// RevokeGrant then revokes only if it is client's.
func (s *Server) grantOf(ctx context.Context, token string, client *Client) (string, error) {
	if strings.HasPrefix(token, refreshPrefix) {
		r, err := s.opts.Store.FindRefresh(ctx, hashToken(token))
		switch {
		case errors.Is(err, ErrNotFound):
			return "", nil
		case err != nil:
			return "", errServer.withCause(err)
		case r.ClientHash != hashToken(client.ID):
			return "", nil
		}
		return r.TokenID, nil
	}
	if s.opts.Verify == nil {
		return "", nil
	}
	tokenID, err := s.opts.Verify(token, s.opts.Now())
	if err != nil {
		return "", nil
	}
	// Whether the grant is this client's (and an OAuth grant at all: a
	// pasted mcp_ token is mcp-tokens' to revoke) is checked by RevokeGrant
	// in the same step as the revocation.
	return tokenID, nil
}
