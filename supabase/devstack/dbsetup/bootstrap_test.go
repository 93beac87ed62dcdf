package dbsetup

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/supabase"
)

// TestAuthHelpers checks auth.uid(), auth.role(), auth.email() and
// auth.jwt() against the settings PostgREST writes, including the legacy
// per-claim settings that take precedence, as on Supabase.
func TestAuthHelpers(t *testing.T) {
	url := newDatabase(t)
	ctx := context.Background()
	if err := ApplyBootstrap(ctx, url); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url)
	const query = `SELECT coalesce(auth.uid()::text, '<null>'), coalesce(auth.role(), '<null>'),
	                      coalesce(auth.email(), '<null>'), coalesce(auth.jwt()::text, '<null>')`
	tests := []struct {
		name     string
		settings map[string]string
		want     []string
	}{
		{"nothing set", nil, []string{"<null>", "<null>", "<null>", "<null>"}},
		{"empty claims", map[string]string{"request.jwt.claims": ""}, []string{"<null>", "<null>", "<null>", "<null>"}},
		{
			"claims object",
			map[string]string{"request.jwt.claims": `{"sub":"10000000-0000-4000-8000-000000000001","role":"authenticated","email":"a@example.edu"}`},
			[]string{"10000000-0000-4000-8000-000000000001", "authenticated", "a@example.edu",
				`{"sub": "10000000-0000-4000-8000-000000000001", "role": "authenticated", "email": "a@example.edu"}`},
		},
		{
			"anon claims",
			map[string]string{"request.jwt.claims": `{"role":"anon"}`},
			[]string{"<null>", "anon", "<null>", `{"role": "anon"}`},
		},
		{
			"legacy per-claim settings win",
			map[string]string{
				"request.jwt.claims":     `{"sub":"10000000-0000-4000-8000-000000000001","role":"authenticated"}`,
				"request.jwt.claim.sub":  "10000000-0000-4000-8000-000000000002",
				"request.jwt.claim.role": "service_role",
			},
			[]string{"10000000-0000-4000-8000-000000000002", "service_role", "<null>",
				`{"sub": "10000000-0000-4000-8000-000000000001", "role": "authenticated"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			for k, v := range tt.settings {
				if _, err := tx.Exec(ctx, `SELECT set_config($1, $2, true)`, k, v); err != nil {
					t.Fatal(err)
				}
			}
			got := make([]string, 4)
			if err := tx.QueryRow(ctx, query).Scan(&got[0], &got[1], &got[2], &got[3]); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("uid, role, email, jwt (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuthenticatorLogin connects as PostgREST does (authenticator) and
// switches to each API role.
func TestAuthenticatorLogin(t *testing.T) {
	dbURL := newDatabase(t)
	ctx := context.Background()
	if err := ApplyBootstrap(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("authenticator", "authenticator")
	conn := connect(t, u.String())
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+role); err != nil {
			t.Errorf("SET ROLE %s: %v", role, err)
		} else if err := tx.QueryRow(ctx, "SELECT current_user").Scan(&got); err != nil || got != role {
			t.Errorf("current_user = %q, %v; want %q", got, err, role)
		}
		_ = tx.Rollback(ctx)
	}
	// NOINHERIT: without SET ROLE the authenticator has none of the API
	// roles' privileges.
	if _, err := conn.Exec(ctx, "SELECT * FROM auth.users"); !isDenied(err) {
		t.Errorf("authenticator reading auth.users: err = %v, want permission denied", err)
	}
}

// TestApplyErrorLocatesLine checks that a failing script reports its file and
// the line of the failing statement.
func TestApplyErrorLocatesLine(t *testing.T) {
	conn := connect(t, newDatabase(t))
	f := supabase.File{Name: "fixtures/broken.sql", SQL: "SELECT 1;\n-- comment\nSELECT nope FROM nowhere;\n"}
	err := ApplyScript(context.Background(), conn.PgConn(), f)
	var ae *ApplyError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *ApplyError", err)
	}
	if ae.File != f.Name || ae.Line != 3 || !strings.Contains(ae.Error(), "fixtures/broken.sql:3:") {
		t.Errorf("ApplyError = {File %q, Line %d, %q}, want fixtures/broken.sql line 3", ae.File, ae.Line, ae.Error())
	}
	if sqlState(err) != "42P01" {
		t.Errorf("SQLSTATE = %q, want 42P01 (undefined_table) via Unwrap", sqlState(err))
	}
}

func TestLineOf(t *testing.T) {
	const sql = "a\nbé\n日本\nx"
	tests := []struct{ pos, want int }{
		{1, 1}, {2, 1}, {3, 2}, {5, 2}, {6, 3}, {8, 3}, {9, 4}, {100, 4},
	}
	for _, tt := range tests {
		if got := lineOf(sql, tt.pos); got != tt.want {
			t.Errorf("lineOf(pos %d) = %d, want %d", tt.pos, got, tt.want)
		}
	}
}

// TestSeedCounts guards the seed's size against accidental edits (SEED.md
// documents each row).
func TestSeedCounts(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	ctx := context.Background()
	rows, err := conn.Query(ctx, `
SELECT t || '=' || n FROM (VALUES
  ('auth.users', (SELECT count(*) FROM auth.users)),
  ('users', (SELECT count(*) FROM public.users)),
  ('classes', (SELECT count(*) FROM public.classes)),
  ('profiles', (SELECT count(*) FROM public.profiles)),
  ('user_roles', (SELECT count(*) FROM public.user_roles)),
  ('user_privileges', (SELECT count(*) FROM public.user_privileges)),
  ('assignments', (SELECT count(*) FROM public.assignments)),
  ('autograder', (SELECT count(*) FROM public.autograder)),
  ('submissions', (SELECT count(*) FROM public.submissions)),
  ('submission_files', (SELECT count(*) FROM public.submission_files)),
  ('grader_results', (SELECT count(*) FROM public.grader_results)),
  ('grader_result_tests', (SELECT count(*) FROM public.grader_result_tests)),
  ('grader_result_output', (SELECT count(*) FROM public.grader_result_output)),
  ('help_queues', (SELECT count(*) FROM public.help_queues)),
  ('help_requests', (SELECT count(*) FROM public.help_requests)),
  ('help_request_students', (SELECT count(*) FROM public.help_request_students)),
  ('help_request_messages', (SELECT count(*) FROM public.help_request_messages)),
  ('discussion_topics', (SELECT count(*) FROM public.discussion_topics)),
  ('discussion_threads', (SELECT count(*) FROM public.discussion_threads)),
  ('api_tokens', (SELECT count(*) FROM public.api_tokens)),
  ('revoked_token_ids', (SELECT count(*) FROM public.revoked_token_ids)),
  ('next submission id', (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END
                          FROM public.submissions_id_seq))
) AS v(t, n)`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"auth.users=9", "users=9", "classes=2", "profiles=18", "user_roles=9", "user_privileges=8",
		"assignments=5", "autograder=5", "submissions=9", "submission_files=17", "grader_results=8",
		"grader_result_tests=18", "grader_result_output=10", "help_queues=3", "help_requests=6",
		"help_request_students=7", "help_request_messages=11", "discussion_topics=11",
		"discussion_threads=74", "api_tokens=4", "revoked_token_ids=1", "next submission id=1000000",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seed row counts (-want +got):\n%s", diff)
	}
}

// FuzzLineOf checks lineOf's invariants on arbitrary scripts and positions
// (server positions are untrusted input to the error path).
func FuzzLineOf(f *testing.F) {
	f.Add("SELECT 1;\nSELECT x;", 12)
	f.Add("日本\n\u2028\n", 3)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, sql string, pos int) {
		got := lineOf(sql, pos)
		lines := strings.Count(sql, "\n") + 1
		if got < 1 || got > lines {
			t.Fatalf("lineOf(%q, %d) = %d, want 1..%d", sql, pos, got, lines)
		}
	})
}

// TestCreateSeededDatabase clones the seeded template twice and checks the
// clones are independent and fully seeded.
func TestCreateSeededDatabase(t *testing.T) {
	ctx := context.Background()
	a, err := CreateSeededDatabase(ctx, cluster, "clone_a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateSeededDatabase(ctx, cluster, "clone_b")
	if err != nil {
		t.Fatal(err)
	}
	connA, connB := connect(t, a), connect(t, b)
	if _, err := connA.Exec(ctx, `DELETE FROM public.discussion_threads WHERE root = 8`); err != nil {
		t.Fatal(err)
	}
	var inA, inB int
	if err := connA.QueryRow(ctx, `SELECT count(*) FROM public.discussion_threads`).Scan(&inA); err != nil {
		t.Fatal(err)
	}
	if err := connB.QueryRow(ctx, `SELECT count(*) FROM public.discussion_threads`).Scan(&inB); err != nil {
		t.Fatal(err)
	}
	if inA != 13 || inB != 74 {
		t.Errorf("threads: clone a = %d (want 13 after delete), clone b = %d (want 74)", inA, inB)
	}
	if _, err := CreateSeededDatabase(ctx, cluster, "clone_a"); err == nil {
		t.Error("creating an existing database succeeded, want error")
	}
}

// TestParallelBootstrap applies everything to several fresh databases of one
// cluster at once, as parallel tests do.
func TestParallelBootstrap(t *testing.T) {
	const n = 4
	urls := make([]string, n)
	for i := range urls {
		urls[i] = newDatabase(t)
	}
	errs := make(chan error, n)
	for _, u := range urls {
		go func() { errs <- ApplyAll(context.Background(), u) }()
	}
	for range urls {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
