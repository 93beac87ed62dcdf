package mcpauth

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"golang.org/x/sync/errgroup"

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
	var staff bool
	var staffErr error
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		staff, staffErr = a.isStaff(gctx, claims.Subject)
		return nil // judged after the session check, which it must not cancel
	})
	if a.sessions != nil {
		g.Go(func() error { return a.checkSession(gctx, token, claims.Subject) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if staffErr != nil {
		a.log.LogAttrs(ctx, slog.LevelWarn, "mcpauth: role query failed", slog.String("user_id", claims.Subject), slog.String("error", staffErr.Error()))
		return nil, errRoleLookup.WithCause(staffErr)
	}
	if !staff {
		return nil, errNotStaff
	}
	return &Principal{
		UserID:   claims.Subject,
		Scopes:   append([]string(nil), oauthScopes...),
		Kind:     KindSupabase,
		ClientID: claims.ClientID,
	}, nil
}

// checkSession confirms that Auth still knows the session of token and
// that it belongs to subject: 401 when it does not, Auth's own 5xx when it
// cannot say.
func (a *Authenticator) checkSession(ctx context.Context, token, subject string) error {
	user, err := a.sessions.GetUser(ctx, token)
	if err != nil {
		var e *apierror.Error
		if errors.As(err, &e) && e.IsServerFault() {
			return e
		}
		return errSessionEnded.WithCause(err)
	}
	if user.ID != subject {
		return errSessionEnded
	}
	return nil
}
