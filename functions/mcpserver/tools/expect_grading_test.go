package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// gradingNow is the clock of the grading tests' registries, so ages are
// exact.
var gradingNow = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

// gradingRegistry is a Registry on gradingNow.
func gradingRegistry() *Registry {
	return New(Options{Now: func() time.Time { return gradingNow }})
}

// sqlRegradeRequests is list_regrade_requests' answer with status "all"
// for class $2 at time $1, as the superuser: every sent request, newest
// first, profiles as public profiles (docs/contract/tools.md §1.2).
const sqlRegradeRequests = `SELECT coalesce(json_agg(json_build_object(
    'id', r.id, 'status', r.status, 'created_at', r.created_at, 'opened_at', r.opened_at,
    'age_seconds', floor(extract(epoch FROM $1::timestamptz - r.created_at)),
    'assignment_id', r.assignment_id, 'submission_id', r.submission_id,
    'student_profile_id', STUDENTID, 'student_name', STUDENTNAME,
    'assignee_profile_id', ASSIGNEEID, 'assignee_name', ASSIGNEENAME,
    'rubric_check', (SELECT json_build_object('id', k.id, 'name', k.name, 'points', k.points) FROM public.rubric_checks k WHERE k.id = r.rubric_check_id),
    'initial_points', r.initial_points, 'resolved_points', r.resolved_points, 'closed_points', r.closed_points,
    'resolved_at', r.resolved_at, 'closed_at', r.closed_at, 'last_commented_at', r.last_commented_at)
  ORDER BY r.created_at DESC, r.id DESC), '[]')
  FROM public.submission_regrade_requests r WHERE r.class_id = $2 AND r.status <> 'draft'`

func TestExpectListRegradeRequests(t *testing.T) {
	t.Run("every sent request as SQL builds it", func(t *testing.T) {
		q := strings.NewReplacer(
			"STUDENTID", publicID("r.created_by", "r.class_id"), "STUDENTNAME", publicName("r.created_by", "r.class_id"),
			"ASSIGNEEID", publicID("r.assignee", "r.class_id"), "ASSIGNEENAME", publicName("r.assignee", "r.class_id"),
		).Replace(sqlRegradeRequests)
		for _, c := range []struct {
			user  string
			class int
		}{{userAlice, 1}, {userBea, 2}} {
			want := seedJSON(t, q, gradingNow, c.class)
			got := toolJSON(t, gradingRegistry(), c.user, "list_regrade_requests", fmt.Sprintf(`{"class_id":%d,"status":"all"}`, c.class))
			expectEqual(t, fmt.Sprintf("class %d", c.class), want, got)
		}
	})
	// SEED.md: class 1's requests by creation, newest first: 3 escalated,
	// 2 resolved, 1 opened, 5 closed (4 is a draft); class 2 has 6, opened.
	cases := []struct {
		name, user, args string
		ids              []any
	}{
		{"open by default", userAlice, `{"class_id":1}`, nums(3, 1)},
		{"resolved", userAlice, `{"class_id":1,"status":"resolved"}`, nums(2)},
		{"closed", userAlice, `{"class_id":1,"status":"closed"}`, nums(5)},
		{"escalated", userAlice, `{"class_id":1,"status":"escalated"}`, nums(3)},
		{"opened", userAlice, `{"class_id":1,"status":"opened"}`, nums(1)},
		{"another assignment", userAlice, `{"class_id":1,"assignment_id":2,"status":"all"}`, nums()},
		{"limit", userAlice, `{"class_id":1,"status":"all","limit":2}`, nums(3, 2)},
		{"grader of the class", userGary, `{"class_id":1}`, nums(3, 1)},
		{"grader of class B", userTara, `{"class_id":2}`, nums(6)},
		{"student of the class", userSam, `{"class_id":1,"status":"all"}`, nums()},
		{"grader of class B asks class A, where they are a student", userTara, `{"class_id":1,"status":"all"}`, nums()},
		{"grader of class A asks class B", userGary, `{"class_id":2,"status":"all"}`, nums()},
		{"instructor of class A asks class B", userAlice, `{"class_id":2,"status":"all"}`, nums()},
		{"disabled grader", userDale, `{"class_id":1,"status":"all"}`, nums()},
		{"not enrolled", userNora, `{"class_id":1,"status":"all"}`, nums()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectEqual(t, "ids", c.ids, pluck(toolJSON(t, gradingRegistry(), c.user, "list_regrade_requests", c.args), "id"))
		})
	}
}

// TestRegradePolicyAdmitsOtherClassesStaff is the reason for the tools'
// staff check: Pawtograder's read policy on submission_regrade_requests
// (reproduced by the fixture) shows a grader of class A class B's request
// 6. If this stops holding, the policy was fixed upstream.
func TestRegradePolicyAdmitsOtherClassesStaff(t *testing.T) {
	db, _ := clientFor(t, userGary)
	raw, err := db.From("submission_regrade_requests").Select("id").Eq("class_id", "2").Rows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(string(raw)), ""); got != `[{"id":6}]` {
		t.Errorf("Gary reads class 2's regrade requests as %s, want [{\"id\":6}]", got)
	}
}

// sqlGradingProgress is get_grading_progress' answer for assignment $1 in
// class $2 as the superuser (an instructor sees every row).
const sqlGradingProgress = `WITH a AS (SELECT * FROM public.assignments WHERE id = $1 AND class_id = $2),
  subs AS (SELECT s.id, sr.completed_at IS NOT NULL AND sr.completed_by IS NOT NULL AS graded, coalesce(sr.released, false) AS released
             FROM public.submissions s CROSS JOIN a
             LEFT JOIN public.submission_reviews sr ON sr.submission_id = s.id AND sr.rubric_id = a.grading_rubric_id
            WHERE s.assignment_id = $1 AND s.class_id = $2 AND s.is_active),
  ra AS (SELECT * FROM public.review_assignments WHERE assignment_id = $1 AND class_id = $2),
  people AS (SELECT private_profile_id AS id FROM public.user_roles WHERE class_id = $2 AND role = 'grader' AND NOT disabled
             UNION SELECT assignee_profile_id FROM ra),
  graders AS (SELECT GRADERID AS profile_id, GRADERNAME AS name,
                     EXISTS (SELECT 1 FROM public.user_roles me WHERE me.class_id = $2 AND me.user_id = $3
                             AND pp.id IN (me.private_profile_id, me.public_profile_id)) AS is_caller,
                     (SELECT count(*) FROM ra WHERE ra.assignee_profile_id = pp.id) AS assigned,
                     (SELECT count(*) FROM ra WHERE ra.assignee_profile_id = pp.id AND ra.completed_at IS NOT NULL) AS completed,
                     (SELECT count(*) FROM ra WHERE ra.assignee_profile_id = pp.id AND ra.completed_at IS NULL) AS pending,
                     (SELECT min(ra.due_date) FROM ra WHERE ra.assignee_profile_id = pp.id AND ra.completed_at IS NULL) AS earliest_pending_due_date
                FROM people pp),
  rr AS (SELECT status::text AS status FROM public.submission_regrade_requests WHERE assignment_id = $1 AND class_id = $2 AND status <> 'draft')
SELECT json_build_object('class_id', $2::bigint, 'assignment_id', $1::bigint, 'truncated', false,
  'submissions', json_build_object('active', (SELECT count(*) FROM subs), 'graded', (SELECT count(*) FILTER (WHERE graded) FROM subs),
                                   'ungraded', (SELECT count(*) FILTER (WHERE NOT graded) FROM subs), 'released', (SELECT count(*) FILTER (WHERE released) FROM subs)),
  'review_assignments', json_build_object('total', (SELECT count(*) FROM ra), 'completed', (SELECT count(*) FROM ra WHERE completed_at IS NOT NULL),
                                          'pending', (SELECT count(*) FROM ra WHERE completed_at IS NULL)),
  'graders', (SELECT coalesce(json_agg(g ORDER BY g.name IS NULL, g.name, g.profile_id), '[]') FROM graders g),
  'regrade_requests', json_build_object('open', (SELECT count(*) FROM rr WHERE status IN ('opened', 'escalated')),
                                        'resolved_or_closed', (SELECT count(*) FROM rr WHERE status IN ('resolved', 'closed')),
                                        'opened', (SELECT count(*) FROM rr WHERE status = 'opened'), 'escalated', (SELECT count(*) FROM rr WHERE status = 'escalated'),
                                        'resolved', (SELECT count(*) FROM rr WHERE status = 'resolved'), 'closed', (SELECT count(*) FROM rr WHERE status = 'closed')))
  FROM a`

func TestExpectGetGradingProgress(t *testing.T) {
	q := strings.NewReplacer("GRADERID", publicID("pp.id", "$2"), "GRADERNAME", publicName("pp.id", "$2")).Replace(sqlGradingProgress)
	t.Run("instructor's view as SQL builds it", func(t *testing.T) {
		for _, c := range []struct {
			user              string
			assignment, class int
		}{{userAlice, 1, 1}, {userAlice, 2, 1}, {userAlice, 4, 1}, {userBea, 5, 2}} {
			args := fmt.Sprintf(`{"assignment_id":%d,"class_id":%d}`, c.assignment, c.class)
			want := seedJSON(t, q, c.assignment, c.class, c.user)
			expectEqual(t, "get_grading_progress"+args, want, toolJSON(t, nil, c.user, "get_grading_progress", args))
		}
	})
	// SEED.md: HW1 has active submissions 3, 4 and 7; 3's grading review
	// is completed and released, 4's completed; review assignments 1 (Gary,
	// done), 2 (Gary), 3 (Alice, done), 4 (Dale, released in 2099).
	t.Run("HW1 by hand", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_grading_progress", `{"assignment_id":1,"class_id":1}`)
		expectEqual(t, "submissions", map[string]any{"active": 3.0, "graded": 2.0, "ungraded": 1.0, "released": 1.0}, field(got, "submissions"))
		expectEqual(t, "review assignments", map[string]any{"total": 4.0, "completed": 2.0, "pending": 2.0}, field(got, "review_assignments"))
		expectEqual(t, "graders", []any{"Busy Beaver", "Sleepy Sloth", "Wise Owl"}, pluck(field(got, "graders"), "name"))
		// Alice is Wise Owl: the caller's own row is marked.
		expectEqual(t, "is_caller", []any{false, false, true}, pluck(field(got, "graders"), "is_caller"))
		expectEqual(t, "regrades", map[string]any{"open": 2.0, "resolved_or_closed": 2.0, "opened": 1.0, "escalated": 1.0, "resolved": 1.0, "closed": 1.0},
			field(got, "regrade_requests"))
	})
	t.Run("a grader sees only their own review assignments", func(t *testing.T) {
		got := toolJSON(t, nil, userGary, "get_grading_progress", `{"assignment_id":1,"class_id":1}`)
		expectEqual(t, "review assignments", map[string]any{"total": 2.0, "completed": 1.0, "pending": 1.0}, field(got, "review_assignments"))
		expectEqual(t, "graders", []any{map[string]any{"profile_id": pubID(1, 2), "name": "Busy Beaver", "is_caller": true, "assigned": 2.0, "completed": 1.0,
			"pending": 1.0, "earliest_pending_due_date": "2026-01-25T04:59:00+00:00"}}, field(got, "graders"))
	})
	t.Run("null unless staff of the class", func(t *testing.T) {
		for _, c := range []struct{ user, args string }{
			{userGary, `{"assignment_id":5,"class_id":2}`},  // grader of class A, class B's assignment
			{userAlice, `{"assignment_id":5,"class_id":2}`}, // instructor of class A
			{userTara, `{"assignment_id":1,"class_id":1}`},  // grader of class B, student of A
			{userSam, `{"assignment_id":1,"class_id":1}`},   // student
			{userDale, `{"assignment_id":1,"class_id":1}`},  // disabled grader
			{userAlice, `{"assignment_id":5,"class_id":1}`}, // class B's assignment under class A's id
		} {
			expectEqual(t, "get_grading_progress"+c.args+" as "+c.user, nil, toolJSON(t, nil, c.user, "get_grading_progress", c.args))
		}
	})
}
