package dbsetup

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// TestRevokedTokenIDsClosedToAPIRoles checks the hole the gateway migration
// closes: anon and authenticated can neither read nor write revocations.
func TestRevokedTokenIDsClosedToAPIRoles(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	ctx := context.Background()
	statements := []string{
		`SELECT * FROM public.revoked_token_ids`,
		`INSERT INTO public.revoked_token_ids (token_id) VALUES ('attacker')`,
		`UPDATE public.revoked_token_ids SET revoked_at = now()`,
		`DELETE FROM public.revoked_token_ids`,
		`TRUNCATE public.revoked_token_ids`,
	}
	for _, p := range []persona{anon, alice, sam, nora} {
		for _, stmt := range statements {
			err := asPersona(ctx, conn, p, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, stmt)
				return err
			})
			if !isDenied(err) {
				t.Errorf("%s as %s: err = %v, want permission denied (42501)", stmt, p.name, err)
			}
		}
	}
	// service_role keeps full access (the auth module and mcp-tokens use it).
	err := asPersona(ctx, conn, service, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO public.revoked_token_ids (token_id) VALUES ('by-service')`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM public.revoked_token_ids WHERE token_id = 'by-service'`)
		return err
	})
	if err != nil {
		t.Errorf("service_role insert/delete: %v", err)
	}
}

// TestAPITokenRevocation exercises api_tokens as mcp-tokens does: as the
// owning user, under RLS.
func TestAPITokenRevocation(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	ctx := context.Background()
	const aliceActive = "40000000-0000-4000-8000-000000000001"

	t.Run("owner revokes, trigger records the jti", func(t *testing.T) {
		var got []string
		err := asPersona(ctx, conn, alice, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE public.api_tokens SET revoked_at = '2026-02-01T00:00:00Z' WHERE id = $1`, aliceActive)
			if err != nil {
				return err
			}
			if tag.RowsAffected() != 1 {
				t.Errorf("revoke affected %d rows, want 1", tag.RowsAffected())
			}
			if _, err := tx.Exec(ctx, `RESET ROLE`); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `SELECT token_id || ' ' || to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') FROM public.revoked_token_ids ORDER BY token_id`)
			if err != nil {
				return err
			}
			got, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"seed-jti-alice-active 2026-02-01T00:00:00", "seed-jti-alice-revoked 2026-01-20T10:00:00"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("revoked_token_ids after revoke (-want +got):\n%s", diff)
		}
	})

	t.Run("revoking when the jti is already listed does not fail", func(t *testing.T) {
		err := asPersona(ctx, conn, alice, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `RESET ROLE`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO public.revoked_token_ids (token_id) VALUES ('seed-jti-alice-active')`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `SET LOCAL ROLE authenticated`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE public.api_tokens SET revoked_at = now() WHERE id = $1`, aliceActive)
			return err
		})
		if err != nil {
			t.Errorf("revoke with existing revocation row: %v", err)
		}
	})

	t.Run("explicit insert after the trigger is a unique violation", func(t *testing.T) {
		// mcp-tokens inserts the revocation itself (as service_role) after the
		// UPDATE and ignores this error; pin the SQLSTATE it must ignore.
		err := asPersona(ctx, conn, alice, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE public.api_tokens SET revoked_at = now() WHERE id = $1`, aliceActive); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `SET LOCAL ROLE service_role`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO public.revoked_token_ids (token_id) VALUES ('seed-jti-alice-active')`)
			return err
		})
		if got := sqlState(err); got != "23505" {
			t.Errorf("SQLSTATE = %q, want 23505 (unique_violation)", got)
		}
	})

	tests := []struct {
		name   string
		as     persona
		stmt   string
		want   string // SQLSTATE, "" for success
		rows   int64
		reason string
	}{
		{"other user cannot revoke", sam, `UPDATE public.api_tokens SET revoked_at = now() WHERE id = '` + aliceActive + `'`, "", 0, "RLS hides the row"},
		{"owner cannot change scopes", alice, `UPDATE public.api_tokens SET scopes = ARRAY['mcp:write'] WHERE id = '` + aliceActive + `'`, "P0001", 0, "prevent_token_mutation"},
		{"owner cannot extend expiry", alice, `UPDATE public.api_tokens SET expires_at = expires_at + interval '1 day' WHERE id = '` + aliceActive + `'`, "P0001", 0, "prevent_token_mutation"},
		{"owner may rename", alice, `UPDATE public.api_tokens SET name = 'renamed' WHERE id = '` + aliceActive + `'`, "", 1, ""},
		{"owner cannot delete", alice, `DELETE FROM public.api_tokens WHERE id = '` + aliceActive + `'`, "42501", 0, "no DELETE privilege"},
		{"authenticated cannot truncate", alice, `TRUNCATE public.api_tokens`, "42501", 0, "TRUNCATE would bypass RLS"},
		{"user creates own token", sam, `INSERT INTO public.api_tokens (user_id, name, token_id, expires_at) VALUES ('` + sam.sub + `', 't', 'new-jti', '2099-01-01')`, "", 1, ""},
		{"user cannot create a token for another user", sam, `INSERT INTO public.api_tokens (user_id, name, token_id, expires_at) VALUES ('` + alice.sub + `', 't', 'new-jti', '2099-01-01')`, "42501", 0, "RLS WITH CHECK"},
		{"unknown scope rejected", alice, `INSERT INTO public.api_tokens (user_id, name, token_id, scopes, expires_at) VALUES ('` + alice.sub + `', 't', 'new-jti', ARRAY['admin'], '2099-01-01')`, "23514", 0, "valid_scopes"},
		{"empty scopes accepted", alice, `INSERT INTO public.api_tokens (user_id, name, token_id, scopes, expires_at) VALUES ('` + alice.sub + `', 't', 'new-jti', ARRAY[]::text[], '2099-01-01')`, "", 1, ""},
		{"anon cannot read", anon, `SELECT * FROM public.api_tokens`, "42501", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows int64
			err := asPersona(ctx, conn, tt.as, func(tx pgx.Tx) error {
				tag, err := tx.Exec(ctx, tt.stmt)
				rows = tag.RowsAffected()
				return err
			})
			if got := sqlState(err); got != tt.want {
				t.Fatalf("SQLSTATE = %q (err %v), want %q (%s)", got, err, tt.want, tt.reason)
			}
			if err == nil && rows != tt.rows {
				t.Errorf("rows affected = %d, want %d (%s)", rows, tt.rows, tt.reason)
			}
		})
	}
}

// TestOAuthTablesClosedToAPIRoles: the authorization server's tables
// (codes and refresh tokens by hash, grant markers) are readable and
// writable by the service role only, even for the row's own user.
func TestOAuthTablesClosedToAPIRoles(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	ctx := context.Background()
	for _, table := range []string{"mcp_oauth_grants", "mcp_oauth_codes", "mcp_oauth_refresh_tokens"} {
		for _, p := range []persona{anon, alice, sam, nora} {
			for _, stmt := range []string{
				`SELECT * FROM public.` + table,
				`DELETE FROM public.` + table,
				`UPDATE public.` + table + ` SET created_at = now()`,
				`TRUNCATE public.` + table,
			} {
				err := asPersona(ctx, conn, p, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, stmt)
					return err
				})
				if !isDenied(err) {
					t.Errorf("%s as %s: err = %v, want permission denied (42501)", stmt, p.name, err)
				}
			}
		}
	}
	// The service role writes a whole grant: api_tokens row, marker,
	// code and refresh token; deleting the api_tokens row cascades.
	err := asPersona(ctx, conn, service, func(tx pgx.Tx) error {
		for _, stmt := range []string{
			`INSERT INTO public.api_tokens (user_id, name, token_id, scopes, expires_at)
			 VALUES ('10000000-0000-4000-8000-000000000001', 'Claude — connected with OAuth', 'oauth-grant-1', ARRAY['mcp:read'], now() + interval '30 days')`,
			`INSERT INTO public.mcp_oauth_grants (token_id, client_id, client_name, redirect_uri) VALUES ('oauth-grant-1', 'mcpc_x', 'Claude', 'https://claude.ai/cb')`,
			`INSERT INTO public.mcp_oauth_codes (code_hash, token_id, client_hash, redirect_uri, code_challenge, user_id, scopes, expires_at)
			 VALUES ('h1', 'oauth-grant-1', 'c', 'https://claude.ai/cb', 'ch', '10000000-0000-4000-8000-000000000001', ARRAY['mcp:read'], now())`,
			`INSERT INTO public.mcp_oauth_refresh_tokens (token_hash, token_id, user_id, client_hash, scopes, expires_at)
			 VALUES ('r1', 'oauth-grant-1', '10000000-0000-4000-8000-000000000001', 'c', ARRAY['mcp:read'], now())`,
			`DELETE FROM public.api_tokens WHERE token_id = 'oauth-grant-1'`,
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		var left int
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM public.mcp_oauth_grants) + (SELECT count(*) FROM public.mcp_oauth_refresh_tokens)`).Scan(&left); err != nil {
			return err
		}
		if left != 0 {
			t.Errorf("%d grant rows survived the api_tokens delete", left)
		}
		return nil
	})
	if err != nil {
		t.Errorf("service_role: %v", err)
	}
}
