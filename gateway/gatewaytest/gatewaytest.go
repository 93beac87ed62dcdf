// Package gatewaytest holds the helpers that integration tests share: the
// Supabase stack they run against, seeded personas, and clients acting as
// those personas. Only _test.go files import it.
//
// By default each test package gets its own local stack (supabase/devstack:
// a throwaway PostgreSQL with the Pawtograder fixture schema, RLS and seed,
// behind a PostgREST-compatible API and Supabase Auth endpoints). Set
// GATEWAY_TEST_SUPABASE_URL and the variables below to run the same tests
// against a real Supabase stack instead (e.g. `supabase start`, with the
// seed in supabase/fixtures/90_seed.sql applied to its database):
//
//	GATEWAY_TEST_SUPABASE_URL          API gateway URL, e.g. http://127.0.0.1:54321
//	GATEWAY_TEST_ANON_KEY              anon key
//	GATEWAY_TEST_SERVICE_ROLE_KEY      service_role key
//	GATEWAY_TEST_SIGNING_JWK           ES256 private JWK whose public half PostgREST trusts (the gateway's JWT_SECRET)
//	GATEWAY_TEST_JWT_SECRET            the project's legacy HS256 secret, used to mint session tokens for seeded users
//	GATEWAY_TEST_DATABASE_URL          optional superuser URL (tests that inspect rows skip without it)
//
// Tests that need the local stack's controls skip themselves on a real one
// (RequireLocal), as do tests that need SQL when no database URL is given
// (DB, RequireDatabase). A real stack keeps what tests write, and some
// packages add rows that others read: run the packages one at a time
// (go test -p 1) on a freshly seeded database.
package gatewaytest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
	"github.com/pawtograder/mcp-gateway/supabase/devstack"
)

// Seeded personas (supabase/fixtures/SEED.md).
const (
	Alice = "10000000-0000-4000-8000-000000000001" // instructor, class 1
	Gary  = "10000000-0000-4000-8000-000000000002" // grader, class 1
	Sam   = "10000000-0000-4000-8000-000000000003" // student, class 1
	Sofia = "10000000-0000-4000-8000-000000000004" // student, class 1
	Dale  = "10000000-0000-4000-8000-000000000005" // disabled grader, class 1
	Bea   = "10000000-0000-4000-8000-000000000006" // instructor, class 2
	Ben   = "10000000-0000-4000-8000-000000000007" // student, class 2
	Tara  = "10000000-0000-4000-8000-000000000008" // grader class 2, student class 1
	Nora  = "10000000-0000-4000-8000-000000000009" // no roles
)

// Env is the Supabase stack under test.
type Env struct {
	URL, RestURL, AuthURL   string
	AnonKey, ServiceRoleKey string
	SigningJWK              string
	DatabaseURL             string
	// Stack is the local stack, nil when testing against a real one.
	Stack *devstack.Stack

	legacySecret string
}

// Main starts the stack for a test package and runs its tests:
//
//	var env *gatewaytest.Env
//	func TestMain(m *testing.M) { gatewaytest.Main(m, &env) }
func Main(m *testing.M, env **Env) {
	os.Exit(run(m, env))
}

func run(m *testing.M, out **Env) int {
	env, err := open()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatewaytest:", err)
		return 1
	}
	if env.Stack != nil {
		defer env.Stack.Close()
	}
	*out = env
	return m.Run()
}

// open returns the real stack named by GATEWAY_TEST_SUPABASE_URL, or starts
// a local one (the caller closes Env.Stack).
func open() (*Env, error) {
	if url := os.Getenv("GATEWAY_TEST_SUPABASE_URL"); url != "" {
		return &Env{
			URL: url, RestURL: url + "/rest/v1", AuthURL: url + "/auth/v1",
			AnonKey:        os.Getenv("GATEWAY_TEST_ANON_KEY"),
			ServiceRoleKey: os.Getenv("GATEWAY_TEST_SERVICE_ROLE_KEY"),
			SigningJWK:     os.Getenv("GATEWAY_TEST_SIGNING_JWK"),
			DatabaseURL:    os.Getenv("GATEWAY_TEST_DATABASE_URL"),
			legacySecret:   os.Getenv("GATEWAY_TEST_JWT_SECRET"),
		}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := devstack.Start(ctx, devstack.Options{})
	if err != nil {
		return nil, fmt.Errorf("starting the local stack: %w", err)
	}
	return &Env{
		URL: s.URL, RestURL: s.RestURL, AuthURL: s.AuthURL,
		AnonKey: s.AnonKey, ServiceRoleKey: s.ServiceRoleKey,
		SigningJWK: s.GatewaySigningJWK, DatabaseURL: s.DatabaseURL,
		Stack: s, legacySecret: s.JWTSecret,
	}, nil
}

// SessionToken signs userID in, as the web app's browser session would be:
// a Supabase access token with a live session.
func (e *Env) SessionToken(t testing.TB, userID string) string {
	t.Helper()
	if e.Stack != nil {
		tok, _, err := e.Stack.SignIn(context.Background(), userID)
		if err != nil {
			t.Fatalf("sign in %s: %v", userID, err)
		}
		return tok
	}
	if e.legacySecret == "" {
		t.Skip("GATEWAY_TEST_JWT_SECRET is not set: cannot mint session tokens for the real stack")
	}
	now := time.Now()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": userID, "role": "authenticated", "aud": "authenticated",
		"iss": e.AuthURL, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}).SignedString([]byte(e.legacySecret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// AnonREST is a PostgREST client with the anon key and no user.
func (e *Env) AnonREST(t testing.TB) *postgrest.Client {
	t.Helper()
	c, err := postgrest.New(postgrest.Options{BaseURL: e.RestURL, APIKey: e.AnonKey})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ServiceREST is a PostgREST client with the service role, as
// mcpauth.ServiceClient builds it for the gateway's own stores.
func (e *Env) ServiceREST(t testing.TB) *postgrest.Client {
	t.Helper()
	c, err := postgrest.New(postgrest.Options{BaseURL: e.RestURL, APIKey: e.ServiceRoleKey})
	if err != nil {
		t.Fatal(err)
	}
	return c.WithBearer(e.ServiceRoleKey)
}

// UserClient is a client acting as userID with a fresh session token.
func (e *Env) UserClient(t testing.TB, userID string) *userclient.Client {
	t.Helper()
	return userclient.NewClient(e.AnonREST(t), userID, e.SessionToken(t, userID))
}

// RequireLocal skips tests that need the local stack's controls (deleting
// sessions, rotating keys, direct database access).
func (e *Env) RequireLocal(t testing.TB) *devstack.Stack {
	t.Helper()
	if e.Stack == nil {
		t.Skip("needs the local stack")
	}
	return e.Stack
}

// GatewayVars returns the settings a gateway under test needs beyond the
// stack's URL and keys: on a real stack the session tokens SessionToken
// mints are HS256 over the legacy secret, so the gateway's OAuth path must
// be told to accept them; the local stack's tokens are ES256 from its JWKS.
func (e *Env) GatewayVars() map[string]string {
	if e.Stack != nil || e.legacySecret == "" {
		return map[string]string{}
	}
	return map[string]string{"GATEWAY_OAUTH_LEGACY_JWT_SECRET": e.legacySecret}
}
