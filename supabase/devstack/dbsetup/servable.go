package dbsetup

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// servableChecks are the Supabase and gateway pieces the dev stack needs in
// a database it serves but did not create (devstack.Options.DatabaseURL):
// each is a description and a query that is true when the piece is there.
var servableChecks = []struct{ what, query string }{
	{"role anon", `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon')`},
	{"role authenticated", `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated')`},
	{"role service_role", `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role')`},
	{"membership of the connecting user in anon, authenticated and service_role (SET ROLE)",
		`SELECT coalesce(bool_and(pg_has_role(current_user, r, 'MEMBER')), true)
		   FROM unnest(ARRAY['anon', 'authenticated', 'service_role']) AS r
		  WHERE EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r)`},
	{"table auth.users", `SELECT to_regclass('auth.users') IS NOT NULL`},
	{"table auth.sessions (id, user_id)", `SELECT count(*) = 2 FROM information_schema.columns
		WHERE table_schema = 'auth' AND table_name = 'sessions' AND column_name IN ('id', 'user_id')`},
	{"function auth.uid()", `SELECT to_regprocedure('auth.uid()') IS NOT NULL`},
	{"the gateway's migration (public.api_tokens.last_used_at, public.revoked_token_ids)",
		`SELECT to_regclass('public.revoked_token_ids') IS NOT NULL AND EXISTS (
		   SELECT 1 FROM information_schema.columns
		    WHERE table_schema = 'public' AND table_name = 'api_tokens' AND column_name = 'last_used_at')`},
	{"the gateway's OAuth migration (public.mcp_oauth_grants, public.mcp_oauth_codes, public.mcp_oauth_refresh_tokens)",
		`SELECT to_regclass('public.mcp_oauth_grants') IS NOT NULL AND to_regclass('public.mcp_oauth_codes') IS NOT NULL
		    AND to_regclass('public.mcp_oauth_refresh_tokens') IS NOT NULL`},
}

// CheckServable reports, in one error naming every missing piece, whether
// the database at databaseURL has what the dev stack needs to serve it
// without creating anything: the API roles anon, authenticated and
// service_role (and the connecting user's membership in them, for SET
// ROLE), auth.users, auth.sessions and auth.uid(), and the gateway's
// migrations. Pawtograder's own tables are not checked: a tool over a
// missing table fails as it would in production.
func CheckServable(ctx context.Context, databaseURL string) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("dbsetup: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var missing []string
	for _, c := range servableChecks {
		var ok bool
		if err := conn.QueryRow(ctx, c.query).Scan(&ok); err != nil {
			return fmt.Errorf("dbsetup: checking %s: %w", c.what, err)
		}
		if !ok {
			missing = append(missing, c.what)
		}
	}
	if len(missing) > 0 {
		return errors.New("dbsetup: the database lacks " + strings.Join(missing, "; "))
	}
	return nil
}
