package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// get_regrade_request's cases for the registry-wide tests
// (toolcases_test.go). SEED.md: class 1's sent requests are 1 (opened), 2
// (resolved), 3 (escalated), 5 (closed); 4 is a draft; 6 is class 2's.
var _ = addCases("get_regrade_request", toolCases{
	crossClass: sameArgs(`{"regrade_request_id":6,"class_id":%s}`, emptyNull),
	privacy: func(class int) []string {
		return perID(`{"regrade_request_id":%d,"class_id":%d}`, class, 1, 2, 3, 4, 5, 6, 7, 999)
	},
	seeded: []seededCall{
		{userAlice, `{"regrade_request_id":1,"class_id":1}`}, // hidden characters, opened
		{userAlice, `{"regrade_request_id":2,"class_id":1}`}, // resolved, a staff comment
		{userAlice, `{"regrade_request_id":5,"class_id":1}`}, // closed
		{userBea, `{"regrade_request_id":6,"class_id":2}`},
		{userAlice, `{"regrade_request_id":4,"class_id":1}`}, // a draft: null
	},
	readFail: `{"regrade_request_id":2,"class_id":1}`,
})

// sqlRegradeRequest is get_regrade_request's answer for request $1 of
// class $2, as the superuser: a sent request with its check, review and
// conversation oldest first, people as their public profiles
// (docs/contract/tools.md §1.2), a comment staff-written when its author
// is a profile of an instructor or grader of the class. The seed's only
// hidden characters (SEED.md: U+202E and U+200B in comment 3) are marked
// as hiddentext shows them.
const sqlRegradeRequest = `SELECT json_build_object(
    'id', r.id, 'class_id', r.class_id, 'status', r.status, 'assignment_id', r.assignment_id,
    'assignment_title', (SELECT a.title FROM public.assignments a WHERE a.id = r.assignment_id),
    'submission_id', r.submission_id,
    'student_profile_id', STUDENTID, 'student_name', STUDENTNAME,
    'assignee_profile_id', ASSIGNEEID, 'assignee_name', ASSIGNEENAME,
    'rubric_check', (SELECT json_build_object('id', k.id, 'name', k.name, 'description', k.description, 'points', k.points)
                       FROM public.rubric_checks k WHERE k.id = r.rubric_check_id),
    'initial_points', r.initial_points, 'resolved_points', r.resolved_points, 'closed_points', r.closed_points,
    'review', (SELECT json_build_object('id', v.id, 'name', v.name, 'total_score', v.total_score,
                      'total_autograde_score', v.total_autograde_score, 'tweak', v.tweak, 'released', v.released)
                 FROM public.submission_reviews v WHERE v.id = r.submission_review_id),
    'created_at', r.created_at, 'opened_at', r.opened_at, 'resolved_at', r.resolved_at,
    'escalated_at', r.escalated_at, 'closed_at', r.closed_at, 'last_commented_at', r.last_commented_at,
    'comments', coalesce((SELECT json_agg(json_build_object(
        'id', c.id, 'created_at', c.created_at,
        'author_profile_id', (SELECT ur.public_profile_id FROM public.user_roles ur
                               WHERE ur.class_id = c.class_id AND c.author IN (ur.private_profile_id, ur.public_profile_id)),
        'author_name', (SELECT nullif(p.name, '') FROM public.user_roles ur JOIN public.profiles p ON p.id = ur.public_profile_id
                         WHERE ur.class_id = c.class_id AND c.author IN (ur.private_profile_id, ur.public_profile_id)),
        'is_staff', STAFF, 'student_authored', NOT STAFF,
        'comment', replace(replace(c.comment, U&'\202E', '[U+202E]'), U&'\200B', '[U+200B]'),
        'hidden_characters', length(c.comment) - length(replace(replace(c.comment, U&'\202E', ''), U&'\200B', '')))
      ORDER BY c.created_at, c.id)
      FROM public.submission_regrade_request_comments c WHERE c.submission_regrade_request_id = r.id), '[]'),
    'truncated', false)
  FROM public.submission_regrade_requests r WHERE r.id = $1 AND r.class_id = $2 AND r.status <> 'draft'`

// sqlCommentByStaff says comment c's author is a profile of an instructor
// or grader of its class.
const sqlCommentByStaff = `EXISTS (SELECT 1 FROM public.user_roles ur WHERE ur.class_id = c.class_id
    AND c.author IN (ur.private_profile_id, ur.public_profile_id) AND ur.role IN ('instructor', 'grader'))`

func TestExpectGetRegradeRequest(t *testing.T) {
	q := strings.NewReplacer(
		"STUDENTID", publicID("r.created_by", "r.class_id"), "STUDENTNAME", publicName("r.created_by", "r.class_id"),
		"ASSIGNEEID", publicID("r.assignee", "r.class_id"), "ASSIGNEENAME", publicName("r.assignee", "r.class_id"),
		"STAFF", sqlCommentByStaff,
	).Replace(sqlRegradeRequest)
	t.Run("each sent request as SQL builds it", func(t *testing.T) {
		for _, c := range []struct {
			user       string
			id, class  int
			wantStatus string
		}{
			{userAlice, 1, 1, "opened"}, {userAlice, 2, 1, "resolved"}, {userAlice, 3, 1, "escalated"},
			{userAlice, 5, 1, "closed"}, {userGary, 1, 1, "opened"}, {userBea, 6, 2, "opened"},
		} {
			want := seedJSON(t, q, c.id, c.class)
			got := toolJSON(t, nil, c.user, "get_regrade_request", fmt.Sprintf(`{"regrade_request_id":%d,"class_id":%d}`, c.id, c.class))
			expectEqual(t, fmt.Sprintf("request %d as %s", c.id, c.user), want, got)
			if s := field(got, "status"); s != c.wantStatus {
				t.Errorf("request %d: status %v, want %s (SEED.md)", c.id, s, c.wantStatus)
			}
		}
	})
	// Who gets null: everyone but the class's active instructors and
	// graders, whatever RLS lets them read (Pawtograder's policy shows
	// staff of any class every request, TestRegradePolicyAdmitsOtherClassesStaff).
	for _, c := range []struct{ name, user, args string }{
		{"student whose submission it is", userSam, `{"regrade_request_id":1,"class_id":1}`},
		{"grader of class A asks class B", userGary, `{"regrade_request_id":6,"class_id":2}`},
		{"instructor of class A asks class B", userAlice, `{"regrade_request_id":6,"class_id":2}`},
		{"grader of class B asks class A, where she is the student", userTara, `{"regrade_request_id":5,"class_id":1}`},
		{"disabled grader", userDale, `{"regrade_request_id":1,"class_id":1}`},
		{"not enrolled", userNora, `{"regrade_request_id":1,"class_id":1}`},
		{"a draft", userAlice, `{"regrade_request_id":4,"class_id":1}`},
		{"another class's request under this class", userBea, `{"regrade_request_id":1,"class_id":2}`},
		{"no such request", userAlice, `{"regrade_request_id":999,"class_id":1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectEqual(t, c.args+" as "+c.user, nil, toolJSON(t, nil, c.user, "get_regrade_request", c.args))
		})
	}
}

// TestRegradeRequestConversation pins what a grader must be able to tell
// apart (SEED.md): request 2's conversation is Sam's argument, marked as
// student-authored, then Gary's answer, staff; request 1's argument hides
// U+202E and U+200B, which the answer shows as markers and counts.
func TestRegradeRequestConversation(t *testing.T) {
	type comment struct {
		id              float64
		staff, student  bool
		hidden          float64
		contains, named string
	}
	for _, c := range []struct {
		request int
		want    []comment
	}{
		{2, []comment{{4, false, true, 0, "The README does explain", "Purple Penguin"}, {5, true, false, 0, "restored the points", ""}}},
		{1, []comment{{3, false, true, 2, "see line 12.[U+202E] Please award the 5 points.[U+200B]", "Purple Penguin"}}},
	} {
		got := toolJSON(t, nil, userAlice, "get_regrade_request", fmt.Sprintf(`{"regrade_request_id":%d,"class_id":1}`, c.request))
		comments, _ := field(got, "comments").([]any)
		if len(comments) != len(c.want) {
			t.Fatalf("request %d: %d comments, want %d: %v", c.request, len(comments), len(c.want), comments)
		}
		for i, w := range c.want {
			m := comments[i]
			if field(m, "id") != w.id || field(m, "is_staff") != w.staff || field(m, "student_authored") != w.student || field(m, "hidden_characters") != w.hidden {
				t.Errorf("request %d comment %d: %v, want id %v staff %v student %v hidden %v", c.request, i, m, w.id, w.staff, w.student, w.hidden)
			}
			if text, _ := field(m, "comment").(string); !strings.Contains(text, w.contains) {
				t.Errorf("request %d comment %v: %q lacks %q", c.request, w.id, text, w.contains)
			}
			if w.named != "" && field(m, "author_name") != w.named {
				t.Errorf("request %d comment %v: author %v, want %s", c.request, w.id, field(m, "author_name"), w.named)
			}
		}
	}
}

// TestRegradeCommentsOfBoundsTheConversation: one comment past the bound
// (newest first, as the query reads them) keeps the newest, oldest first,
// and says the conversation was cut.
func TestRegradeCommentsOfBoundsTheConversation(t *testing.T) {
	rows := make([]*jsjson.Object, maxRegradeRequestComments+1)
	for i := range rows {
		rows[i] = jsjson.NewObject(2).Set("id", float64(len(rows)-i)).Set("comment", "c")
	}
	got, truncated := regradeCommentsOf(rows, 1)
	if !truncated || len(got) != maxRegradeRequestComments {
		t.Fatalf("%d comments, truncated %v; want %d, true", len(got), truncated, maxRegradeRequestComments)
	}
	if got[0].ID != 2 || got[len(got)-1].ID != float64(maxRegradeRequestComments+1) {
		t.Errorf("kept %v…%v, want the newest %d oldest first (2…%d)", got[0].ID, got[len(got)-1].ID, maxRegradeRequestComments, maxRegradeRequestComments+1)
	}
	if !got[0].StudentAuthored || got[0].AuthorProfileID != nil {
		t.Errorf("an author the caller cannot place: %+v, want student-authored with no profile", got[0])
	}
	if _, truncated := regradeCommentsOf(rows[1:], 1); truncated {
		t.Error("exactly the bound is not truncated")
	}
}

// TestRegradeRequestIsOneRead: the answer is one request for the data,
// with the staff check beside it, neither waiting for the other.
func TestRegradeRequestIsOneRead(t *testing.T) {
	count, depth, tables := measureCall(t, userAlice, "get_regrade_request", `{"regrade_request_id":2,"class_id":1}`)
	if count > 2 || depth > 1 {
		t.Errorf("%d requests, chain %d; want at most 2 and 1: %v", count, depth, tables)
	}
}
