package dbsetup

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	dbNameUnsafe = regexp.MustCompile(`[^a-z0-9_]+`)
	dbNamesMu    sync.Mutex
	dbNames      = map[string]int{}
)

// newDatabase creates an empty database for one test and returns its
// superuser URL. Names derive from the test name so failures are easy to
// inspect; a counter keeps them unique.
func newDatabase(t *testing.T) string {
	t.Helper()
	name := strings.Trim(dbNameUnsafe.ReplaceAllString(strings.ToLower(t.Name()), "_"), "_")
	if len(name) > 50 {
		name = name[:50]
	}
	dbNamesMu.Lock()
	dbNames[name]++
	name = fmt.Sprintf("%s_%d", name, dbNames[name])
	dbNamesMu.Unlock()
	if err := cluster.CreateDatabase(context.Background(), name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return cluster.SuperuserURL(name)
}

// connect opens a superuser connection closed at the end of the test.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

var (
	seededOnce sync.Once
	seededURL  string
	seededErr  error
)

// seededDatabase returns the URL of a database with everything applied. It is
// shared by the read-only tests; tests that write use asPersona's
// rolled-back transactions or a database of their own.
func seededDatabase(t *testing.T) string {
	t.Helper()
	seededOnce.Do(func() {
		ctx := context.Background()
		if seededErr = cluster.CreateDatabase(ctx, "seeded"); seededErr != nil {
			return
		}
		seededURL = cluster.SuperuserURL("seeded")
		seededErr = ApplyAll(ctx, seededURL)
	})
	if seededErr != nil {
		t.Fatalf("seeded database: %v", seededErr)
	}
	return seededURL
}

// persona is who a query runs as.
type persona struct {
	name string
	role string // anon, authenticated or service_role
	sub  string // user id for authenticated
}

var (
	alice   = persona{"alice (instructor A)", "authenticated", "10000000-0000-4000-8000-000000000001"}
	gary    = persona{"gary (grader A)", "authenticated", "10000000-0000-4000-8000-000000000002"}
	sam     = persona{"sam (student A)", "authenticated", "10000000-0000-4000-8000-000000000003"}
	sofia   = persona{"sofia (student A)", "authenticated", "10000000-0000-4000-8000-000000000004"}
	dale    = persona{"dale (disabled grader A)", "authenticated", "10000000-0000-4000-8000-000000000005"}
	bea     = persona{"bea (instructor B only)", "authenticated", "10000000-0000-4000-8000-000000000006"}
	ben     = persona{"ben (student B only)", "authenticated", "10000000-0000-4000-8000-000000000007"}
	tara    = persona{"tara (grader B, student A)", "authenticated", "10000000-0000-4000-8000-000000000008"}
	nora    = persona{"nora (no roles)", "authenticated", "10000000-0000-4000-8000-000000000009"}
	anon    = persona{"anon", "anon", ""}
	service = persona{"service_role", "service_role", ""}
)

// asPersona runs fn in a transaction that has switched to the persona's role
// and JWT claims exactly as PostgREST does, and always rolls it back.
func asPersona(ctx context.Context, conn *pgx.Conn, p persona, fn func(pgx.Tx) error) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	claims := fmt.Sprintf(`{"role":%q}`, p.role)
	if p.sub != "" {
		claims = fmt.Sprintf(`{"sub":%q,"role":%q,"aud":"authenticated"}`, p.sub, p.role)
	}
	if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{p.role}.Sanitize()); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT set_config('request.jwt.claims', $1, true)", claims); err != nil {
		return err
	}
	return fn(tx)
}

// denied is the outcome recorded when PostgreSQL refuses the statement for
// lack of privilege (SQLSTATE 42501).
const denied = "denied"

// visibleIDs runs query (which must return one column) as p and returns the
// values joined by commas, sorted shortest first and then lexically (numeric
// order for decimal ids), or "denied".
func visibleIDs(t *testing.T, conn *pgx.Conn, p persona, query string) string {
	t.Helper()
	ctx := context.Background()
	var got []string
	err := asPersona(ctx, conn, p, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query)
		if err != nil {
			return err
		}
		got, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if isDenied(err) {
		return denied
	}
	if err != nil {
		t.Fatalf("%s as %s: %v", query, p.name, err)
	}
	sort.Slice(got, func(i, j int) bool {
		if len(got[i]) != len(got[j]) {
			return len(got[i]) < len(got[j]) // numeric order for decimal ids
		}
		return got[i] < got[j]
	})
	return strings.Join(got, ",")
}

func isDenied(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42501"
}

// sqlState returns err's SQLSTATE, "" for nil, or "not a pg error".
func sqlState(err error) string {
	if err == nil {
		return ""
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return "not a pg error: " + err.Error()
}
