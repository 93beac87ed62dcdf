package mcpserver

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
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
	// versionStated is set when the request names its revision (the
	// MCP-Protocol-Version header or _meta); server/discover is answered
	// only then, so a request without any keeps the original's -32601.
	versionStated bool
	// clientCapabilities are the capabilities a 2026-07-28 request declares
	// in _meta (never nil at that revision; nil before, where a stateless
	// server cannot know what initialize declared). Features gated on a
	// client capability read them here.
	clientCapabilities *jsjson.Object
}

// authenticate runs the original's authenticateMCPRequest: verify the
// credential, then mint the user's database client (docs/contract/protocol.md A7), and on
// success record the token's use without waiting (A8). Any failure is
// returned as the *apierror.Error the transports map to their own shapes.
// log may be nil: the request's logger is then made only if a failure is
// logged.
func (s *Server) authenticate(c echo.Context, log *slog.Logger) (*caller, *apierror.Error) {
	ctx := c.Request().Context()
	p, err := s.auth.Authenticate(ctx, headerJS(c.Request().Header, "Authorization"))
	if err == nil && p == nil {
		err = apierror.Internal("Internal server error", nil)
	}
	if err != nil {
		return nil, s.authFailure(log, c, err)
	}
	db, err := s.users.ForUser(ctx, p.UserID)
	if err != nil {
		return nil, s.authFailure(log, c, err)
	}
	s.auth.TouchLastUsed(p)
	return &caller{principal: p, db: db}, nil
}

// loggerOr returns log, or the request's logger when log is nil.
func (s *Server) loggerOr(log *slog.Logger, c echo.Context) *slog.Logger {
	if log != nil {
		return log
	}
	return s.requestLogger(c)
}

// unauthorizedEnvelopes are the transport envelopes of the fixed 401
// messages, encoded once: refused credentials are the answer a flood of bad
// requests gets, so it should cost nothing to write.
var unauthorizedEnvelopes = func() map[string][]byte {
	m := map[string][]byte{}
	for _, msg := range []string{mcpauth.MsgMissingHeader, mcpauth.MsgInvalidHeader, mcpauth.MsgInvalidToken, mcpauth.MsgRevoked, mcpauth.MsgUnauthorized} {
		m[msg] = envelope(transportCode(http.StatusUnauthorized), msg)
	}
	return m
}()

// authEnvelope is envelope(transportCode(ae.Status), ae.Message).
func authEnvelope(ae *apierror.Error) []byte {
	if ae.Status == http.StatusUnauthorized {
		if b, ok := unauthorizedEnvelopes[ae.Message]; ok {
			return b
		}
	}
	return envelope(transportCode(ae.Status), ae.Message)
}

// authFailure classifies err and logs server faults; refused credentials are
// expected traffic on a public endpoint and are not worth more than debug.
// log may be nil (see authenticate); the request's logger is made only
// when a line is written.
func (s *Server) authFailure(log *slog.Logger, c echo.Context, err error) *apierror.Error {
	ae := apierror.As(err)
	if ae.IsServerFault() {
		s.loggerOr(log, c).Error("mcp-server: authentication failed", "status", ae.Status, "reason", string(ae.Reason), "error", err)
	} else if s.log.Enabled(context.Background(), slog.LevelDebug) { // the request's logger has s.log's level
		s.loggerOr(log, c).Debug("mcp-server: authentication refused", "status", ae.Status, "reason", string(ae.Reason))
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
	var v []string
	switch {
	case headerJS(c.Request().Header, "Authorization") == "" || ae.Reason == apierror.ReasonMissing:
		v = s.challenges[0]
	case ae.Reason == apierror.ReasonMalformed:
		v = s.challenges[1]
	default:
		v = s.challenges[2]
	}
	c.Response().Header()["Www-Authenticate"] = v // shared, never modified in place
}

// newChallenges returns the three WWW-Authenticate values setChallenge
// answers with, built once: no error code, invalid_request, invalid_token.
func newChallenges(resourceURL string) [3][]string {
	v := `Bearer resource_metadata="` + resourceURL + `"`
	return [3][]string{{v}, {v + `, error="invalid_request"`}, {v + `, error="invalid_token"`}}
}
