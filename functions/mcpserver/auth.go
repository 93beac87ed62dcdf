package mcpserver

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// caller is an authenticated request's identity and database access.
type caller struct {
	principal *mcpauth.Principal
	db        *userclient.Client
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
		m[msg] = jsonrpc.Envelope(jsonrpc.TransportCode(http.StatusUnauthorized), msg)
	}
	return m
}()

// authEnvelope is jsonrpc.Envelope(jsonrpc.TransportCode(ae.Status), ae.Message).
func authEnvelope(ae *apierror.Error) []byte {
	if ae.Status == http.StatusUnauthorized {
		if b, ok := unauthorizedEnvelopes[ae.Message]; ok {
			return b
		}
	}
	return jsonrpc.Envelope(jsonrpc.TransportCode(ae.Status), ae.Message)
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
// refused token is invalid_token, with the pasted-token hint as its
// error_description where pastedTokenHint gives one. Every challenge names
// the baseline scopes (Options.Scopes) when there are any. The body is
// left to the caller.
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
		if _, ok := s.pastedTokenHint(c, ae); ok {
			v = s.hintedChallenges[ae.Message]
		}
	}
	c.Response().Header()["Www-Authenticate"] = v // shared, never modified in place
}

// authBody is the POST answer's body for a failed authentication: the
// transport envelope of ae, with the pasted-token hint in its message
// where pastedTokenHint gives one.
func (s *Server) authBody(c echo.Context, ae *apierror.Error) []byte {
	if _, ok := s.pastedTokenHint(c, ae); ok {
		return hintedEnvelopes[ae.Message]
	}
	return authEnvelope(ae)
}

// pastedTokenHintText is added to the refusal of an mcp_ token. A client
// configured with a pasted token (mcp-remote's --header, an environment
// variable) keeps sending it after the token is revoked or expires: it
// overrides the OAuth token on every call and is sent to the token
// endpoint too, so the client signs in again and again without ever using
// the result. The text names the way out without claiming more than the
// server knows (the gateway's OAuth access tokens are mcp_ tokens as well),
// and holds only characters RFC 6750 §3 allows in error_description.
const pastedTokenHintText = " If your MCP client configuration still sends a pasted token (an Authorization header, such as mcp-remote --header), remove it and restart the client to sign in with OAuth."

// hintedMessages are the refusals of an mcp_ token that get the hint, and
// their hinted text: the original's message (so it still reads first), a
// full stop, the hint.
var hintedMessages = map[string]string{
	mcpauth.MsgRevoked:      mcpauth.MsgRevoked + "." + pastedTokenHintText,
	mcpauth.MsgInvalidToken: mcpauth.MsgInvalidToken + "." + pastedTokenHintText,
}

// hintedEnvelopes are the transport envelopes of hintedMessages, encoded once.
var hintedEnvelopes = func() map[string][]byte {
	m := make(map[string][]byte, len(hintedMessages))
	for k, msg := range hintedMessages {
		m[k] = jsonrpc.Envelope(jsonrpc.TransportCode(http.StatusUnauthorized), msg)
	}
	return m
}()

// pastedTokenHint returns the hinted message for a refused mcp_ token, and
// whether this answer carries it: only when OAuth is announced (there is
// something to switch to), only on a request that states a protocol
// revision (the drop-in path keeps the original's bytes), and only for a
// bearer that is an mcp_ token the authenticator refused as revoked,
// invalid or expired. The token itself is never part of the answer.
func (s *Server) pastedTokenHint(c echo.Context, ae *apierror.Error) (string, bool) {
	if s.resourceURL == "" || ae.Status != http.StatusUnauthorized || !s.statesRevision(c) {
		return "", false
	}
	msg, ok := hintedMessages[ae.Message]
	if !ok {
		return "", false
	}
	token, err := mcpauth.ParseAuthorization(headerJS(c.Request().Header, "Authorization"))
	if err != nil || !strings.HasPrefix(token, mcpauth.TokenPrefix) {
		return "", false
	}
	return msg, true
}

// protocolVersionKey is revision.HeaderProtocolVersion in net/http's
// canonical form: read per request (every refusal reads it twice), the
// name spelled "MCP-" would be canonicalized into a new string each time.
var protocolVersionKey = http.CanonicalHeaderKey(revision.HeaderProtocolVersion)

// statesRevision reports whether the request names a protocol revision in
// its MCP-Protocol-Version header and the server reads it. Authentication
// runs before the body is read, so the header is what decides here; a
// 2026-07-28 request must carry it as well.
func (s *Server) statesRevision(c echo.Context) bool {
	return !s.pinProtocol && headerJS(c.Request().Header, protocolVersionKey) != ""
}

// newChallenges returns the three WWW-Authenticate values setChallenge
// answers with, built once: no error code, invalid_request, invalid_token;
// and the invalid_token values with the pasted-token hint, by the
// authenticator's message. scopes, when there are any, are announced in
// each as RFC 6750's scope attribute: the baseline a client should ask for
// (MCP authorization, "Scope Selection Strategy").
func newChallenges(resourceURL string, scopes []string) ([3][]string, map[string][]string) {
	v := `Bearer resource_metadata="` + resourceURL + `"`
	if len(scopes) > 0 {
		v += `, scope="` + strings.Join(scopes, " ") + `"`
	}
	refused := v + `, error="invalid_token"`
	hinted := make(map[string][]string, len(hintedMessages))
	for k, msg := range hintedMessages {
		hinted[k] = []string{refused + `, error_description="` + msg + `"`}
	}
	return [3][]string{{v}, {v + `, error="invalid_request"`}, {refused}}, hinted
}

// insufficientScope returns the WWW-Authenticate value of the 403 answered
// when a tools/call lacks scope (RFC 6750 §3.1; MCP authorization, "Scope
// Challenge Handling"): the scope the call needs, the metadata URL when
// one is configured, and a description naming both. tool is a catalogue
// name and scope a catalogue scope, so neither needs quoting.
func (s *Server) insufficientScope(tool, scope string) []string {
	v := `Bearer error="insufficient_scope", scope="` + scope + `"`
	if s.resourceURL != "" {
		v += `, resource_metadata="` + s.resourceURL + `"`
	}
	return []string{v + `, error_description="The tool ` + tool + ` needs the scope ` + scope + `, which this token does not grant"`}
}

// validScopeToken reports whether v is an RFC 6749 §3.3 scope-token, which
// may be written inside a quoted challenge attribute as it is.
func validScopeToken(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
