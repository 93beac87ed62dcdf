package dbsetup

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/supabase/devstack/pgcluster"
)

// seededTemplate is the database, one per cluster, that CreateSeededDatabase
// clones. Nobody may stay connected to it (CREATE DATABASE ... TEMPLATE
// requires that), so it is used for nothing else.
const seededTemplate = "dbsetup_seeded_template"

// templateMu serialises template creation within this process; the
// existence check below makes creation once-per-cluster.
var templateMu sync.Mutex

// CreateSeededDatabase creates database name in c with everything applied
// (as ApplyAll) and returns its superuser URL. The first call on a cluster
// builds a template database; later calls clone it with CREATE DATABASE
// ... TEMPLATE, which takes a few tens of milliseconds instead of re-running
// the scripts, so tests can afford a fresh seeded database each.
func CreateSeededDatabase(ctx context.Context, c *pgcluster.Cluster, name string) (string, error) {
	if err := ensureTemplate(ctx, c); err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, c.SuperuserURL("postgres"))
	if err != nil {
		return "", fmt.Errorf("dbsetup: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	stmt := fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", pgx.Identifier{name}.Sanitize(), seededTemplate)
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return "", fmt.Errorf("dbsetup: create seeded database %q: %w", name, err)
	}
	return c.SuperuserURL(name), nil
}

func ensureTemplate(ctx context.Context, c *pgcluster.Cluster) error {
	templateMu.Lock()
	defer templateMu.Unlock()
	conn, err := pgx.Connect(ctx, c.SuperuserURL("postgres"))
	if err != nil {
		return fmt.Errorf("dbsetup: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// The template is complete once marked IS_TEMPLATE, which happens only
	// after every script succeeded; a half-built one is rebuilt.
	var complete bool
	err = conn.QueryRow(ctx, `SELECT datistemplate FROM pg_database WHERE datname = $1`, seededTemplate).Scan(&complete)
	switch {
	case err == nil && complete:
		return nil
	case err == nil:
		if _, err := conn.Exec(ctx, "DROP DATABASE "+seededTemplate); err != nil {
			return fmt.Errorf("dbsetup: drop incomplete template: %w", err)
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("dbsetup: look up template: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+seededTemplate); err != nil {
		return fmt.Errorf("dbsetup: create template: %w", err)
	}
	if err := ApplyAll(ctx, c.SuperuserURL(seededTemplate)); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+seededTemplate+" WITH IS_TEMPLATE true"); err != nil {
		return fmt.Errorf("dbsetup: mark template: %w", err)
	}
	return nil
}
