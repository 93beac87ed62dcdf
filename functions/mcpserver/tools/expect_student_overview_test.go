package tools

import (
	"fmt"
	"strings"
	"testing"
)

// sqlStudentOverview is get_student_overview's answer for private profile
// $1 in class $2 with the default limit (5), as the superuser: per
// assignment the student's own and group submissions and the newest;
// help requests they are a student of; non-draft posts under the private
// profile.
const sqlStudentOverview = `WITH subs AS (
    SELECT s.*, g.score, g.max_score, g.id AS gid FROM public.submissions s LEFT JOIN public.grader_results g ON g.submission_id = s.id
     WHERE s.class_id = $2 AND (s.profile_id = $1 OR s.assignment_group_id IN
           (SELECT m.assignment_group_id FROM public.assignment_groups_members m WHERE m.profile_id = $1 AND m.class_id = $2))),
  latest AS (SELECT DISTINCT ON (assignment_id) * FROM subs ORDER BY assignment_id, created_at DESC, id DESC),
  reqs AS (SELECT r.* FROM public.help_requests r JOIN public.help_request_students hs ON hs.help_request_id = r.id
            WHERE hs.profile_id = $1 AND hs.class_id = $2),
  posts AS (SELECT * FROM public.discussion_threads WHERE class_id = $2 AND author = $1 AND NOT draft)
SELECT json_build_object('class_id', $2::bigint, 'student_profile_id', PUBID, 'student_name', PUBNAME, 'truncated', false,
  'assignments', coalesce((SELECT json_agg(json_build_object('assignment_id', l.assignment_id, 'title', a.title, 'due_date', a.due_date,
      'submissions', (SELECT count(*) FROM subs WHERE subs.assignment_id = l.assignment_id),
      'latest', json_build_object('id', l.id, 'created_at', l.created_at, 'ordinal', l.ordinal, 'is_active', l.is_active,
        'assignment_group_id', l.assignment_group_id, 'score', l.score, 'max_score', l.max_score,
        'autograder_status', CASE WHEN l.gid IS NULL THEN 'pending' WHEN l.score >= l.max_score THEN 'passed' ELSE 'failed' END))
    ORDER BY l.assignment_id) FROM latest l JOIN public.assignments a ON a.id = l.assignment_id), '[]'),
  'help_requests', json_build_object('total', (SELECT count(*) FROM reqs),
    'by_status', json_build_object('open', (SELECT count(*) FROM reqs WHERE status = 'open'), 'in_progress', (SELECT count(*) FROM reqs WHERE status = 'in_progress'),
                                   'resolved', (SELECT count(*) FROM reqs WHERE status = 'resolved'), 'closed', (SELECT count(*) FROM reqs WHERE status = 'closed')),
    'latest', coalesce((SELECT json_agg(json_build_object('id', x.id, 'status', x.status, 'request', x.request, 'created_at', x.created_at, 'help_queue_id', x.help_queue)
                         ORDER BY x.created_at DESC, x.id DESC) FROM (SELECT * FROM reqs ORDER BY created_at DESC, id DESC LIMIT 5) x), '[]')),
  'discussion_posts', json_build_object('total', (SELECT count(*) FROM posts), 'questions', (SELECT count(*) FROM posts WHERE is_question),
    'latest', coalesce((SELECT json_agg(json_build_object('id', x.id, 'subject', x.subject, 'created_at', x.created_at, 'is_question', x.is_question,
                         'root', x.root, 'topic_id', x.topic_id) ORDER BY x.created_at DESC, x.id DESC)
                         FROM (SELECT * FROM posts ORDER BY created_at DESC, id DESC LIMIT 5) x), '[]')))`

func TestExpectGetStudentOverview(t *testing.T) {
	t.Run("as SQL builds it", func(t *testing.T) {
		q := sqlStudentOverview
		for _, c := range []struct {
			user      string
			class, uu int
		}{{userAlice, 1, 3}, {userAlice, 1, 4}, {userAlice, 1, 8}, {userBea, 2, 7}, {userGary, 1, 3}} {
			args := fmt.Sprintf(`{"student_profile_id":%q,"class_id":%d}`, pubID(c.class, c.uu), c.class)
			want := seedJSON(t, replacePub(q), privID(c.class, c.uu), c.class)
			expectEqual(t, "get_student_overview"+args+" as "+c.user, want, toolJSON(t, nil, c.user, "get_student_overview", args))
		}
	})
	// SEED.md: Sam submitted HW1 three times (3 is the latest) and HW2 once
	// alone (6) and once with team-lambda (9, the latest); he is a student
	// of help requests 5, 3 and 1; he posted threads 1 and 4 and every
	// third reply of thread 8 (1001, 1004, …, 1058: 20) under his private
	// profile, and threads 11 and 14 under his pseudonym (not counted).
	t.Run("Sam by hand", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_student_overview", fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"limit":3}`, pubID(1, 3)))
		expectEqual(t, "assignments", nums(1, 2), pluck(field(got, "assignments"), "assignment_id"))
		expectEqual(t, "counts", nums(3, 2), pluck(field(got, "assignments"), "submissions"))
		var latest []any
		for _, a := range field(got, "assignments").([]any) {
			latest = append(latest, field(field(a, "latest"), "id"))
		}
		expectEqual(t, "latest", nums(3, 9), latest)
		expectEqual(t, "help requests", nums(5, 3, 1), pluck(field(field(got, "help_requests"), "latest"), "id"))
		expectEqual(t, "posts", map[string]any{"total": 22.0, "questions": 1.0}, pick(field(got, "discussion_posts"), "total", "questions"))
		expectEqual(t, "latest posts", nums(4, 1, 1058), pluck(field(field(got, "discussion_posts"), "latest"), "id"))
	})
	t.Run("null outside what the caller may see", func(t *testing.T) {
		for _, c := range []struct{ user, args string }{
			{userSofia, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, pubID(1, 3))},  // another student
			{userGary, fmt.Sprintf(`{"student_profile_id":%q,"class_id":2}`, pubID(2, 7))},   // grader of class A, class B's student
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, pubID(2, 7))},  // class B's student under class A's id
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, privID(1, 3))}, // a private id
		} {
			expectEqual(t, c.args+" as "+c.user, nil, toolJSON(t, nil, c.user, "get_student_overview", c.args))
		}
	})
}

// replacePub fills sqlStudentOverview's profile placeholders.
func replacePub(q string) string {
	return strings.NewReplacer("PUBID", publicID("$1::uuid", "$2"), "PUBNAME", publicName("$1::uuid", "$2")).Replace(q)
}
