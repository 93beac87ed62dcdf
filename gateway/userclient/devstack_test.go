package userclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// The package's Supabase stack (gatewaytest: a local stack, or the real
// one named by GATEWAY_TEST_SUPABASE_URL) is started on first use and
// shared by the package.
var stack gatewaytest.Lazy

func TestMain(m *testing.M) { gatewaytest.MainLazy(m, &stack) }

func sharedStack(t *testing.T) *gatewaytest.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the Supabase stack (PostgreSQL); skipped with -short")
	}
	return stack.Env(t)
}

const (
	alice = gatewaytest.Alice
	sam   = gatewaytest.Sam
	dale  = gatewaytest.Dale
	nora  = gatewaytest.Nora
)

func ids(t *testing.T, raw json.RawMessage, key string) []any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	out := []any{}
	for _, r := range rows {
		out = append(out, r[key])
	}
	return out
}

// TestForUserRLSDevstack: the stack's REST API accepts the minted ES256
// JWT through its JWKS, and RLS then filters by that user. api_tokens is
// read among the seed's tokens only: on a real stack, other packages'
// tests add tokens of their own.
func TestForUserRLSDevstack(t *testing.T) {
	s := sharedStack(t)
	f := userclient.NewFactory(userclient.Options{RestURL: s.RestURL, AnonKey: s.AnonKey, SigningJWK: s.SigningJWK})
	ctx := context.Background()
	tests := []struct {
		name, user, table, column string
		like                      string // PostgREST like pattern on column, if any
		want                      []any
	}{
		// user_roles: own rows, or every row of a class where one is staff.
		{"instructor sees class 1 roles", alice, "user_roles", "id", "", []any{1.0, 2.0, 3.0, 4.0, 5.0, 9.0}},
		{"student sees own role", sam, "user_roles", "id", "", []any{3.0}},
		{"disabled grader sees own (disabled) row", dale, "user_roles", "id", "", []any{5.0}},
		{"no enrolment sees nothing", nora, "user_roles", "id", "", []any{}},
		// api_tokens: own rows only.
		{"alice's tokens", alice, "api_tokens", "token_id", "seed-*", []any{"seed-jti-alice-active", "seed-jti-alice-revoked"}},
		{"sam's tokens", sam, "api_tokens", "token_id", "seed-*", []any{"seed-jti-sam-student"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := f.ForUser(ctx, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			q := c.From(tc.table).Select(tc.column).Order(tc.column, true)
			if tc.like != "" {
				q = q.Filter(tc.column, "like", tc.like)
			}
			raw, err := q.Rows(ctx)
			if err != nil {
				t.Fatalf("query: %v", err)
			}
			if diff := cmp.Diff(tc.want, ids(t, raw, tc.column)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUserJWTRefusedDevstack: an expired JWT and one signed by a key the
// stack does not publish are refused with 401, so RLS never sees them.
func TestUserJWTRefusedDevstack(t *testing.T) {
	s := sharedStack(t)
	ctx := context.Background()
	good, err := userclient.ParseSigningJWK(s.SigningJWK)
	if err != nil {
		t.Fatal(err)
	}
	var kid struct {
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal([]byte(s.SigningJWK), &kid); err != nil {
		t.Fatal(err)
	}
	rogue, err := userclient.ParseSigningJWK(userclient.NewTestJWK(t, kid.Kid)) // same kid, other key
	if err != nil {
		t.Fatal(err)
	}
	base, err := postgrest.New(postgrest.Options{BaseURL: s.RestURL, APIKey: s.AnonKey})
	if err != nil {
		t.Fatal(err)
	}
	expired, _ := userclient.MintUserJWT(good, alice, time.Now().Add(-2*time.Minute).UnixMilli())
	forged, _ := userclient.MintUserJWT(rogue, alice, time.Now().UnixMilli())
	for name, tok := range map[string]string{"expired": expired, "unknown key": forged} {
		t.Run(name, func(t *testing.T) {
			_, err := userclient.NewClient(base, alice, tok).From("user_roles").Select("id").Rows(ctx)
			var pe *postgrest.Error
			if !errors.As(err, &pe) || pe.Status != http.StatusUnauthorized {
				t.Fatalf("err = %v, want a 401 from PostgREST", err)
			}
		})
	}
}
