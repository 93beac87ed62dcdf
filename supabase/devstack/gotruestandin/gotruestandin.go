// Package gotruestandin serves the Supabase Auth (GoTrue) endpoints the gateway
// and the original Edge Functions use — GET /user and the JWKS — and holds
// the helpers tests need to create users and sessions and to mint
// Supabase-shaped access tokens.
package gotruestandin

import (
	"context"
	"crypto/rand"
	_ "embed" // schema.sql
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/lestrrat-go/jwx/v2/jwk"
)

// SchemaSQL creates auth.sessions; apply it after the Supabase bootstrap.
//
//go:embed schema.sql
var SchemaSQL string

// Config configures Server.
type Config struct {
	// Pool reads auth.users and auth.sessions. Required.
	Pool *pgxpool.Pool
	// Issuer is the iss claim of minted tokens: "<SUPABASE_URL>/auth/v1".
	Issuer string
	// Keys is the asymmetric key ring. Required.
	Keys *KeySet
	// JWTSecret is the legacy HS256 secret GoTrue still accepts for tokens
	// without a kid. Optional.
	JWTSecret []byte
	// AccessTokenTTL is the lifetime of minted tokens. Default 1 h.
	AccessTokenTTL time.Duration
	// Logger receives internal errors. nil discards.
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// PublicURL is where browsers reach this server (<SUPABASE_URL>/auth/v1),
	// for the stand-in provider's pages. Default Issuer.
	PublicURL string
	// SiteURL is GoTrue's SITE_URL: the default redirect after sign-in.
	// Default http://localhost:3000.
	SiteURL string
	// RedirectAllowList is GoTrue's URI_ALLOW_LIST: redirect_to values
	// accepted besides the Site URL and loopback IP literals; exact URLs
	// or prefixes ending in "**".
	RedirectAllowList []string
	// Providers are the third-party providers the stand-in offers.
	// Default github and azure.
	Providers []string
}

// Server is the Auth API. Mount it under /auth/v1/ with http.StripPrefix.
type Server struct {
	cfg   Config
	log   *slog.Logger
	flows flows
}

// New validates cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Pool == nil {
		return nil, errors.New("gotruestandin: Config.Pool is required")
	}
	if cfg.Keys == nil || cfg.Keys.Signing() == nil {
		return nil, errors.New("gotruestandin: Config.Keys with a signing key is required")
	}
	if cfg.AccessTokenTTL <= 0 {
		cfg.AccessTokenTTL = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = cfg.Issuer
	}
	if cfg.SiteURL == "" {
		cfg.SiteURL = "http://localhost:3000"
	}
	if len(cfg.Providers) == 0 {
		cfg.Providers = []string{"github", "azure"}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, log: log}, nil
}

// Keys returns the key ring.
func (s *Server) Keys() *KeySet { return s.cfg.Keys }

// HTTPError is GoTrue's error body: {"code","error_code","msg"}. Err is the
// internal cause, never serialised.
type HTTPError struct {
	Status    int    `json:"code"`
	ErrorCode string `json:"error_code,omitempty"`
	Message   string `json:"msg"`
	Err       error  `json:"-"`
}

// Error describes the error with its internal cause, for logs.
func (e *HTTPError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("gotruestandin: %d %s: %s: %v", e.Status, e.ErrorCode, e.Message, e.Err)
	}
	return fmt.Sprintf("gotruestandin: %d %s: %s", e.Status, e.ErrorCode, e.Message)
}

// Unwrap returns the internal cause.
func (e *HTTPError) Unwrap() error { return e.Err }

// ServeHTTP routes GET /user, GET /.well-known/jwks.json and the PKCE
// sign-in flow (pkce.go).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var err error
	switch {
	case r.URL.Path == "/authorize" && r.Method == http.MethodGet:
		err = s.authorize(w, r)
	case strings.HasPrefix(r.URL.Path, "/stand-in/") && r.Method == http.MethodGet:
		err = s.standIn(w, r, strings.TrimPrefix(r.URL.Path, "/stand-in/"))
	case r.URL.Path == "/callback" && r.Method == http.MethodPost:
		err = s.callback(w, r)
	case r.URL.Path == "/token" && r.Method == http.MethodPost:
		err = s.token(w, r)
	case r.URL.Path == "/user" && r.Method == http.MethodGet:
		err = s.getUser(w, r)
	case r.URL.Path == "/.well-known/jwks.json" && r.Method == http.MethodGet:
		err = s.jwks(w)
	case r.URL.Path == "/health" && r.Method == http.MethodGet:
		err = writeJSON(w, http.StatusOK, map[string]string{"version": "devstack", "name": "GoTrue", "description": "Local Supabase Auth for the Pawtograder MCP gateway"})
	default:
		err = &HTTPError{Status: http.StatusNotFound, ErrorCode: "not_found", Message: "Not Found"}
	}
	if err != nil {
		var he *HTTPError
		if !errors.As(err, &he) {
			he = &HTTPError{Status: http.StatusInternalServerError, ErrorCode: "unexpected_failure", Message: "Unexpected failure, please check server logs for more information", Err: err}
		}
		if he.Status >= 500 {
			s.log.ErrorContext(r.Context(), "gotruestandin request failed", "path", r.URL.Path, "error", he.Error())
		}
		_ = writeJSON(w, he.Status, he)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

func (s *Server) jwks(w http.ResponseWriter) error {
	b, err := s.cfg.Keys.JSON()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=600")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err
}

// bearerRegexp is GoTrue's.
var bearerRegexp = regexp.MustCompile(`^(?:B|b)earer (\S+$)`)

// accessClaims is the subset of GoTrue's AccessTokenClaims that /user reads.
type accessClaims struct {
	jwt.RegisteredClaims
	Email     string `json:"email"`
	Role      string `json:"role"`
	SessionID string `json:"session_id,omitempty"`
}

// verify parses and checks a session token exactly as GoTrue's
// parseJWTClaims does: golang-jwt v5 with the configured methods, keys by
// kid, the legacy secret for HS256 without a known kid. GoTrue checks neither
// iss nor aud here, so neither do we.
func (s *Server) verify(token string) (*accessClaims, error) {
	p := jwt.NewParser(jwt.WithValidMethods([]string{"HS256", "ES256", "RS256"}), jwt.WithTimeFunc(s.cfg.Now))
	claims := &accessClaims{}
	_, err := p.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		if kid, ok := t.Header["kid"].(string); ok {
			if k := s.cfg.Keys.Lookup(kid); k != nil {
				var raw any
				pk, err := k.PublicKey()
				if err != nil {
					return nil, err
				}
				if err := pk.Raw(&raw); err != nil {
					return nil, err
				}
				return raw, nil
			}
		}
		if t.Header["alg"] == "HS256" && len(s.cfg.JWTSecret) > 0 {
			return s.cfg.JWTSecret, nil
		}
		return nil, fmt.Errorf("unrecognized JWT kid %v for algorithm %v", t.Header["kid"], t.Header["alg"])
	})
	if err != nil {
		return nil, &HTTPError{Status: http.StatusForbidden, ErrorCode: "bad_jwt", Message: "invalid JWT: unable to parse or verify signature, " + err.Error(), Err: err}
	}
	return claims, nil
}

// User is GoTrue's user object as GET /user renders it (the fields the dev
// stack's auth.users holds, in GoTrue's key order).
type User struct {
	ID               string          `json:"id"`
	Aud              string          `json:"aud"`
	Role             string          `json:"role"`
	Email            string          `json:"email"`
	EmailConfirmedAt *time.Time      `json:"email_confirmed_at,omitempty"`
	Phone            string          `json:"phone"`
	ConfirmedAt      *time.Time      `json:"confirmed_at,omitempty"`
	LastSignInAt     *time.Time      `json:"last_sign_in_at,omitempty"`
	AppMetadata      json.RawMessage `json:"app_metadata"`
	UserMetadata     json.RawMessage `json:"user_metadata"`
	Identities       []any           `json:"identities"`
	CreatedAt        time.Time       `json:"created_at"`
	UpdatedAt        time.Time       `json:"updated_at"`
	IsAnonymous      bool            `json:"is_anonymous"`
}

const userSQL = `SELECT id::text, coalesce(aud, ''), coalesce(role, ''), coalesce(email, ''), email_confirmed_at,
  coalesce(phone, ''), last_sign_in_at, coalesce(raw_app_meta_data, '{}'::jsonb)::text,
  coalesce(raw_user_meta_data, '{}'::jsonb)::text, coalesce(created_at, now()), coalesce(updated_at, created_at, now()),
  is_anonymous, banned_until
FROM auth.users WHERE id = $1 AND deleted_at IS NULL`

// LookupUser reads a user; ok is false when there is none.
func (s *Server) LookupUser(ctx context.Context, id string) (User, *time.Time, bool, error) {
	var u User
	var app, meta string
	var banned *time.Time
	err := s.cfg.Pool.QueryRow(ctx, userSQL, id).Scan(&u.ID, &u.Aud, &u.Role, &u.Email, &u.EmailConfirmedAt, &u.Phone,
		&u.LastSignInAt, &app, &meta, &u.CreatedAt, &u.UpdatedAt, &u.IsAnonymous, &banned)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, nil, false, nil
	}
	if err != nil {
		return User{}, nil, false, fmt.Errorf("gotruestandin: read user: %w", err)
	}
	u.AppMetadata, u.UserMetadata = json.RawMessage(app), json.RawMessage(meta)
	u.Identities = []any{}
	u.ConfirmedAt = u.EmailConfirmedAt
	for _, t := range []**time.Time{&u.EmailConfirmedAt, &u.ConfirmedAt, &u.LastSignInAt} {
		if *t != nil {
			v := (*t).UTC()
			*t = &v
		}
	}
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	return u, banned, true, nil
}

// getUser is GET /user: requireAuthentication, then the user as JSON.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	m := bearerRegexp.FindStringSubmatch(r.Header.Get("Authorization"))
	if len(m) != 2 {
		return &HTTPError{Status: http.StatusUnauthorized, ErrorCode: "no_authorization", Message: "This endpoint requires a valid Bearer token"}
	}
	claims, err := s.verify(m[1])
	if err != nil {
		return err
	}
	if claims.Subject == "" {
		return &HTTPError{Status: http.StatusForbidden, ErrorCode: "bad_jwt", Message: "invalid claim: missing sub claim"}
	}
	if !isUUID(claims.Subject) {
		return &HTTPError{Status: http.StatusBadRequest, ErrorCode: "bad_jwt", Message: "invalid claim: sub claim must be a UUID"}
	}
	u, banned, ok, err := s.LookupUser(ctx, claims.Subject)
	if err != nil {
		return err
	}
	if !ok {
		return &HTTPError{Status: http.StatusForbidden, ErrorCode: "user_not_found", Message: "User from sub claim in JWT does not exist"}
	}
	if sid := claims.SessionID; sid != "" && sid != "00000000-0000-0000-0000-000000000000" {
		if !isUUID(sid) {
			return &HTTPError{Status: http.StatusForbidden, ErrorCode: "bad_jwt", Message: "invalid claim: session_id claim must be a UUID"}
		}
		var exists bool
		if err := s.cfg.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.sessions WHERE id = $1)`, sid).Scan(&exists); err != nil {
			return fmt.Errorf("gotruestandin: read session: %w", err)
		}
		if !exists {
			return &HTTPError{Status: http.StatusForbidden, ErrorCode: "session_not_found", Message: "Session from session_id claim in JWT does not exist"}
		}
	}
	if banned != nil && banned.After(s.cfg.Now()) {
		return &HTTPError{Status: http.StatusForbidden, ErrorCode: "user_banned", Message: "User is banned"}
	}
	return writeJSON(w, http.StatusOK, u)
}

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRe.MatchString(s) }

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewUser describes a user to create.
type NewUser struct {
	// ID defaults to a random UUID.
	ID    string
	Email string
	// UserMetadata is stored in raw_user_meta_data (default {}).
	UserMetadata map[string]any
}

// CreateUser inserts an authenticated, email-confirmed user and returns its id.
func (s *Server) CreateUser(ctx context.Context, u NewUser) (string, error) {
	if u.ID == "" {
		u.ID = NewUUID()
	}
	meta := []byte("{}")
	if u.UserMetadata != nil {
		var err error
		if meta, err = json.Marshal(u.UserMetadata); err != nil {
			return "", fmt.Errorf("gotruestandin: user metadata: %w", err)
		}
	}
	_, err := s.cfg.Pool.Exec(ctx, `INSERT INTO auth.users (id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		VALUES ($1, 'authenticated', 'authenticated', $2, now(), '{"provider":"email","providers":["email"]}', $3::text::jsonb, now(), now())`,
		u.ID, u.Email, string(meta))
	if err != nil {
		return "", fmt.Errorf("gotruestandin: create user: %w", err)
	}
	return u.ID, nil
}

// DeleteUser removes a user (and, by cascade, its sessions).
func (s *Server) DeleteUser(ctx context.Context, id string) error {
	if _, err := s.cfg.Pool.Exec(ctx, `DELETE FROM auth.users WHERE id = $1`, id); err != nil {
		return fmt.Errorf("gotruestandin: delete user: %w", err)
	}
	return nil
}

// CreateSession records a session for userID and returns its id.
func (s *Server) CreateSession(ctx context.Context, userID string) (string, error) {
	id := NewUUID()
	if _, err := s.cfg.Pool.Exec(ctx, `INSERT INTO auth.sessions (id, user_id) VALUES ($1, $2)`, id, userID); err != nil {
		return "", fmt.Errorf("gotruestandin: create session: %w", err)
	}
	return id, nil
}

// DeleteSession removes a session (a sign-out): tokens naming it stop
// working at GET /user.
func (s *Server) DeleteSession(ctx context.Context, sessionID string) error {
	if _, err := s.cfg.Pool.Exec(ctx, `DELETE FROM auth.sessions WHERE id = $1`, sessionID); err != nil {
		return fmt.Errorf("gotruestandin: delete session: %w", err)
	}
	return nil
}

// TokenOption adjusts a minted token's claims or header.
type TokenOption func(*tokenSpec)

type tokenSpec struct {
	claims map[string]any
	header map[string]any
	key    jwk.Key
	hs256  []byte
}

// WithClaim sets (or overrides) a claim.
func WithClaim(name string, value any) TokenOption {
	return func(t *tokenSpec) { t.claims[name] = value }
}

// WithoutClaim removes a claim.
func WithoutClaim(name string) TokenOption {
	return func(t *tokenSpec) { delete(t.claims, name) }
}

// WithExpiry sets exp relative to iat (negative durations give expired tokens).
func WithExpiry(d time.Duration) TokenOption {
	return func(t *tokenSpec) {
		iat, _ := t.claims["iat"].(int64)
		t.claims["exp"] = iat + int64(d/time.Second)
	}
}

// WithHeader sets (or, with nil, removes) a header field such as kid.
func WithHeader(name string, value any) TokenOption {
	return func(t *tokenSpec) {
		if value == nil {
			delete(t.header, name)
		} else {
			t.header[name] = value
		}
	}
}

// WithSigningKey signs with k (a private ES256 JWK) instead of the current key.
func WithSigningKey(k jwk.Key) TokenOption {
	return func(t *tokenSpec) { t.key = k; t.header["kid"] = k.KeyID() }
}

// WithHS256 signs with the legacy secret (no kid), like pre-2025 Supabase.
func WithHS256(secret []byte) TokenOption {
	return func(t *tokenSpec) { t.hs256 = secret; delete(t.header, "kid") }
}

// MintAccessToken signs a Supabase-shaped access token for userID: ES256
// with the current kid; claims iss, sub, aud, exp, iat, email, role,
// session_id (when non-empty), aal, amr, is_anonymous.
func (s *Server) MintAccessToken(userID, email, sessionID string, opts ...TokenOption) (string, error) {
	now := s.cfg.Now().Unix()
	spec := &tokenSpec{
		claims: map[string]any{
			"iss": s.cfg.Issuer, "sub": userID, "aud": "authenticated",
			"exp": now + int64(s.cfg.AccessTokenTTL/time.Second), "iat": now,
			"email": email, "phone": "", "role": "authenticated", "aal": "aal1",
			"amr":           []map[string]any{{"method": "password", "timestamp": now}},
			"is_anonymous":  false,
			"app_metadata":  map[string]any{"provider": "email", "providers": []string{"email"}},
			"user_metadata": map[string]any{},
		},
		header: map[string]any{},
		key:    s.cfg.Keys.Signing(),
	}
	if sessionID != "" {
		spec.claims["session_id"] = sessionID
	}
	spec.header["kid"] = spec.key.KeyID()
	for _, o := range opts {
		o(spec)
	}
	var tok *jwt.Token
	var signKey any
	if spec.hs256 != nil {
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims(spec.claims)), spec.hs256
	} else {
		var raw any
		if err := spec.key.Raw(&raw); err != nil {
			return "", fmt.Errorf("gotruestandin: signing key: %w", err)
		}
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims(spec.claims)), raw
	}
	for k, v := range spec.header {
		tok.Header[k] = v
	}
	out, err := tok.SignedString(signKey)
	if err != nil {
		return "", fmt.Errorf("gotruestandin: sign: %w", err)
	}
	return out, nil
}
