package dbsetup

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// realCataloguePath is the checked-in description of Pawtograder's real
// catalogue for the tables the fixture schema has.
const realCataloguePath = "../../fixtures/real_catalogue.json"

var (
	realDatabaseURL = flag.String("real-database-url", "",
		"regenerate "+realCataloguePath+" from this database, built by scripts/realschema/build")
	platformCommit = flag.String("platform-commit", "",
		"the github.com/pawtograder/platform commit the -real-database-url database was built from")
)

// catalogue is the shape of the tables a schema has, as PostgreSQL's
// catalogue reports it: per table ("schema.name"), columns (type and NOT
// NULL), foreign keys by constraint name (pg_get_constraintdef) and
// triggers by name (pg_get_triggerdef). PostgREST embed hints name foreign
// keys, and tool output depends on the triggers, so names matter as much as
// shapes.
type catalogue struct {
	Provenance     string                 `json:"provenance,omitempty"`
	PlatformCommit string                 `json:"platform_commit,omitempty"`
	Tables         map[string]*tableShape `json:"tables"`
}

type tableShape struct {
	Columns     map[string]string `json:"columns"`
	ForeignKeys map[string]string `json:"foreign_keys"`
	Triggers    map[string]string `json:"triggers"`
}

// catalogueQuery lists columns, foreign keys and triggers of the tables
// named in $1 ("schema.name").
const catalogueQuery = `
WITH t AS (
  SELECT c.oid, n.nspname || '.' || c.relname AS name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('r', 'p') AND n.nspname || '.' || c.relname = ANY($1)
)
SELECT t.name, 'column', a.attname,
       format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
  FROM t JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT t.name, 'foreign key', con.conname, pg_get_constraintdef(con.oid)
  FROM t JOIN pg_constraint con ON con.conrelid = t.oid AND con.contype = 'f'
UNION ALL
SELECT t.name, 'trigger', tg.tgname, pg_get_triggerdef(tg.oid)
  FROM t JOIN pg_trigger tg ON tg.tgrelid = t.oid AND NOT tg.tgisinternal`

// readCatalogue describes the given tables of the database at url.
func readCatalogue(ctx context.Context, url string, tables []string) (*catalogue, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	// Definitions name types and functions relative to the search path;
	// pin it so both databases print them alike.
	if _, err := conn.Exec(ctx, "SET search_path = public"); err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, catalogueQuery, tables)
	if err != nil {
		return nil, err
	}
	cat := &catalogue{Tables: map[string]*tableShape{}}
	for _, name := range tables {
		cat.Tables[name] = nil
	}
	var table, kind, name, def string
	_, err = pgx.ForEachRow(rows, []any{&table, &kind, &name, &def}, func() error {
		ts := cat.Tables[table]
		if ts == nil {
			ts = &tableShape{Columns: map[string]string{}, ForeignKeys: map[string]string{}, Triggers: map[string]string{}}
			cat.Tables[table] = ts
		}
		switch kind {
		case "column":
			ts.Columns[name] = def
		case "foreign key":
			ts.ForeignKeys[name] = def
		case "trigger":
			ts.Triggers[name] = def
		}
		return nil
	})
	return cat, err
}

// fixtureTables lists the fixture schema's tables (public, plus the auth
// tables the gateway and the fixture's triggers use).
func fixtureTables(ctx context.Context, url string) ([]string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `
SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p') AND (n.nspname = 'public' OR (n.nspname, c.relname) = ('auth', 'users'))
 ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// TestFixtureMatchesRealCatalogue builds the fixture schema and checks that
// every table, column (type and NOT NULL), foreign-key constraint (name and
// definition) and trigger (name and definition: timing, events, level,
// function) it has exists with the same name and shape in Pawtograder's real
// schema, as described by supabase/fixtures/real_catalogue.json. The fixture
// may omit what the real schema has; it may not invent or reshape. With
// -real-database-url (and -platform-commit) the test rewrites that file from
// a database built by scripts/realschema/build instead (docs/testing.md,
// "Against Pawtograder's real schema").
func TestFixtureMatchesRealCatalogue(t *testing.T) {
	ctx := context.Background()
	url := seededDatabase(t)
	tables, err := fixtureTables(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if *realDatabaseURL != "" {
		writeRealCatalogue(t, ctx, tables)
	}
	b, err := os.ReadFile(realCataloguePath)
	if err != nil {
		t.Fatal(err)
	}
	var real catalogue
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatalf("%s: %v", realCataloguePath, err)
	}
	fixture, err := readCatalogue(ctx, url, tables)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, table := range tables {
		fx, re := fixture.Tables[table], real.Tables[table]
		if re == nil {
			problems = append(problems, fmt.Sprintf("%s: no such table in the real schema", table))
			continue
		}
		problems = append(problems, compareShapes(table, "column", fx.Columns, re.Columns)...)
		problems = append(problems, compareShapes(table, "foreign key", fx.ForeignKeys, re.ForeignKeys)...)
		problems = append(problems, compareShapes(table, "trigger", fx.Triggers, re.Triggers)...)
	}
	if len(problems) > 0 {
		t.Errorf("the fixture schema differs from the real one (%s, platform commit %s):\n%s",
			realCataloguePath, real.PlatformCommit, strings.Join(problems, "\n"))
	}
}

// compareShapes reports each fixture entry that the real table lacks or
// defines differently.
func compareShapes(table, kind string, fixture, real map[string]string) []string {
	var out []string
	for name, def := range fixture {
		realDef, ok := real[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: %s %s: not in the real schema (fixture: %s)", table, kind, name, def))
		case realDef != def:
			out = append(out, fmt.Sprintf("%s: %s %s:\n\tfixture: %s\n\treal:    %s", table, kind, name, def, realDef))
		}
	}
	sort.Strings(out)
	return out
}

// writeRealCatalogue rewrites realCataloguePath from -real-database-url.
func writeRealCatalogue(t *testing.T, ctx context.Context, tables []string) {
	t.Helper()
	if *platformCommit == "" {
		t.Fatal("-real-database-url needs -platform-commit (the commit the database was built from)")
	}
	cat, err := readCatalogue(ctx, *realDatabaseURL, tables)
	if err != nil {
		t.Fatalf("reading the real catalogue: %v", err)
	}
	cat.PlatformCommit = *platformCommit
	cat.Provenance = "Generated by TestFixtureMatchesRealCatalogue (supabase/devstack/dbsetup) with -real-database-url " +
		"from a database built by scripts/realschema/build from github.com/pawtograder/platform at platform_commit " +
		"(its supabase/migrations, on PostgreSQL 15 with scripts/realschema/standins.sql for Supabase's own schemas). " +
		"Tables: those of the fixture schema. Do not edit by hand."
	b, err := json.MarshalIndent(cat, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(realCataloguePath, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
