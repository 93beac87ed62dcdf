package dbsetup

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// seedTables lists every seeded table with its ordering key. The dump pins
// every seeded value: other packages' golden tests depend on them, so a
// change must be deliberate (rerun with -update and review the diff).
var seedTables = []struct{ table, order string }{
	{"auth.users", "id"},
	{"public.users", "user_id"},
	{"public.classes", "id"},
	{"public.profiles", "id"},
	{"public.user_roles", "id"},
	{"public.user_privileges", "user_id, class_id"},
	{"public.assignment_self_review_settings", "id"},
	{"public.assignments", "id"},
	{"public.autograder", "id"},
	{"public.assignment_groups", "id"},
	{"public.assignment_groups_members", "id"},
	{"public.submissions", "id"},
	{"public.submission_files", "id"},
	{"public.grader_results", "id"},
	{"public.grader_result_tests", "id"},
	{"public.grader_result_output", "id"},
	{"public.help_queues", "id"},
	{"public.help_requests", "id"},
	{"public.help_request_students", "id"},
	{"public.help_request_messages", "id"},
	{"public.discussion_topics", "id"},
	{"public.discussion_threads", "id"},
	{"public.rubrics", "id"},
	{"public.rubric_parts", "id"},
	{"public.rubric_criteria", "id"},
	{"public.rubric_checks", "id"},
	{"public.submission_reviews", "id"},
	{"public.review_assignments", "id"},
	{"public.submission_regrade_requests", "id"},
	{"public.submission_regrade_request_comments", "id"},
	{"public.api_tokens", "id"},
	{"public.revoked_token_ids", "token_id"},
}

func TestSeedGolden(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	ctx := context.Background()
	var b strings.Builder
	for _, st := range seedTables {
		// row_to_json keeps column order and renders numeric scale (10.0),
		// json values and timestamps (UTC session) exactly as stored.
		rows, err := conn.Query(ctx, "SELECT row_to_json(t)::text FROM "+st.table+" t ORDER BY "+st.order)
		if err != nil {
			t.Fatalf("%s: %v", st.table, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", st.table, err)
		}
		b.WriteString("## " + st.table + "\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
	checkGolden(t, "seed.golden", b.String())
}

// TestFileOrderIsByteOrder pins the collation claim in SEED.md: the cluster
// is initialised with locale C, so order=name.asc sorts upper case first.
func TestFileOrderIsByteOrder(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	rows, err := conn.Query(context.Background(), `SELECT name FROM public.submission_files WHERE submission_id = 3 ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := "README.md,docs/notes.txt,lib/data.bin,src/Empty.java,src/Main.java,src/Util.java"
	if strings.Join(got, ",") != want {
		t.Errorf("file order = %s, want %s", strings.Join(got, ","), want)
	}
}
