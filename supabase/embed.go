// Package supabase embeds the SQL that sets up the gateway's database: its own
// migrations (migrations/), and, for tests and demos, a Supabase bootstrap, a
// Pawtograder-compatible fixture schema and a deterministic seed (fixtures/).
//
// File roles are decided by name so that adding a file needs no Go change:
//
//   - migrations/*.sql — the gateway's migrations, applied in filename order.
//   - fixtures/00_*.sql — Supabase bootstrap (roles, auth schema).
//   - fixtures/*_seed.sql — deterministic seed data (see fixtures/SEED.md).
//   - fixtures/*.sql (all others) — the Pawtograder fixture schema: tables
//     (10_schema.sql), Pawtograder's triggers that shape tool output
//     (15_triggers.sql), grants and policies (20_rls.sql).
//
// fixtures/real_catalogue.json (not embedded) describes the real schema's
// tables for the test that keeps the fixture schema true to it.
//
// Package dbsetup applies these files to a database.
package supabase

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed migrations/*.sql fixtures/*.sql
var sqlFiles embed.FS

// File is one embedded SQL script.
type File struct {
	// Name is the path inside this directory, e.g. "fixtures/90_seed.sql".
	Name string
	// SQL is the script text; it may contain several statements.
	SQL string
}

// Migrations returns the gateway's migrations in application order.
func Migrations() []File { return load("migrations", func(string) bool { return true }) }

// Bootstrap returns the Supabase bootstrap scripts (roles, auth schema and
// helpers) in application order.
func Bootstrap() []File {
	return load("fixtures", func(base string) bool { return strings.HasPrefix(base, "00_") })
}

// Fixtures returns the Pawtograder-compatible fixture schema scripts in
// application order (without bootstrap and seed).
func Fixtures() []File {
	return load("fixtures", func(base string) bool {
		return !strings.HasPrefix(base, "00_") && !strings.HasSuffix(base, "_seed.sql")
	})
}

// Seed returns the deterministic seed scripts in application order.
func Seed() []File {
	return load("fixtures", func(base string) bool { return strings.HasSuffix(base, "_seed.sql") })
}

// load reads dir's .sql files accepted by keep, sorted by name. The embedded
// tree is fixed at build time, so a read error is a build defect and panics.
func load(dir string, keep func(base string) bool) []File {
	entries, err := fs.ReadDir(sqlFiles, dir)
	if err != nil {
		panic("supabase: embedded dir " + dir + ": " + err.Error())
	}
	var out []File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") || !keep(e.Name()) {
			continue
		}
		name := path.Join(dir, e.Name())
		b, err := sqlFiles.ReadFile(name)
		if err != nil {
			panic("supabase: embedded file " + name + ": " + err.Error())
		}
		out = append(out, File{Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
