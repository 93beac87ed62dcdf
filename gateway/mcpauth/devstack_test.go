package mcpauth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// The package's Supabase stack (gatewaytest: a local stack, or the real
// one named by GATEWAY_TEST_SUPABASE_URL) is started on first use, so
// unit-only runs (-run Matrix) never pay for it.
var stack gatewaytest.Lazy

func TestMain(m *testing.M) { gatewaytest.MainLazy(m, &stack) }

func sharedStack(t *testing.T) *gatewaytest.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the Supabase stack (PostgreSQL); skipped with -short")
	}
	return stack.Env(t)
}

// Seeded users (supabase/fixtures/SEED.md).
const (
	alice = gatewaytest.Alice // instructor, class 1
	gary  = gatewaytest.Gary  // grader, class 1
	sam   = gatewaytest.Sam   // student
	dale  = gatewaytest.Dale  // disabled grader only
	bea   = gatewaytest.Bea   // instructor, class 2
	tara  = gatewaytest.Tara  // grader B, student A
	nora  = gatewaytest.Nora  // no enrolment
)

func mint(t *testing.T, sub, jti string, scopes ...string) string {
	t.Helper()
	if scopes == nil {
		scopes = []string{ScopeMCPRead}
	}
	tok, err := MintAPIToken(testSecret, sub, scopes, jti, 1, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestAuthenticateDevstack runs the service-role rows of A7 against real
// PostgREST semantics, Postgres and the seed.
func TestAuthenticateDevstack(t *testing.T) {
	s := sharedStack(t)
	tests := []struct {
		name, sub, jti   string
		serviceKey       string // "" = the stack's
		wantStatus       int
		wantMsg          string
		wantMsgHasPrefix bool
	}{
		{name: "instructor", sub: alice, jti: "it-alice-1", wantStatus: 200},
		{name: "grader", sub: gary, jti: "it-gary-1", wantStatus: 200},
		{name: "instructor in class B only", sub: bea, jti: "it-bea-1", wantStatus: 200},
		{name: "grader in B, student in A", sub: tara, jti: "it-tara-1", wantStatus: 200},
		{name: "student only", sub: sam, jti: "it-sam-1", wantStatus: 403, wantMsg: MsgNotStaff},
		{name: "disabled grader role only", sub: dale, jti: "it-dale-1", wantStatus: 403, wantMsg: MsgNotStaff},
		{name: "no enrolment", sub: nora, jti: "it-nora-1", wantStatus: 403, wantMsg: MsgNotStaff},
		{name: "unknown user", sub: "10000000-0000-4000-8000-0000000000ff", jti: "it-x-1", wantStatus: 403, wantMsg: MsgNotStaff},
		{name: "revoked (seed)", sub: alice, jti: "seed-jti-alice-revoked", wantStatus: 401, wantMsg: MsgRevoked},
		{name: "revoked beats not staff", sub: sam, jti: "seed-jti-alice-revoked", wantStatus: 401, wantMsg: MsgRevoked},
		{name: "revoked row in api_tokens is not consulted", sub: gary, jti: "seed-jti-gary-expired", wantStatus: 200},
		{name: "sub not a uuid: role query fails", sub: "not-a-uuid", jti: "it-bad-sub", wantStatus: 500, wantMsg: MsgRoleLookupFailed},
		{name: "sub in braces, upper case: PostgreSQL reads it", sub: "{" + strings.ToUpper(alice) + "}", jti: "it-alice-braces", wantStatus: 200},
		{name: "sub without hyphens: PostgreSQL reads it", sub: strings.ReplaceAll(sam, "-", ""), jti: "it-sam-plain", wantStatus: 403, wantMsg: MsgNotStaff},
		{name: "sub with a hyphen out of place: role query fails", sub: alice[:7] + "-" + alice[7:], jti: "it-alice-hyphen", wantStatus: 500, wantMsg: MsgRoleLookupFailed},
		{name: "sub not a uuid, token revoked", sub: "not-a-uuid", jti: "seed-jti-alice-revoked", wantStatus: 401, wantMsg: MsgRevoked},
		{name: "invalid service key", sub: alice, jti: "it-alice-2", serviceKey: "not-the-key", wantStatus: 503, wantMsg: MsgRevocationPrefix + "Invalid API key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := s.ServiceRoleKey
			if tc.serviceKey != "" {
				key = tc.serviceKey
			}
			a, err := New(Options{RestURL: s.RestURL, ServiceRoleKey: key, MCPJWTSecret: testSecret})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			p, err := a.Authenticate(context.Background(), bearer(mint(t, tc.sub, tc.jti)))
			if tc.wantStatus == 200 {
				if err != nil {
					t.Fatalf("Authenticate = %v (cause %v)", err, errors.Unwrap(err))
				}
				if p.UserID != tc.sub || p.TokenID != tc.jti {
					t.Errorf("principal = %+v", p)
				}
				return
			}
			assertAPIError(t, err, tc.wantStatus, tc.wantMsg)
		})
	}
}

// TestPGUUIDAgreesWithPostgreSQL: pgUUID accepts exactly the texts
// PostgreSQL's uuid input accepts, so a sub is asked about exactly when
// the original's role query could have run.
func TestPGUUIDAgreesWithPostgreSQL(t *testing.T) {
	s := sharedStack(t)
	s.RequireDatabase(t)
	const u = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	plain := strings.ReplaceAll(u, "-", "")
	inputs := []string{
		u, strings.ToUpper(u), "{" + u + "}", plain, "{" + plain + "}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
		"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}", "", "{}", "{" + u, u + "}", "(" + u + ")",
		u + "-", "-" + u, u[:35], u + "0", u + " ", " " + u, u + "\n", "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
		"a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "not-a-uuid",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1-", "{{" + u + "}}", "a0eebc99_9c0b_4ef8_bb6d_6bb9bd380a11",
		"ａ0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
	}
	for i := range plain { // a hyphen after every digit in turn
		inputs = append(inputs, plain[:i]+"-"+plain[i:])
	}
	db := s.DB(t)
	for _, in := range inputs {
		var pg bool
		err := db.QueryRow(context.Background(), `SELECT $1::text::uuid IS NOT NULL`, in).Scan(&pg)
		if err != nil && db.IsClosed() { // a refused text is an error; the connection stays
			t.Fatal(err)
		}
		if got := pgUUID.MatchString(in); got != pg {
			t.Errorf("pgUUID(%q) = %v, PostgreSQL accepts it: %v", in, got, pg)
		}
	}
}

// TestLastUsedDevstack: the PATCH reaches the row with the service role.
func TestLastUsedDevstack(t *testing.T) {
	s := sharedStack(t)
	s.RequireDatabase(t) // the row is read back with SQL
	at := time.Date(2026, 11, 29, 12, 34, 56, 789_000_000, time.UTC)
	a, err := New(Options{RestURL: s.RestURL, ServiceRoleKey: s.ServiceRoleKey, MCPJWTSecret: testSecret, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	a.TouchLastUsed(&Principal{UserID: alice, TokenID: "seed-jti-alice-active", Kind: KindAPIToken})
	a.Close() // flushes
	var got time.Time
	queryRow(t, s, `SELECT last_used_at FROM public.api_tokens WHERE token_id = 'seed-jti-alice-active'`, &got)
	if !got.Equal(at) {
		t.Errorf("last_used_at = %v, want %v", got, at)
	}
}

// queryRow runs sql as the superuser; it skips t on a real stack without
// a database URL.
func queryRow(t *testing.T, s *gatewaytest.Env, sql string, dest ...any) {
	t.Helper()
	if err := s.DB(t).QueryRow(context.Background(), sql).Scan(dest...); err != nil {
		t.Fatal(err)
	}
}

// TestAuthClientDevstack: GetUser against the stack's Auth API.
func TestAuthClientDevstack(t *testing.T) {
	s := sharedStack(t)
	ctx := context.Background()
	tok := s.SessionToken(t, alice)
	c := &AuthClient{AuthURL: s.AuthURL, AnonKey: s.AnonKey}
	u, err := c.GetUser(ctx, tok)
	if err != nil {
		t.Fatalf("GetUser = %v (cause %v)", err, errors.Unwrap(err))
	}
	if u.ID != alice || u.Email != "alice.instructor@example.edu" {
		t.Errorf("user = %+v", u)
	}
	_, err = c.GetUser(ctx, "not-a-jwt")
	assertAPIError(t, err, 401, MsgUnauthorized)
}
