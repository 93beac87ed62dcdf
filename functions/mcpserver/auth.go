package mcpserver

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/userdb"
)

// caller is an authenticated request's identity and database access.
type caller struct {
	principal *mcpauth.Principal
	db        *userdb.Client
	// version is the protocol revision the request is served under (see
	// requestVersion); requestID is the gateway's request id, for the audit
	// line.
	version   string
	requestID string
}

// authenticate runs the original's authenticateMCPRequest: verify the
// credential, then mint the user's database client (docs/contract/protocol.md A7), and on
// success record the token's use without waiting (A8). Any failure is
// returned as the *apierror.Error the transports map to their own shapes.
func (s *Server) authenticate(c echo.Context, log *slog.Logger) (*caller, *apierror.Error) {
	ctx := c.Request().Context()
	p, err := s.auth.Authenticate(ctx, headerJS(c.Request().Header, "Authorization"))
	if err == nil && p == nil {
		err = apierror.Internal("Internal server error", nil)
	}
	if err != nil {
		return nil, s.authFailure(log, err)
	}
	db, err := s.users.ForUser(ctx, p.UserID)
	if err != nil {
		return nil, s.authFailure(log, err)
	}
	s.auth.TouchLastUsed(p)
	return &caller{principal: p, db: db}, nil
}

// authFailure classifies err and logs server faults; refused credentials are
// expected traffic on a public endpoint and are not worth more than debug.
func (s *Server) authFailure(log *slog.Logger, err error) *apierror.Error {
	ae := apierror.As(err)
	if ae.IsServerFault() {
		log.Error("mcp-server: authentication failed", "status", ae.Status, "reason", string(ae.Reason), "error", err)
	} else {
		log.Debug("mcp-server: authentication refused", "status", ae.Status, "reason", string(ae.Reason))
	}
	return ae
}

// setChallenge adds the RFC 9728 / RFC 6750 challenge to a 401 when a
// resource metadata URL is configured. A request without credentials gets
// no error code (RFC 6750 §3.1); a malformed header is invalid_request; a
// refused token is invalid_token. The body is left as the original's.
func (s *Server) setChallenge(c echo.Context, ae *apierror.Error) {
	if ae.Status != http.StatusUnauthorized || s.resourceURL == "" {
		return
	}
	v := `Bearer resource_metadata="` + s.resourceURL + `"`
	switch {
	case headerJS(c.Request().Header, "Authorization") == "" || ae.Reason == apierror.ReasonMissing:
	case ae.Reason == apierror.ReasonMalformed:
		v += `, error="invalid_request"`
	default:
		v += `, error="invalid_token"`
	}
	c.Response().Header().Set("WWW-Authenticate", v)
}
