// Package devstack runs a local Supabase stack for development and tests:
// a throwaway PostgreSQL 15 cluster with the Supabase bootstrap, the
// Pawtograder fixture schema, the gateway's migrations and the seed, plus
// one HTTP server with Supabase's path layout — a PostgREST-compatible API
// at /rest/v1/ and the Auth endpoints at /auth/v1/ — behind the apikey check
// of Supabase's API gateway.
package devstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/supabase/devstack/dbsetup"
	"github.com/pawtograder/mcp-gateway/supabase/devstack/gotruestandin"
	"github.com/pawtograder/mcp-gateway/supabase/devstack/pgcluster"
	"github.com/pawtograder/mcp-gateway/supabase/devstack/postgreststandin"
)

// GatewayKeyID is the kid of the gateway's user-JWT signing key, as in
// production (scripts/GenerateJwtKeys.ts).
const GatewayKeyID = "pawtograder-session-v1"

// AuthKeyID is the kid of the Auth server's initial signing key.
const AuthKeyID = "devstack-auth-1"

// Options configures Start. The zero value is valid.
type Options struct {
	// Port is the HTTP port on 127.0.0.1; 0 picks a free one.
	Port int
	// Logger receives progress and internal errors; nil discards.
	Logger *slog.Logger
	// NoSeed skips the seed (schema and migrations are still applied).
	NoSeed bool
	// DatabaseURL, when set, serves an existing database instead of
	// starting a cluster: nothing is created, migrated or seeded, and Close
	// leaves the database alone. The URL's user must be able to SET ROLE to
	// anon, authenticated and service_role (a superuser, or Supabase's
	// postgres role); the database must have what dbsetup.CheckServable
	// lists. NoSeed is then irrelevant.
	DatabaseURL string
}

// Stack is a running local Supabase.
type Stack struct {
	// URL is http://127.0.0.1:PORT; /rest/v1 and /auth/v1 live under it.
	URL string
	// RestURL is URL + "/rest/v1"; AuthURL is URL + "/auth/v1".
	RestURL, AuthURL string
	// DatabaseURL connects as the superuser.
	DatabaseURL string
	// AnonKey and ServiceRoleKey are HS256 JWTs (role anon / service_role)
	// over JWTSecret, accepted by the REST API and by the apikey check.
	AnonKey, ServiceRoleKey string
	// JWTSecret is the legacy HS256 secret.
	JWTSecret string
	// GatewaySigningJWK is an ES256 private JWK (JSON, kid GatewayKeyID):
	// what the gateway receives as JWT_SECRET. Its public half is in the
	// stack's JWKS, so the REST API accepts the user JWTs the gateway mints.
	GatewaySigningJWK string

	// Auth is the Auth server (users, sessions, keys, token minting).
	Auth *gotruestandin.Server
	// Rest is the REST handler (ReloadSchema after DDL in tests).
	Rest *postgreststandin.Handler

	cluster   *pgcluster.Cluster
	superPool *pgxpool.Pool
	restPool  *pgxpool.Pool
	srv       *http.Server
	done      chan struct{}
	log       *slog.Logger
}

// Start brings the stack up. Close it with Close.
func Start(ctx context.Context, opts Options) (_ *Stack, err error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Stack{log: log, done: make(chan struct{})}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	restURL := opts.DatabaseURL
	if opts.DatabaseURL != "" {
		// An existing database: only check it. The REST API switches to
		// the token's role per transaction on the given user's connections,
		// so RLS applies as it does under PostgREST's authenticator.
		if err = dbsetup.CheckServable(ctx, opts.DatabaseURL); err != nil {
			return nil, fmt.Errorf("devstack: %w", err)
		}
		s.DatabaseURL = opts.DatabaseURL
	} else if restURL, err = s.createDatabase(ctx, log, opts.NoSeed); err != nil {
		return nil, err
	}
	if s.superPool, err = pgxpool.New(ctx, s.DatabaseURL); err != nil {
		return nil, fmt.Errorf("devstack: connect: %w", err)
	}
	if s.cluster != nil {
		if _, err = s.superPool.Exec(ctx, gotruestandin.SchemaSQL); err != nil {
			return nil, fmt.Errorf("devstack: apply auth schema: %w", err)
		}
	}
	if s.restPool, err = pgxpool.New(ctx, restURL); err != nil {
		return nil, fmt.Errorf("devstack: connect for the REST API: %w", err)
	}

	// Keys: the legacy secret with the anon and service-role keys, the Auth
	// signing key, and the gateway's key published beside it.
	s.JWTSecret = randomHex(32)
	if s.AnonKey, err = legacyKey(s.JWTSecret, "anon"); err != nil {
		return nil, err
	}
	if s.ServiceRoleKey, err = legacyKey(s.JWTSecret, "service_role"); err != nil {
		return nil, err
	}
	authKey, err := gotruestandin.NewES256Key(AuthKeyID)
	if err != nil {
		return nil, err
	}
	keys, err := gotruestandin.NewKeySet(authKey)
	if err != nil {
		return nil, err
	}
	gwKey, err := gotruestandin.NewES256Key(GatewayKeyID)
	if err != nil {
		return nil, err
	}
	if err = keys.Add(gwKey); err != nil {
		return nil, err
	}
	gwJSON, err := json.Marshal(gwKey)
	if err != nil {
		return nil, fmt.Errorf("devstack: encode gateway key: %w", err)
	}
	s.GatewaySigningJWK = string(gwJSON)

	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(opts.Port))
	if err != nil {
		return nil, fmt.Errorf("devstack: listen: %w", err)
	}
	s.URL = "http://" + ln.Addr().String()
	s.RestURL, s.AuthURL = s.URL+"/rest/v1", s.URL+"/auth/v1"

	if s.Rest, err = postgreststandin.New(postgreststandin.Config{
		Pool:     s.restPool,
		JWKSFunc: func(context.Context) jwk.Set { return keys.Public() },
		// Supabase configures PostgREST with the legacy secret as well.
		JWTSecret: []byte(s.JWTSecret),
		MaxRows:   1000,
		Logger:    log,
	}); err != nil {
		_ = ln.Close()
		return nil, err
	}
	if s.Auth, err = gotruestandin.New(gotruestandin.Config{
		Pool: s.superPool, Issuer: s.AuthURL, Keys: keys, JWTSecret: []byte(s.JWTSecret), Logger: log,
	}); err != nil {
		_ = ln.Close()
		return nil, err
	}
	if err = s.Rest.ReloadSchema(ctx); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("devstack: %w", err)
	}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("devstack: http server stopped", "error", err)
		}
	}()
	log.Info("devstack started", "url", s.URL, "database_url", s.DatabaseURL)
	return s, nil
}

// createDatabase starts the throwaway cluster, creates and fills the
// database (everything dbsetup applies) and returns the URL the REST API
// connects with.
func (s *Stack) createDatabase(ctx context.Context, log *slog.Logger, noSeed bool) (string, error) {
	var err error
	if s.cluster, err = pgcluster.Start(ctx, pgcluster.Options{Logger: log}); err != nil {
		return "", fmt.Errorf("devstack: %w", err)
	}
	const db = "pawtograder"
	if err = s.cluster.CreateDatabase(ctx, db); err != nil {
		return "", fmt.Errorf("devstack: %w", err)
	}
	s.DatabaseURL = s.cluster.SuperuserURL(db)
	if noSeed {
		for _, f := range []func(context.Context, string) error{dbsetup.ApplyBootstrap, dbsetup.ApplyFixtures, dbsetup.ApplyMigrations} {
			if err = f(ctx, s.DatabaseURL); err != nil {
				return "", fmt.Errorf("devstack: %w", err)
			}
		}
	} else if err = dbsetup.ApplyAll(ctx, s.DatabaseURL); err != nil {
		return "", fmt.Errorf("devstack: %w", err)
	}
	// PostgREST connects as authenticator and switches role per request, as
	// on Supabase; the cluster trusts loopback connections.
	return strings.Replace(s.DatabaseURL, "postgres://postgres@", "postgres://authenticator:authenticator@", 1), nil
}

// Handler is the stack's HTTP handler (what Start serves).
func (s *Stack) Handler() http.Handler {
	mux := http.NewServeMux()
	rest := http.StripPrefix("/rest/v1", s.Rest)
	auth := http.StripPrefix("/auth/v1", s.Auth)
	mux.Handle("/rest/v1/", s.requireAPIKey(rest))
	// Supabase's gateway leaves the JWKS open, and the browser-facing
	// steps of third-party sign-in (Kong's open auth routes).
	mux.Handle("GET /auth/v1/.well-known/jwks.json", auth)
	mux.Handle("GET /auth/v1/authorize", auth)
	mux.Handle("GET /auth/v1/stand-in/", auth)
	mux.Handle("POST /auth/v1/callback", auth)
	mux.Handle("/auth/v1/", s.requireAPIKey(auth))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	return s.logRequests(mux)
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// logRequests logs every request at debug level with an id (never headers
// or tokens), so a failing test can be traced through the stack's log.
func (s *Stack) logRequests(next http.Handler) http.Handler {
	var seq atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		s.log.Debug("devstack request", "request_id", seq.Add(1), "method", r.Method, "path", r.URL.Path,
			"status", rec.status, "duration_ms", time.Since(start).Milliseconds())
	})
}

// requireAPIKey is the key check of Supabase's API gateway: the apikey
// header (or query parameter) must be the anon or service-role key.
func (s *Stack) requireAPIKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("apikey")
		if key == "" {
			key = r.URL.Query().Get("apikey")
		}
		switch key {
		case "":
			writeGatewayError(w, `{"message":"No API key found in request","hint":"No `+"`apikey`"+` request header or url param was found."}`)
			return
		case s.AnonKey, s.ServiceRoleKey:
			next.ServeHTTP(w, r)
			return
		}
		writeGatewayError(w, `{"message":"Invalid API key","hint":"Double check your Supabase `+"`anon`"+` or `+"`service_role`"+` API key."}`)
	})
}

func writeGatewayError(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(body))
}

// Close stops the HTTP server, closes the pools and removes the cluster.
func (s *Stack) Close() error {
	var errs []error
	if s.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.srv.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
		cancel()
		<-s.done
		s.srv = nil
	}
	if s.restPool != nil {
		s.restPool.Close()
		s.restPool = nil
	}
	if s.superPool != nil {
		s.superPool.Close()
		s.superPool = nil
	}
	if s.cluster != nil {
		if err := s.cluster.Stop(); err != nil {
			errs = append(errs, err)
		}
		s.cluster = nil
	}
	return errors.Join(errs...)
}

// Env returns the settings a gateway process needs, as KEY=VALUE pairs in a
// stable order.
func (s *Stack) Env() [][2]string {
	return [][2]string{
		{"SUPABASE_URL", s.URL},
		{"SUPABASE_ANON_KEY", s.AnonKey},
		{"SUPABASE_SERVICE_ROLE_KEY", s.ServiceRoleKey},
		{"SUPABASE_JWT_SECRET", s.JWTSecret},
		{"JWT_SECRET", s.GatewaySigningJWK},
		{"SUPABASE_JWKS_URL", s.AuthURL + "/.well-known/jwks.json"},
		{"DATABASE_URL", s.DatabaseURL},
	}
}

// TokenOption adjusts a minted session token (see package gotruestandin).
type TokenOption = gotruestandin.TokenOption

// Re-exported token options, so tests need only this package.
var (
	// WithClaim sets or overrides a claim.
	WithClaim = gotruestandin.WithClaim
	// WithoutClaim removes a claim (e.g. "sub", "exp").
	WithoutClaim = gotruestandin.WithoutClaim
	// WithExpiry sets exp relative to iat; negative gives an expired token.
	WithExpiry = gotruestandin.WithExpiry
	// WithHeader sets or (with nil) removes a header field such as "kid".
	WithHeader = gotruestandin.WithHeader
	// WithSigningKey signs with another private ES256 JWK.
	WithSigningKey = gotruestandin.WithSigningKey
	// WithHS256 signs with a legacy HS256 secret and no kid.
	WithHS256 = gotruestandin.WithHS256
)

// MintSessionToken signs a Supabase access token for userID with the Auth
// server's current key (no database access: add the email with
// WithClaim("email", …) and a session with WithClaim("session_id", …), or
// use SignIn).
func (s *Stack) MintSessionToken(userID string, opts ...TokenOption) (string, error) {
	return s.Auth.MintAccessToken(userID, "", "", opts...)
}

// SignIn creates a session for an existing user and returns a token naming
// it, with the user's email — what a browser holds after logging in.
func (s *Stack) SignIn(ctx context.Context, userID string, opts ...TokenOption) (token, sessionID string, err error) {
	u, _, ok, err := s.Auth.LookupUser(ctx, userID)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "", fmt.Errorf("devstack: no user %s", userID)
	}
	if sessionID, err = s.Auth.CreateSession(ctx, userID); err != nil {
		return "", "", err
	}
	token, err = s.Auth.MintAccessToken(userID, u.Email, sessionID, opts...)
	return token, sessionID, err
}

// CreateUser adds an auth user and returns its id.
func (s *Stack) CreateUser(ctx context.Context, u gotruestandin.NewUser) (string, error) {
	return s.Auth.CreateUser(ctx, u)
}

// CreateSession records a session for userID.
func (s *Stack) CreateSession(ctx context.Context, userID string) (string, error) {
	return s.Auth.CreateSession(ctx, userID)
}

// DeleteSession signs a session out.
func (s *Stack) DeleteSession(ctx context.Context, sessionID string) error {
	return s.Auth.DeleteSession(ctx, sessionID)
}

// RotateSigningKey makes a fresh ES256 key with kid the Auth server's
// signing key; older keys stay published.
func (s *Stack) RotateSigningKey(kid string) (jwk.Key, error) {
	return s.Auth.Keys().Rotate(kid)
}

// PauseDatabase stops the stack's PostgreSQL (every process, SIGSTOP) until
// ResumeDatabase; it fails for a stack serving a database it did not start.
func (s *Stack) PauseDatabase() error {
	if s.cluster == nil {
		return errors.New("devstack: the database is not the stack's own")
	}
	return s.cluster.Pause()
}

// ResumeDatabase continues the PostgreSQL that PauseDatabase stopped.
func (s *Stack) ResumeDatabase() error {
	if s.cluster == nil {
		return errors.New("devstack: the database is not the stack's own")
	}
	return s.cluster.Resume()
}

// AddJWK publishes k in the stack's JWKS (REST and /auth/v1 JWKS).
func (s *Stack) AddJWK(k jwk.Key) error { return s.Auth.Keys().Add(k) }

// RemoveJWK unpublishes the key with kid.
func (s *Stack) RemoveJWK(kid string) error { return s.Auth.Keys().Remove(kid) }

// legacyKey is a Supabase-style API key: a long-lived HS256 JWT with a role.
func legacyKey(secret, role string) (string, error) {
	now := time.Now().Unix()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss": "supabase-demo", "role": role, "iat": now, "exp": now + 10*365*24*3600,
	})
	out, err := tok.SignedString([]byte(secret))
	if err != nil {
		return "", fmt.Errorf("devstack: sign %s key: %w", role, err)
	}
	return out, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
