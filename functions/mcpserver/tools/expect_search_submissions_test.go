package tools

import (
	"fmt"
	"strings"
	"testing"
)

// sqlSearchSubmissions is search_submissions' answer, unfiltered, for
// assignment $1 in class $2 as the superuser: the active submissions
// newest first, with the public profile (docs/contract/tools.md §1.2), the
// grader result's score, the autograder state and the non-draft regrade
// requests (open: opened or escalated).
const sqlSearchSubmissions = `SELECT json_build_object('class_id', $2::bigint, 'assignment_id', $1::bigint, 'truncated', false,
  'total_matched', (SELECT count(*) FROM public.submissions WHERE assignment_id = $1 AND class_id = $2 AND is_active),
  'submissions', coalesce((SELECT json_agg(json_build_object(
      'id', s.id, 'created_at', s.created_at, 'ordinal', s.ordinal, 'is_active', s.is_active,
      'student_profile_id', PUBID, 'student_name', PUBNAME,
      'assignment_group_id', s.assignment_group_id, 'score', g.score, 'max_score', g.max_score,
      'autograder_status', CASE WHEN g.id IS NULL THEN 'pending' WHEN g.score >= g.max_score THEN 'passed' ELSE 'failed' END,
      'regrade_requests', (SELECT count(*) FROM public.submission_regrade_requests r WHERE r.submission_id = s.id AND r.status <> 'draft'),
      'open_regrade_requests', (SELECT count(*) FROM public.submission_regrade_requests r WHERE r.submission_id = s.id AND r.status IN ('opened', 'escalated')))
    ORDER BY s.created_at DESC, s.id DESC)
    FROM public.submissions s LEFT JOIN public.grader_results g ON g.submission_id = s.id
   WHERE s.assignment_id = $1 AND s.class_id = $2 AND s.is_active), '[]'))`

func TestExpectSearchSubmissions(t *testing.T) {
	t.Run("unfiltered answer as SQL builds it", func(t *testing.T) {
		q := sqlSearchSubmissions
		q = strings.ReplaceAll(q, "PUBID", publicID("s.profile_id", "$2"))
		q = strings.ReplaceAll(q, "PUBNAME", publicName("s.profile_id", "$2"))
		for _, a := range []struct{ assignment, class int }{{1, 1}, {2, 1}} {
			args := fmt.Sprintf(`{"assignment_id":%d,"class_id":%d}`, a.assignment, a.class)
			want := seedJSON(t, q, a.assignment, a.class)
			expectEqual(t, "search_submissions"+args, want, toolJSON(t, nil, userAlice, "search_submissions", args))
		}
	})
	// SEED.md: HW1's active submissions are 7 (Tara, 88/100), 3 (Sam,
	// 100/100) and 4 (Sofia, 10/10); Sam's inactive ones are 2 and 1; HW2's
	// are 9 (group, 40/50.5) and, inactive, 6 (Sam, pending) and 5 (Sofia).
	// Regrade requests (not drafts): 1 and 2 on submission 3, 3 on 4, 5 on 7.
	sam, sofia := pubID(1, 3), pubID(1, 4)
	cases := []struct {
		name, user, filters string
		ids                 []any
		matched             float64
	}{
		{"newest first", userAlice, ``, nums(7, 3, 4), 3},
		{"with inactive", userAlice, `,"include_inactive":true`, nums(7, 3, 2, 4, 1), 5},
		{"student name, any case", userAlice, `,"student_name":"PENGUIN","include_inactive":true`, nums(3, 2, 1), 3},
		{"student profile id", userAlice, fmt.Sprintf(`,"student_profile_id":%q`, sofia), nums(4), 1},
		{"private profile id matches nobody", userAlice, fmt.Sprintf(`,"student_profile_id":%q`, privID(1, 4)), nums(), 0},
		{"min score", userAlice, `,"min_score":50`, nums(7, 3), 2},
		{"score range", userAlice, `,"min_score":50,"max_score":90`, nums(7), 1},
		{"passed", userAlice, `,"autograder_status":"passed"`, nums(3, 4), 2},
		{"failed", userAlice, `,"autograder_status":"failed","include_inactive":true`, nums(7, 2, 1), 3},
		{"without regrade request", userAlice, `,"has_regrade_request":false,"include_inactive":true`, nums(2, 1), 2},
		{"with regrade request", userAlice, `,"has_regrade_request":true`, nums(7, 3, 4), 3},
		{"limit keeps the count", userAlice, `,"limit":1`, nums(7), 3},
		{"grader sees the class", userGary, ``, nums(7, 3, 4), 3},
		{"student sees only their own", userSam, ``, nums(3), 1},
		{"student name with a student filter", userAlice, fmt.Sprintf(`,"student_profile_id":%q,"student_name":"gecko"`, sam), nums(), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := toolJSON(t, nil, c.user, "search_submissions", `{"assignment_id":1,"class_id":1`+c.filters+`}`)
			expectEqual(t, "ids", c.ids, pluck(field(got, "submissions"), "id"))
			expectEqual(t, "total_matched", c.matched, field(got, "total_matched"))
		})
	}
	t.Run("pending and group submissions", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "search_submissions", `{"assignment_id":2,"class_id":1,"include_inactive":true}`)
		want := []any{
			// 40 of 50.5 is below full marks.
			map[string]any{"id": 9.0, "autograder_status": "failed", "student_profile_id": nil, "assignment_group_id": 1.0},
			map[string]any{"id": 6.0, "autograder_status": "pending", "student_profile_id": sam, "assignment_group_id": nil},
			map[string]any{"id": 5.0, "autograder_status": "failed", "student_profile_id": sofia, "assignment_group_id": nil},
		}
		var subs []any
		for _, s := range field(got, "submissions").([]any) {
			subs = append(subs, pick(s, "id", "autograder_status", "student_profile_id", "assignment_group_id"))
		}
		expectEqual(t, "HW2", want, subs)
	})
	t.Run("null outside the caller's classes", func(t *testing.T) {
		for _, c := range []struct{ user, args string }{
			{userGary, `{"assignment_id":5,"class_id":2}`},  // grader of class A, class B's assignment
			{userAlice, `{"assignment_id":5,"class_id":1}`}, // class B's assignment under class A's id
			{userNora, `{"assignment_id":1,"class_id":1}`},  // not enrolled
		} {
			expectEqual(t, "search_submissions"+c.args+" as "+c.user, nil, toolJSON(t, nil, c.user, "search_submissions", c.args))
		}
	})
}
