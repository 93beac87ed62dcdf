package dbsetup

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/goldenfile"
)

// catalogQueries describe the schema objects the gateway and its tests rely
// on, one text line per object, in a stable order. The snapshot pins names
// that PostgREST embeds depend on (foreign keys), types, nullability,
// defaults, policies, grants and function security attributes.
var catalogQueries = []struct{ section, sql string }{
	{"types", `
SELECT t.typname || ' = ' || string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder)
  FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
  JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname = 'public'
 GROUP BY t.typname ORDER BY t.typname`},
	{"columns", `
SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
       || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
       || CASE a.attidentity WHEN 'd' THEN ' IDENTITY' WHEN 'a' THEN ' ALWAYS IDENTITY' ELSE '' END
       || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE n.nspname IN ('public', 'auth') AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY n.nspname DESC, c.relname, a.attnum`},
	{"constraints", `
SELECT c.conrelid::regclass::text || ' ' || c.conname || ': ' || pg_get_constraintdef(c.oid)
  FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
 WHERE n.nspname IN ('public', 'auth') AND c.contype IN ('p', 'u', 'f', 'c')
 ORDER BY 1`},
	{"indexes", `
SELECT indexdef FROM pg_indexes WHERE schemaname IN ('public', 'auth') ORDER BY tablename, indexname, schemaname`},
	{"triggers", `
SELECT tgrelid::regclass::text || ' ' || tgname || ': ' || pg_get_triggerdef(oid)
  FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`},
	{"functions", `
SELECT p.oid::regprocedure::text
       || CASE WHEN p.prosecdef THEN ' SECURITY DEFINER' ELSE '' END
       || CASE p.provolatile WHEN 's' THEN ' STABLE' WHEN 'i' THEN ' IMMUTABLE' ELSE '' END
       || coalesce(' ' || array_to_string(p.proconfig, ' '), '')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname IN ('public', 'auth') ORDER BY 1`},
	{"rls", `
SELECT c.oid::regclass::text || CASE WHEN c.relrowsecurity THEN ' RLS' ELSE ' no RLS' END
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1`},
	{"policies", `
SELECT tablename || ' "' || policyname || '" ' || cmd || ' TO ' || array_to_string(roles, ',')
       || coalesce(E'\n    USING ' || qual, '') || coalesce(E'\n    CHECK ' || with_check, '')
  FROM pg_policies WHERE schemaname = 'public' ORDER BY tablename, policyname`},
	{"grants", `
SELECT table_name || ' ' || grantee || ': ' || string_agg(privilege_type, ',' ORDER BY privilege_type)
  FROM information_schema.role_table_grants
 WHERE table_schema IN ('public', 'auth') AND grantee IN ('anon', 'authenticated', 'service_role')
 GROUP BY table_schema, table_name, grantee ORDER BY table_schema, table_name, grantee`},
	{"roles", `
SELECT rolname || CASE WHEN rolcanlogin THEN ' LOGIN' ELSE ' NOLOGIN' END
       || CASE WHEN rolinherit THEN ' INHERIT' ELSE ' NOINHERIT' END
       || CASE WHEN rolbypassrls THEN ' BYPASSRLS' ELSE '' END
       || coalesce(' member of ' || (SELECT string_agg(g.rolname, ',' ORDER BY g.rolname)
                                       FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                                      WHERE m.member = r.oid), '')
  FROM pg_roles r
 WHERE rolname IN ('anon', 'authenticated', 'service_role', 'authenticator', 'supabase_auth_admin')
 ORDER BY rolname`},
}

// catalog renders the snapshot of the database at url.
func catalog(t *testing.T, url string) string {
	t.Helper()
	conn := connect(t, url)
	ctx := context.Background()
	var b strings.Builder
	for _, q := range catalogQueries {
		rows, err := conn.Query(ctx, q.sql)
		if err != nil {
			t.Fatalf("catalog %s: %v", q.section, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("catalog %s: %v", q.section, err)
		}
		b.WriteString("## " + q.section + "\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkGolden compares got with testdata/name (goldenfile, -update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got))
}

// TestCatalogGolden pins the full schema after ApplyAll.
func TestCatalogGolden(t *testing.T) {
	checkGolden(t, "catalog_all.golden", catalog(t, seededDatabase(t)))
}

// TestMigrationsOnEmptyDatabase applies only bootstrap and migrations, twice,
// and pins the resulting schema.
func TestMigrationsOnEmptyDatabase(t *testing.T) {
	url := newDatabase(t)
	ctx := context.Background()
	if err := ApplyBootstrap(ctx, url); err != nil {
		t.Fatal(err)
	}
	if err := ApplyMigrations(ctx, url); err != nil {
		t.Fatalf("first application: %v", err)
	}
	first := catalog(t, url)
	if err := ApplyBootstrap(ctx, url); err != nil {
		t.Fatalf("second bootstrap: %v", err)
	}
	if err := ApplyMigrations(ctx, url); err != nil {
		t.Fatalf("second application: %v", err)
	}
	if diff := cmp.Diff(first, catalog(t, url)); diff != "" {
		t.Errorf("second application changed the schema (-first +second):\n%s", diff)
	}
	checkGolden(t, "catalog_migrations_only.golden", first)
}

// TestReapplyIsNoOp re-runs every idempotent step on a fully set-up database:
// nothing may change, in particular the fixtures must not re-open
// revoked_token_ids after the migration hardened it.
func TestReapplyIsNoOp(t *testing.T) {
	url := newDatabase(t)
	ctx := context.Background()
	if err := ApplyAll(ctx, url); err != nil {
		t.Fatal(err)
	}
	before := catalog(t, url)
	for name, step := range map[string]func(context.Context, string) error{
		"bootstrap": ApplyBootstrap, "fixtures": ApplyFixtures, "migrations": ApplyMigrations,
	} {
		if err := step(ctx, url); err != nil {
			t.Fatalf("re-applying %s: %v", name, err)
		}
	}
	if diff := cmp.Diff(before, catalog(t, url)); diff != "" {
		t.Errorf("re-application changed the schema (-before +after):\n%s", diff)
	}
}

// TestMigrationOnOlderPawtograderSchema applies the migration on top of the
// earliest published form of Pawtograder's token tables (no last_used_at,
// narrower scopes, a DELETE policy, open grants) holding data.
func TestMigrationOnOlderPawtograderSchema(t *testing.T) {
	url := newDatabase(t)
	ctx := context.Background()
	if err := ApplyBootstrap(ctx, url); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	const older = `
CREATE TABLE public.api_tokens (
    id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id UUID NOT NULL REFERENCES auth.users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    token_id TEXT NOT NULL UNIQUE,
    scopes TEXT[] NOT NULL DEFAULT ARRAY['mcp:read'],
    expires_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    CONSTRAINT valid_scopes CHECK (scopes <@ ARRAY['mcp:read', 'mcp:write']::TEXT[])
);
CREATE TABLE public.revoked_token_ids (token_id TEXT PRIMARY KEY, revoked_at TIMESTAMPTZ NOT NULL DEFAULT NOW());
ALTER TABLE public.api_tokens ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users can delete own tokens" ON public.api_tokens FOR DELETE USING (auth.uid() = user_id);
GRANT ALL ON public.api_tokens, public.revoked_token_ids TO anon, authenticated;
INSERT INTO auth.users (id, email) VALUES ('10000000-0000-4000-8000-000000000001', 'a@example.edu');
INSERT INTO public.api_tokens (user_id, name, token_id, expires_at)
VALUES ('10000000-0000-4000-8000-000000000001', 'kept', 'old-jti', '2099-01-01');
INSERT INTO public.revoked_token_ids (token_id) VALUES ('old-revoked');`
	if _, err := conn.Exec(ctx, older); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := ApplyMigrations(ctx, url); err != nil {
			t.Fatalf("application %d: %v", i+1, err)
		}
	}
	var got struct {
		tokens, revoked, deletePolicies int
		hasLastUsed, revokedRLS         bool
		anonPrivs                       string
	}
	err := conn.QueryRow(ctx, `
SELECT (SELECT count(*) FROM public.api_tokens WHERE token_id = 'old-jti'),
       (SELECT count(*) FROM public.revoked_token_ids WHERE token_id = 'old-revoked'),
       (SELECT count(*) FROM pg_policies WHERE tablename = 'api_tokens' AND cmd = 'DELETE'),
       EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'api_tokens' AND column_name = 'last_used_at'),
       (SELECT relrowsecurity FROM pg_class WHERE oid = 'public.revoked_token_ids'::regclass),
       coalesce((SELECT string_agg(table_name || ':' || privilege_type, ',')
                   FROM information_schema.role_table_grants
                  WHERE grantee IN ('anon') AND table_name IN ('api_tokens', 'revoked_token_ids')), '')`).
		Scan(&got.tokens, &got.revoked, &got.deletePolicies, &got.hasLastUsed, &got.revokedRLS, &got.anonPrivs)
	if err != nil {
		t.Fatal(err)
	}
	if got.tokens != 1 || got.revoked != 1 || got.deletePolicies != 0 || !got.hasLastUsed || !got.revokedRLS || got.anonPrivs != "" {
		t.Errorf("after migration: %+v; want data kept (1, 1), no DELETE policy, last_used_at added, RLS on revoked_token_ids, no anon privileges", got)
	}
}
