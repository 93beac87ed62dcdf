package mcpauth

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/supabasejwt"
)

// Messages of the Supabase access-token path (the OAuth connector flow).
// The original has no such path: it refuses every bearer that is not a
// valid API token with MsgInvalidToken, so a Supabase token that fails
// verification gets that same answer. Only a session that has ended (a
// token that verifies) gets words of its own (docs/compatibility.md A13).
const (
	MsgSessionEnded      = "Session has ended; sign in again"
	msgVerifyUnavailable = "Access token verification"
)

var (
	errInvalidAccessToken = errInvalidToken
	errSessionEnded       = apierror.Unauthorized(apierror.ReasonInvalid, MsgSessionEnded)
)

// oauthScopes are granted to a Supabase access token: Supabase's OAuth
// server issues no custom scopes yet, so the user's consent is the grant.
var oauthScopes = []string{ScopeMCPRead, ScopeMCPWrite}

// routesToSupabase decides which verifier a bearer goes to: an mcp_ prefix
// always means an API token; otherwise a JWT whose (unverified) issuer is
// the configured Supabase Auth issuer is a Supabase token, and anything
// else is an API token, as bare API-token JWTs are in the original. The
// chosen verifier then checks everything, and its refusal is final: a token
// is never tried on the other path.
func (a *Authenticator) routesToSupabase(token string) bool {
	return a.supabase != nil && !strings.HasPrefix(token, "mcp_") &&
		supabasejwt.PeekIssuer(token) == a.supabase.Issuer()
}

// authenticateSupabase verifies a Supabase access token, then runs the
// staff gate (service role) and the session check (GET /auth/v1/user)
// concurrently, judging them in that order: a session Auth no longer knows
// is 401, Auth unreachable is 503, then the staff gate's 500 and 403.
func (a *Authenticator) authenticateSupabase(ctx context.Context, token string) (*Principal, error) {
	claims, err := a.supabase.Verify(ctx, token)
	if err != nil {
		var invalid *supabasejwt.InvalidTokenError
		if errors.As(err, &invalid) {
			return nil, errInvalidAccessToken.WithCause(err)
		}
		return nil, UpstreamUnavailable(msgVerifyUnavailable, err)
	}
	if a.svc == nil {
		return nil, errServiceRoleConfig
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	staff := make(chan staffResult, 1)
	go func() {
		ok, err := a.isStaff(ctx, claims.Subject)
		staff <- staffResult{ok, err}
	}()
	if a.sessions != nil {
		user, err := a.sessions.GetUser(ctx, token)
		if err != nil {
			var e *apierror.Error
			if errors.As(err, &e) && e.IsServerFault() {
				return nil, e
			}
			return nil, errSessionEnded.WithCause(err)
		}
		if user.ID != claims.Subject {
			return nil, errSessionEnded
		}
	}
	r := <-staff
	if r.err != nil {
		a.log.LogAttrs(ctx, slog.LevelWarn, "mcpauth: role query failed", slog.String("user_id", claims.Subject), slog.String("error", r.err.Error()))
		return nil, errRoleLookup.WithCause(r.err)
	}
	if !r.staff {
		return nil, errNotStaff
	}
	return &Principal{
		UserID:   claims.Subject,
		Scopes:   append([]string(nil), oauthScopes...),
		Kind:     KindSupabase,
		ClientID: claims.ClientID,
	}, nil
}
