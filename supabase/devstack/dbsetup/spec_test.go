package dbsetup

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestSpecSelectListsResolve runs every select list that mcp-server and
// mcp-tokens send (docs/contract/tools.md, docs/contract/protocol.md), translated to SQL with the same
// embeds as joins over the named foreign keys, so a missing column or
// constraint in the fixture schema fails here rather than in another
// package's golden test.
func TestSpecSelectListsResolve(t *testing.T) {
	conn := connect(t, seededDatabase(t))
	ctx := context.Background()
	queries := []string{
		`SELECT id, token_id, name, scopes, expires_at, revoked_at, created_at, last_used_at FROM public.api_tokens`,
		`SELECT id, token_id, user_id FROM public.api_tokens`,
		`SELECT token_id FROM public.revoked_token_ids`,
		`SELECT class_id, role FROM public.user_roles WHERE disabled = false`,
		`SELECT id, title, slug, description, handout_url, due_date, release_date, total_points, has_autograder, class_id FROM public.assignments`,
		`SELECT template_repo FROM public.assignments`,
		`SELECT grader_repo FROM public.autograder`,
		`SELECT id, body, created_at, author FROM public.discussion_threads WHERE root = 8 ORDER BY created_at LIMIT 50`,
		`SELECT t.id, t.subject, t.body, t.created_at, t.updated_at, t.is_question, t.children_count, t.author, t.answer, t.topic_id, d.assignment_id
		   FROM public.discussion_threads t JOIN public.discussion_topics d
		     ON d.id = t.topic_id AND EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'discussion_threads_topic_id_fkey')
		  WHERE t.parent IS NULL`,
		`SELECT id FROM public.discussion_topics WHERE assignment_id IS NOT NULL`,
		`SELECT output, format FROM public.grader_result_output`,
		`SELECT id, name, part, output, output_format FROM public.grader_result_tests`,
		`SELECT id, name, part, score, max_score FROM public.grader_result_tests WHERE score IS NULL OR score < max_score`,
		`SELECT id, name, part, score, max_score, output, output_format, is_released FROM public.grader_result_tests ORDER BY id`,
		`SELECT id, score, max_score, lint_passed, lint_output, lint_output_format, errors, execution_time, ret_code FROM public.grader_results`,
		`SELECT id, message, created_at, author FROM public.help_request_messages`,
		`SELECT r.id, r.request, r.status, r.created_at, r.updated_at, r.created_by, r.referenced_submission_id, q.name
		   FROM public.help_requests r JOIN public.help_queues q ON q.id = r.help_queue`,
		`SELECT id, name, contents, is_binary, file_size FROM public.submission_files ORDER BY name`,
		`SELECT id, assignment_id, created_at, sha, repository, ordinal, is_active, profile_id FROM public.submissions`,
		`SELECT ur.private_profile_id, ur.public_profile_id, p.name
		   FROM public.user_roles ur LEFT JOIN public.profiles p ON p.id = ur.public_profile_id`,
	}
	for _, q := range queries {
		rows, err := conn.Query(ctx, q)
		if err == nil {
			_, err = pgx.CollectRows(rows, func(pgx.CollectableRow) (struct{}, error) { return struct{}{}, nil })
		}
		if err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}

	// The embed hints name these constraints; each must exist, on the right
	// table, pointing at the right table.
	fks := map[string]string{
		"user_roles_public_profile_id_fkey":  "user_roles -> profiles",
		"user_roles_private_profile_id_fkey": "user_roles -> profiles",
		"help_requests_help_queue_fkey":      "help_requests -> help_queues",
		"discussion_threads_topic_id_fkey":   "discussion_threads -> discussion_topics",
	}
	for name, want := range fks {
		var got string
		err := conn.QueryRow(ctx, `SELECT conrelid::regclass::text || ' -> ' || confrelid::regclass::text
		                             FROM pg_constraint WHERE conname = $1 AND contype = 'f'`, name).Scan(&got)
		if err != nil || got != want {
			t.Errorf("foreign key %s: got %q (%v), want %q", name, got, err, want)
		}
	}
	// Exactly one foreign key from help_requests to help_queues and from
	// discussion_threads to discussion_topics keeps `!inner` embeds
	// unambiguous.
	for _, pair := range [][2]string{{"help_requests", "help_queues"}, {"discussion_threads", "discussion_topics"}} {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_constraint WHERE contype = 'f'
		                             AND conrelid = ('public.' || $1)::regclass AND confrelid = ('public.' || $2)::regclass`,
			pair[0], pair[1]).Scan(&n)
		if err != nil || n != 1 {
			t.Errorf("foreign keys %s -> %s: %d (%v), want exactly 1", pair[0], pair[1], n, err)
		}
	}
}
