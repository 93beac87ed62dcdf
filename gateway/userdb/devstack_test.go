package userdb

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/supabase/devstack"
)

// The local stack is started on first use and shared by the package.
var (
	stackOnce sync.Once
	stack     *devstack.Stack
	stackErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if stack != nil {
		_ = stack.Close()
	}
	os.Exit(code)
}

func sharedStack(t *testing.T) *devstack.Stack {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local stack (PostgreSQL); skipped with -short")
	}
	stackOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		stack, stackErr = devstack.Start(ctx, devstack.Options{})
	})
	if stackErr != nil {
		t.Fatalf("devstack.Start: %v", stackErr)
	}
	return stack
}

const (
	alice = "10000000-0000-4000-8000-000000000001"
	sam   = "10000000-0000-4000-8000-000000000003"
	dale  = "10000000-0000-4000-8000-000000000005"
	nora  = "10000000-0000-4000-8000-000000000009"
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
// JWT through its JWKS, and RLS then filters by that user.
func TestForUserRLSDevstack(t *testing.T) {
	s := sharedStack(t)
	f := NewFactory(Options{RestURL: s.RestURL, AnonKey: s.AnonKey, SigningJWK: s.GatewaySigningJWK})
	ctx := context.Background()
	tests := []struct {
		name, user, table, column string
		want                      []any
	}{
		// user_roles: own rows, or every row of a class where one is staff.
		{"instructor sees class 1 roles", alice, "user_roles", "id", []any{1.0, 2.0, 3.0, 4.0, 5.0, 9.0}},
		{"student sees own role", sam, "user_roles", "id", []any{3.0}},
		{"disabled grader sees own (disabled) row", dale, "user_roles", "id", []any{5.0}},
		{"no enrolment sees nothing", nora, "user_roles", "id", []any{}},
		// api_tokens: own rows only.
		{"alice's tokens", alice, "api_tokens", "token_id", []any{"seed-jti-alice-active", "seed-jti-alice-revoked"}},
		{"sam's tokens", sam, "api_tokens", "token_id", []any{"seed-jti-sam-student"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := f.ForUser(ctx, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := c.From(tc.table).Select(tc.column).Order(tc.column, true).Rows(ctx)
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
	good, err := parseSigningJWK(s.GatewaySigningJWK)
	if err != nil {
		t.Fatal(err)
	}
	k := newTestKey(t)
	rogue, err := parseSigningJWK(k.jwk(devstack.GatewayKeyID)) // same kid, other key
	if err != nil {
		t.Fatal(err)
	}
	base, err := postgrest.New(postgrest.Options{BaseURL: s.RestURL, APIKey: s.AnonKey})
	if err != nil {
		t.Fatal(err)
	}
	expired, _ := mintUserJWT(good, alice, time.Now().Add(-2*time.Minute).UnixMilli())
	forged, _ := mintUserJWT(rogue, alice, time.Now().UnixMilli())
	for name, tok := range map[string]string{"expired": expired, "unknown key": forged} {
		t.Run(name, func(t *testing.T) {
			_, err := NewClient(base, alice, tok).From("user_roles").Select("id").Rows(ctx)
			var pe *postgrest.Error
			if !errors.As(err, &pe) || pe.Status != http.StatusUnauthorized {
				t.Fatalf("err = %v, want a 401 from PostgREST", err)
			}
		})
	}
}
