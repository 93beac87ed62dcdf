package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"sync"
	"time"

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

// Options configures an Authenticator. An empty configuration value is not
// an error here: like the original, the A7 configuration messages for an
// unset value are reported at request time, in A7 order. A value that is
// set but unusable (a malformed RestURL, a short MCPJWTSecret) makes New
// fail.
type Options struct {
	// RestURL is the PostgREST base, e.g. <SUPABASE_URL>/rest/v1. Empty
	// means not configured (A7 step 5).
	RestURL string
	// ServiceRoleKey is SUPABASE_SERVICE_ROLE_KEY. Empty means not
	// configured (A7 step 5). It never leaves this package.
	ServiceRoleKey string
	// MCPJWTSecret is the raw MCP_JWT_SECRET. Empty means not configured:
	// API tokens then answer the A7 step 3 500, never "invalid token". A
	// non-empty secret shorter than MinSecretLength makes New fail.
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
	// LookupTimeout bounds the service-role reads of one Authenticate call
	// even when the caller's context has no deadline.
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
	key      []byte            // MCP_JWT_SECRET, validated by New; nil when not configured
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
	closed   bool
	queue    chan touch
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

// New validates opts and starts the last_used_at worker. It fails for a
// malformed (non-empty) RestURL and for a non-empty MCPJWTSecret that is
// too short, with a message naming MCP_JWT_SECRET (never its value).
func New(opts Options) (*Authenticator, error) {
	if opts.MCPJWTSecret != "" && ValidateMCPJWTSecret(opts.MCPJWTSecret) != nil {
		return nil, fmt.Errorf("mcpauth: MCP_JWT_SECRET must be at least %d characters (counted as JavaScript counts them, in UTF-16 code units); it has %d",
			MinSecretLength, jsLength(opts.MCPJWTSecret))
	}
	a := &Authenticator{
		supabase:      opts.Supabase,
		sessions:      opts.Sessions,
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
	if opts.MCPJWTSecret != "" {
		a.key = []byte(opts.MCPJWTSecret)
	}
	if opts.RestURL != "" && opts.ServiceRoleKey != "" {
		svc, err := ServiceClient(ServiceClientOptions{RestURL: opts.RestURL, ServiceRoleKey: opts.ServiceRoleKey, DirectUpstream: opts.DirectUpstream, HTTPClient: opts.HTTPClient})
		if err != nil {
			return nil, err
		}
		a.svc = svc
	}
	go a.worker()
	return a, nil
}

// Authenticate runs docs/contract/protocol.md A7 steps 1–10 on the value of the
// Authorization header. Every failure is an *apierror.Error with the exact
// status and message of the first failing step.
//
// Steps 6 (revocation look-up) and 9 (staff gate) are one service-role
// call (lookUp), judged in A7 order: a failed call (503) beats a revoked
// token (401), which beats a failed role query (500) and a caller who is
// not staff (403).
//
// Steps 11–12 (the user's own PostgREST client) belong to userclient.
func (a *Authenticator) Authenticate(ctx context.Context, authorization string) (*Principal, error) {
	token, err := ParseAuthorization(authorization) // steps 1–2
	if err != nil {
		return nil, err
	}
	if a.routesToSupabase(token) {
		return a.authenticateSupabase(ctx, token)
	}
	if a.key == nil { // step 3; New has refused a secret that is set but short
		return nil, errMCPSecret
	}
	claims, err := verifyAPIToken(a.key, token, a.now()) // step 4
	if err != nil {
		return nil, err
	}
	if a.svc == nil { // step 5 (and its unreachable repeat, step 8)
		return nil, errServiceRoleConfig
	}

	ctx, cancel := context.WithTimeout(ctx, a.lookupTimeout)
	defer cancel()
	staff, staffErr, err := a.lookUp(ctx, claims)
	if err != nil { // steps 6 and 7
		return nil, err
	}
	if staffErr != nil { // step 9
		a.log.LogAttrs(ctx, slog.LevelWarn, "mcpauth: role query failed", slog.String("user_id", claims.Subject), slog.String("error", staffErr.Error()))
		return nil, errRoleLookup.WithCause(staffErr)
	}
	if !staff { // step 10
		return nil, errNotStaff
	}
	return &Principal{
		UserID:  claims.Subject,
		TokenID: claims.TokenID,
		Scopes:  claims.Scopes,
		Kind:    KindAPIToken,
	}, nil
}

// lookUp answers steps 6–7 and the query of step 9 in one round trip: the
// service-role function mcp_auth_lookup (supabase/migrations/
// 20261204000000_mcp_auth_lookup.sql) reads revoked_token_ids and
// user_roles in one statement. err is the answer of steps 6–7: a failed
// call reads as the original's first failing step, the revocation
// look-up (503), and a revoked token is 401. staffErr is step 9's failure,
// judged after them: the original's role query fails for a user id that
// is not a uuid, which the function cannot be asked.
func (a *Authenticator) lookUp(ctx context.Context, claims *TokenClaims) (staff bool, staffErr, err error) {
	userID, validUser := lookupUserID(claims.Subject)
	body, callErr := a.svc.ReadRPC(ctx, authLookupFunction, authLookupArgs{TokenID: claims.TokenID, UserID: userID})
	answer, callErr := authLookupFrom(body, callErr)
	switch {
	case callErr != nil:
		a.log.LogAttrs(ctx, slog.LevelWarn, "mcpauth: revocation look-up failed", slog.String("token_id", claims.TokenID), slog.String("error", callErr.Error()))
		return false, nil, revocationUnavailable(callErr)
	case answer.Revoked:
		return false, nil, errRevoked
	case !validUser:
		return false, errInvalidUserID, nil
	}
	return answer.Staff, nil, nil
}

// authLookupFunction answers revocation and roles together.
const authLookupFunction = "mcp_auth_lookup"

// authLookupArgs are mcp_auth_lookup's named arguments. A user id that is
// not a uuid is sent as null (no roles), and judged by lookUp.
type authLookupArgs struct {
	TokenID string  `json:"p_token_id"`
	UserID  *string `json:"p_user_id"`
}

// authLookup is mcp_auth_lookup's answer.
type authLookup struct {
	Revoked *bool `json:"revoked"`
	Staff   *bool `json:"staff"`
}

// authLookupAnswer is authLookup with both answers present.
type authLookupAnswer struct{ Revoked, Staff bool }

// errInvalidUserID is the cause of a failed role query for a user id that
// is not a uuid (PostgreSQL refuses it, as it did the original's query).
var errInvalidUserID = errors.New("mcpauth: user id is not a uuid")

// lookupUserID returns the user id to send: sub itself when PostgreSQL
// reads it as a uuid (pgUUID), nil otherwise.
func lookupUserID(sub string) (*string, bool) {
	if !pgUUID.MatchString(sub) {
		return nil, false
	}
	return &sub, true
}

// pgUUID matches what PostgreSQL's uuid input (string_to_uuid in
// src/backend/utils/adt/uuid.c) accepts: 32 hex digits in groups of four,
// a hyphen allowed after each group but the last, optionally in braces. It
// is the check the original's role query made of sub (user_id=eq.<sub>),
// so a sub PostgreSQL accepts is asked about and any other fails as that
// query did; TestPGUUIDAgreesWithPostgreSQL holds it to PostgreSQL.
var pgUUID = regexp.MustCompile(`^(?:\{` + pgUUIDDigits + `\}|` + pgUUIDDigits + `)$`)

const pgUUIDDigits = `[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7}`

// authLookupFrom reads mcp_auth_lookup's answer; an answer without both
// fields is a failure, never "not revoked" or "not staff".
func authLookupFrom(body json.RawMessage, err error) (authLookupAnswer, error) {
	if err != nil {
		return authLookupAnswer{}, err
	}
	var l authLookup
	if err := json.Unmarshal(body, &l); err != nil {
		return authLookupAnswer{}, fmt.Errorf("mcpauth: decode %s: %w", authLookupFunction, err)
	}
	if l.Revoked == nil || l.Staff == nil {
		return authLookupAnswer{}, fmt.Errorf("mcpauth: %s answered without revoked and staff", authLookupFunction)
	}
	return authLookupAnswer{Revoked: *l.Revoked, Staff: *l.Staff}, nil
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
	var rows []json.RawMessage
	if err := json.Unmarshal(body, &rows); err != nil {
		return false, fmt.Errorf("mcpauth: decode user_roles: %w", err)
	}
	return len(rows) > 0, nil
}

// directless is the apikey header value: none for a direct upstream.
func directless(key string, direct bool) string {
	if direct {
		return ""
	}
	return key
}
