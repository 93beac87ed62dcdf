package mcpauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/supabasejwt"
)

// Defaults for Options.
const (
	DefaultLastUsedInterval = 30 * time.Second
	DefaultLastUsedQueue    = 256
	DefaultLastUsedTracked  = 100_000
	DefaultWriteTimeout     = 5 * time.Second
	DefaultCloseTimeout     = 3 * time.Second
	DefaultLookupTimeout    = 10 * time.Second
	// serviceMaxBody bounds service-role responses: a revocation row, the
	// caller's staff roles, or nothing.
	serviceMaxBody = 1 << 20
)

// Options configures an Authenticator. Empty configuration values are not
// errors here: like the original, the A7 configuration messages are
// reported at request time, in A7 order.
type Options struct {
	// RestURL is the PostgREST base, e.g. <SUPABASE_URL>/rest/v1. Empty
	// means not configured (A7 step 5).
	RestURL string
	// ServiceRoleKey is SUPABASE_SERVICE_ROLE_KEY. Empty means not
	// configured (A7 step 5). It never leaves this package.
	ServiceRoleKey string
	// MCPJWTSecret is the raw MCP_JWT_SECRET, validated per request (A7
	// step 3) so that a bad value answers 500, never "invalid token".
	MCPJWTSecret string
	// HTTPClient is the pooled client for service-role calls. Defaults to
	// a client over http.DefaultTransport.
	HTTPClient *http.Client
	// Logger receives debug and warning lines; it never sees a token.
	// Defaults to slog.Default().
	Logger *slog.Logger
	// Now is the clock. Defaults to time.Now.
	Now func() time.Time
	// LastUsedInterval is the coalescing window for last_used_at writes:
	// at most one write per token per window. Default 30 s.
	LastUsedInterval time.Duration
	// LastUsedQueue bounds pending last_used_at writes; when full, new
	// ones are dropped. Default 256.
	LastUsedQueue int
	// LastUsedTracked bounds the number of tokens remembered for
	// coalescing. Default 100 000.
	LastUsedTracked int
	// WriteTimeout is the deadline of one last_used_at write. Default 5 s.
	WriteTimeout time.Duration
	// CloseTimeout bounds how long Close flushes pending writes. Default 3 s.
	CloseTimeout time.Duration
	// LookupTimeout bounds the service-role reads of one Authenticate or
	// EnsureRevoked call even when the caller's context has no deadline.
	// Default 10 s.
	LookupTimeout time.Duration
	// Supabase, when set, also accepts Supabase Auth access tokens (the
	// OAuth connector flow); see routesToSupabase for how a bearer is routed.
	Supabase *supabasejwt.Verifier
	// Sessions confirms that a Supabase access token's session still
	// exists (a signed-out grant keeps a valid signature until it expires).
	Sessions *AuthClient
	// DirectUpstream says RestURL is PostgREST itself, not Supabase's API
	// gateway: the service key then goes only in Authorization.
	DirectUpstream bool
}

// Authenticator turns an Authorization header into a Principal (A7 steps
// 1–10) and owns every use of the service-role key. It is safe for
// concurrent use; call Close when done.
type Authenticator struct {
	supabase *supabasejwt.Verifier
	sessions *AuthClient
	secret   string
	svc      *postgrest.Client // nil when RestURL or ServiceRoleKey is empty
	log      *slog.Logger
	now      func() time.Time

	interval      time.Duration
	tracked       int
	writeTimeout  time.Duration
	closeTimeout  time.Duration
	lookupTimeout time.Duration

	mu       sync.Mutex
	lastSeen map[string]time.Time // token id → time of the last queued write
	verified verifiedTokens
	lookups  workers
	closed   bool
	queue    chan touch
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

// New validates opts and starts the last_used_at worker. It fails only for
// a malformed (non-empty) RestURL.
func New(opts Options) (*Authenticator, error) {
	a := &Authenticator{
		supabase:      opts.Supabase,
		sessions:      opts.Sessions,
		secret:        opts.MCPJWTSecret,
		log:           opts.Logger,
		now:           opts.Now,
		interval:      opts.LastUsedInterval,
		tracked:       opts.LastUsedTracked,
		writeTimeout:  opts.WriteTimeout,
		closeTimeout:  opts.CloseTimeout,
		lookupTimeout: opts.LookupTimeout,
		lastSeen:      make(map[string]time.Time),
		stop:          make(chan struct{}),
		done:          make(chan struct{}),
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.interval <= 0 {
		a.interval = DefaultLastUsedInterval
	}
	if a.tracked <= 0 {
		a.tracked = DefaultLastUsedTracked
	}
	if a.writeTimeout <= 0 {
		a.writeTimeout = DefaultWriteTimeout
	}
	if a.closeTimeout <= 0 {
		a.closeTimeout = DefaultCloseTimeout
	}
	if a.lookupTimeout <= 0 {
		a.lookupTimeout = DefaultLookupTimeout
	}
	q := opts.LastUsedQueue
	if q <= 0 {
		q = DefaultLastUsedQueue
	}
	a.queue = make(chan touch, q)
	if opts.RestURL != "" && opts.ServiceRoleKey != "" {
		c, err := postgrest.New(postgrest.Options{
			BaseURL:      opts.RestURL,
			APIKey:       directless(opts.ServiceRoleKey, opts.DirectUpstream),
			HTTPClient:   opts.HTTPClient,
			MaxBodyBytes: serviceMaxBody,
		})
		if err != nil {
			return nil, fmt.Errorf("mcpauth: %w", err)
		}
		// supabase-js sends the service key both as apikey and as bearer.
		a.svc = c.WithBearer(opts.ServiceRoleKey)
	}
	go a.worker()
	return a, nil
}

// Authenticate runs docs/contract/protocol.md A7 steps 1–10 on the value of the
// Authorization header. Every failure is an *apierror.Error with the exact
// status and message of the first failing step.
//
// Steps 6 (revocation look-up) and 9 (staff gate) are independent reads with
// the service role, so they are sent together (lookUp); the results are
// then judged in A7 order, so the outcome is the sequential one: a failed
// revocation look-up (503) beats a revoked token (401), which beats a
// failed role query (500) and a caller who is not staff (403).
//
// Steps 11–12 (the user's own PostgREST client) belong to userdb.
func (a *Authenticator) Authenticate(ctx context.Context, authorization string) (*Principal, error) {
	token, err := ParseAuthorization(authorization) // steps 1–2
	if err != nil {
		return nil, err
	}
	if a.routesToSupabase(token) {
		return a.authenticateSupabase(ctx, token)
	}
	if err := ValidateMCPJWTSecret(a.secret); err != nil { // step 3
		return nil, err
	}
	claims, err := a.verified.verify(a.secret, token, a.now()) // step 4 (verifycache.go)
	if err != nil {
		return nil, err
	}
	if a.svc == nil { // step 5 (and its unreachable repeat, step 8)
		return nil, errServiceRoleConfig
	}

	ctx, cancel := context.WithTimeout(ctx, a.lookupTimeout)
	defer cancel()
	rev, staff := a.lookUp(ctx, claims)
	if rev.err != nil { // step 6
		a.log.LogAttrs(ctx, slog.LevelWarn, "mcpauth: revocation look-up failed", slog.String("token_id", claims.TokenID), slog.String("error", rev.err.Error()))
		return nil, revocationUnavailable(rev.err)
	}
	if rev.revoked { // step 7
		return nil, errRevoked
	}
	r := staff() // step 9
	if r.err != nil {
		a.log.LogAttrs(ctx, slog.LevelWarn, "mcpauth: role query failed", slog.String("user_id", claims.Subject), slog.String("error", r.err.Error()))
		return nil, errRoleLookup.WithCause(r.err)
	}
	if !r.staff { // step 10
		return nil, errNotStaff
	}
	return &Principal{
		UserID:  claims.Subject,
		TokenID: claims.TokenID,
		Scopes:  claims.Scopes,
		Kind:    KindAPIToken,
	}, nil
}

type staffResult struct {
	staff bool
	err   error
}

// lookUp runs steps 6 and 9, independent reads with the service role, and
// returns the revocation result and a function that waits for the staff
// gate's. Both are in flight together: over a plain-HTTP upstream they are
// sent from this goroutine, each on its own connection, before either
// answer is read (postgrest.Fanout), and both answers are awaited, so a
// role query the server is slow to answer holds back even a revoked
// token's 401, within LookupTimeout. Otherwise the role query runs on a
// reused goroutine (workers.go) while the revocation look-up runs on this
// one, and returning early cancels it through the caller's context.
func (a *Authenticator) lookUp(ctx context.Context, claims *TokenClaims) (revocationResult, func() staffResult) {
	revQ, staffQ := a.revocationQuery(claims.TokenID), a.staffQuery(claims.Subject)
	if answers, ok := postgrest.Fanout(ctx, revQ, staffQ); ok {
		var rev revocationResult
		var st staffResult
		rev.revoked, rev.err = revokedFrom(answers[0].MaybeSingle())
		st.staff, st.err = staffFrom(answers[1].Rows())
		return rev, func() staffResult { return st }
	}
	ch := make(chan staffResult, 1) // buffered: the worker never blocks
	a.lookups.run(func() {
		ok, err := staffFrom(staffQ.Rows(ctx))
		ch <- staffResult{ok, err}
	})
	var rev revocationResult
	rev.revoked, rev.err = revokedFrom(revQ.MaybeSingle(ctx))
	return rev, func() staffResult { return <-ch }
}

type revocationResult struct {
	revoked bool
	err     error
}

// revocationQuery is GET revoked_token_ids?select=token_id&token_id=eq.<jti>,
// read with maybeSingle semantics.
func (a *Authenticator) revocationQuery(tokenID string) *postgrest.Query {
	return a.svc.From("revoked_token_ids").Select("token_id").Eq("token_id", tokenID)
}

// revokedFrom reads the revocation look-up: a row means revoked.
func revokedFrom(row json.RawMessage, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	return row != nil, nil
}

// staffQuery is GET user_roles?select=class_id,role&user_id=eq.<sub>
// &disabled=eq.false&role=in.(instructor,grader), without a limit, as in
// the original.
func (a *Authenticator) staffQuery(userID string) *postgrest.Query {
	return a.svc.From("user_roles").Select("class_id, role").
		Eq("user_id", userID).Eq("disabled", "false").
		In("role", []string{"instructor", "grader"})
}

// isStaff runs the staff query.
func (a *Authenticator) isStaff(ctx context.Context, userID string) (bool, error) {
	return staffFrom(a.staffQuery(userID).Rows(ctx))
}

// staffFrom reads the staff query's rows: any row means staff.
func staffFrom(body json.RawMessage, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	if nonEmpty, ok := jsonArrayNonEmpty(body); ok { // valid JSON: no decoding needed
		return nonEmpty, nil
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(body, &rows); err != nil {
		return false, fmt.Errorf("mcpauth: decode user_roles: %w", err)
	}
	return len(rows) > 0, nil
}

// jsonArrayNonEmpty reports, for a body that is a valid JSON array (ok),
// whether it has elements — what decoding it into a slice and taking its
// length would say, without the decoding. ok is false for anything else,
// which the caller decodes to get the error.
func jsonArrayNonEmpty(body []byte) (nonEmpty, ok bool) {
	b := bytes.Trim(body, " \t\n\r")
	if len(b) < 2 || b[0] != '[' || !json.Valid(b) {
		return false, false
	}
	return bytes.Trim(b[1:], " \t\n\r")[0] != ']', true
}

// EnsureRevoked makes sure tokenID is in revoked_token_ids, the only table
// verifiers read. It inserts the row with the service role; a failed insert
// (normally a duplicate key, because the on_api_token_revoked trigger
// already wrote the row) is followed by a read that confirms the row
// exists. If neither establishes the row, the result is a 503
// "Token revocation is temporarily unavailable: <cause>", so the caller
// never reports success for a token that still authenticates. A missing
// configuration is the A7 step 5 error.
func (a *Authenticator) EnsureRevoked(ctx context.Context, tokenID string) error {
	if a.svc == nil {
		return errServiceRoleConfig
	}
	ctx, cancel := context.WithTimeout(ctx, a.lookupTimeout)
	defer cancel()
	body := jsjson.AppendString([]byte(`{"token_id":`), tokenID)
	body = append(body, '}')
	_, insErr := a.svc.From("revoked_token_ids").Insert(ctx, body, postgrest.ReturnMinimal)
	if insErr == nil {
		return nil
	}
	row, err := a.svc.From("revoked_token_ids").Select("token_id").Eq("token_id", tokenID).MaybeSingle(ctx)
	switch {
	case err != nil:
		return UpstreamUnavailable("Token revocation", errors.Join(err, insErr))
	case row == nil:
		return UpstreamUnavailable("Token revocation", insErr)
	}
	return nil
}

// directless is the apikey header value: none for a direct upstream.
func directless(key string, direct bool) string {
	if direct {
		return ""
	}
	return key
}
