// Package dbsetup applies the embedded SQL of package supabase to a database:
// the Supabase bootstrap, the Pawtograder fixture schema, the gateway's
// migrations and the deterministic seed.
//
// Every step runs as the connecting user, which must be a superuser (the
// bootstrap creates roles); pgcluster's SuperuserURL fits. Each script runs in
// one implicit transaction (the simple query protocol wraps a multi-statement
// string in one), so a failing script leaves nothing half-applied.
//
// Order used by ApplyAll, and why: bootstrap (roles and auth.users must exist
// before anything references them), fixtures (a faithful Pawtograder
// database, including Pawtograder's own api_tokens/revoked_token_ids), then
// the gateway's migrations (which must apply cleanly on top of an existing
// Pawtograder database, as in production, and harden revoked_token_ids), and
// finally the seed.
package dbsetup

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pawtograder/mcp-gateway/supabase"
)

// ApplyError reports a script that failed to apply.
type ApplyError struct {
	// File is the script's name, e.g. "fixtures/90_seed.sql".
	File string
	// Line is the 1-based line of the failing statement's error position, or 0
	// when the server reported no position.
	Line int
	// Err is the underlying error (often a *pgconn.PgError).
	Err error
}

func (e *ApplyError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("dbsetup: %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("dbsetup: %s: %v", e.File, e.Err)
}

func (e *ApplyError) Unwrap() error { return e.Err }

// ApplyAll applies bootstrap, fixtures, migrations and seed, in that order.
// The database must be fresh (the seed inserts fixed ids); the other steps
// are idempotent.
func ApplyAll(ctx context.Context, databaseURL string) error {
	return apply(ctx, databaseURL, supabase.Bootstrap(), supabase.Fixtures(), supabase.Migrations(), supabase.Seed())
}

// ApplyBootstrap creates the Supabase roles (anon, authenticated,
// service_role, authenticator, supabase_auth_admin), schema auth with
// auth.users and auth.uid()/auth.role()/auth.email()/auth.jwt(), and the
// default privileges Supabase grants in schema public. Idempotent.
func ApplyBootstrap(ctx context.Context, databaseURL string) error {
	return apply(ctx, databaseURL, supabase.Bootstrap())
}

// bootstrapMu serialises bootstrap scripts within the process: they write
// cluster-wide catalogs (roles, memberships), where two concurrent
// transactions can fail with "tuple concurrently updated" even though each
// is idempotent. Tests that create databases in parallel hit exactly that.
var bootstrapMu sync.Mutex

// ApplyMigrations applies the gateway's own migrations. Requires the
// bootstrap (auth.users). Idempotent.
func ApplyMigrations(ctx context.Context, databaseURL string) error {
	return apply(ctx, databaseURL, supabase.Migrations())
}

// ApplyFixtures creates the Pawtograder-compatible fixture schema (tables,
// enums, helper functions, triggers, grants and RLS policies). Requires the
// bootstrap. Idempotent.
func ApplyFixtures(ctx context.Context, databaseURL string) error {
	return apply(ctx, databaseURL, supabase.Fixtures())
}

// ApplySeed inserts the deterministic seed described in
// supabase/fixtures/SEED.md. Requires bootstrap and fixtures; not
// idempotent (fixed primary keys).
func ApplySeed(ctx context.Context, databaseURL string) error {
	return apply(ctx, databaseURL, supabase.Seed())
}

// apply runs the given groups of scripts on one connection, in order.
func apply(ctx context.Context, databaseURL string, groups ...[]supabase.File) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("dbsetup: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	bootstrap := supabase.Bootstrap()
	for _, files := range groups {
		for _, f := range files {
			if err := applyOne(ctx, conn, f, isIn(f, bootstrap)); err != nil {
				return err
			}
		}
	}
	return nil
}

func applyOne(ctx context.Context, conn *pgx.Conn, f supabase.File, serialise bool) error {
	if serialise {
		bootstrapMu.Lock()
		defer bootstrapMu.Unlock()
	}
	return ApplyScript(ctx, conn.PgConn(), f)
}

func isIn(f supabase.File, files []supabase.File) bool {
	for _, g := range files {
		if g.Name == f.Name {
			return true
		}
	}
	return false
}

// ApplyScript runs one multi-statement script with the simple query
// protocol (one implicit transaction) and maps a server error position to a
// line of the script.
func ApplyScript(ctx context.Context, conn *pgconn.PgConn, f supabase.File) error {
	_, err := conn.Exec(ctx, f.SQL).ReadAll()
	if err == nil {
		return nil
	}
	line := 0
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Position > 0 {
		line = lineOf(f.SQL, int(pgErr.Position))
	}
	return &ApplyError{File: f.Name, Line: line, Err: err}
}

// lineOf converts PostgreSQL's 1-based character (not byte) position into a
// 1-based line number.
func lineOf(sql string, position int) int {
	line, chars := 1, 0
	for _, r := range sql {
		chars++
		if chars >= position {
			break
		}
		if r == '\n' {
			line++
		}
	}
	return line
}
