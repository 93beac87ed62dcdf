package approval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// alteration is one change to a stored plan: a value of the plan set to
// JSON, at path (["values", "points"] under the plan's "write").
type alteration struct {
	path []string
	json string
}

// TestAlteredPlanRefused alters, in storage, each value of a grading
// write's plan that the person saw or its write depends on, then approves
// on the page: the SQL function checks each again, so the approval is
// refused in fixed words, recorded as failed, and nothing is written.
func TestAlteredPlanRefused(t *testing.T) {
	sam := `"20000001-0000-4000-8000-000000000003"` // the student's own profile
	tests := []struct {
		name    string
		propose func(h *harness, t *testing.T, marker, tokenID string) *ActionState
		alter   []alteration
		failure string
		detail  map[string]string
	}{
		{"decision: points below 0", (*harness).proposeRegradeDecision, []alteration{{[]string{"values", "points"}, `-50`}}, failRefused, nil},
		{"decision: points past the bound", (*harness).proposeRegradeDecision, []alteration{{[]string{"values", "points"}, `100001`}}, failRefused, nil},
		{"decision: another status", (*harness).proposeRegradeDecision, []alteration{{[]string{"values", "new_status"}, `"escalated"`}}, failRefused, nil},
		{"decision: another author", (*harness).proposeRegradeDecision, []alteration{{[]string{"values", "author"}, sam}}, failNotAllowed, nil},
		{"decision: another class", (*harness).proposeRegradeDecision, []alteration{{[]string{"values", "class_id"}, `2`}}, failTargetGone, nil},
		{"decision: another class's request", (*harness).proposeRegradeDecision, []alteration{{[]string{"values", "regrade_request_id"}, `6`}}, failTargetGone, nil},
		{"decision: a file for a check that is no annotation", (*harness).proposeRegradeDecision,
			[]alteration{{[]string{"values", "submission_file_id"}, `6`}, {[]string{"values", "line"}, `1`}}, failRefused, nil},
		{"decision: a file of another submission", (*harness).proposeRegradeDecision,
			[]alteration{{[]string{"values", "submission_file_id"}, `2`}, {[]string{"values", "line"}, `1`}}, failRefused, nil},
		{"decision: a file without its line", (*harness).proposeRegradeDecision, []alteration{{[]string{"values", "submission_file_id"}, `6`}}, failRefused, nil},
		{"decision: the status the preview showed", (*harness).proposeRegradeDecision, []alteration{{[]string{"expect", "status"}, `"resolved"`}},
			failRegradeDecided, map[string]string{"was": "resolved", "status": "opened"}},
		{"rubric: points past the check's", (*harness).proposeRubricComment, []alteration{{[]string{"values", "points"}, `99`}}, failRefused, nil},
		{"rubric: points of the other sign", (*harness).proposeRubricComment, []alteration{{[]string{"values", "points"}, `-50`}}, failRefused, nil},
		{"rubric: another author", (*harness).proposeRubricComment, []alteration{{[]string{"values", "author"}, sam}}, failNotAllowed, nil},
		{"rubric: a check of another rubric", (*harness).proposeRubricComment, []alteration{{[]string{"values", "rubric_check_id"}, `6`}}, failTargetGone, nil},
		{"rubric: a check of another class", (*harness).proposeRubricComment, []alteration{{[]string{"values", "rubric_check_id"}, `8`}}, failTargetGone, nil},
		{"rubric: another submission", (*harness).proposeRubricComment, []alteration{{[]string{"values", "submission_id"}, `2`}}, failTargetGone, nil},
		{"rubric: another class", (*harness).proposeRubricComment, []alteration{{[]string{"values", "class_id"}, `2`}}, failTargetGone, nil},
		{"rubric: another review", (*harness).proposeRubricComment, []alteration{{[]string{"values", "submission_review_id"}, `99`}}, failTargetGone, nil},
		{"rubric: the release the preview showed", (*harness).proposeRubricComment, []alteration{{[]string{"expect", "released"}, `false`}},
			failReviewChanged, map[string]string{"released": "true"}},
		{"rubric: a file for a check that is no annotation", (*harness).proposeRubricComment,
			[]alteration{{[]string{"values", "submission_file_id"}, `6`}, {[]string{"values", "line"}, `1`}}, failRefused, nil},
		{"rubric: an annotation without its file", (*harness).proposeRubricComment,
			[]alteration{{[]string{"values", "rubric_check_id"}, `3`}, {[]string{"values", "points"}, `-2`}}, failRefused, nil},
		{"rubric: an annotation on a file its check does not name", (*harness).proposeRubricComment,
			[]alteration{{[]string{"values", "rubric_check_id"}, `3`}, {[]string{"values", "points"}, `-2`},
				{[]string{"values", "submission_file_id"}, `7`}, {[]string{"values", "line"}, `1`}}, failRefused, nil},
		{"rubric: an annotation on another submission's file", (*harness).proposeRubricComment,
			[]alteration{{[]string{"values", "rubric_check_id"}, `3`}, {[]string{"values", "points"}, `-2`},
				{[]string{"values", "submission_file_id"}, `2`}, {[]string{"values", "line"}, `1`}}, failRefused, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			marker := fmt.Sprintf("altered plan %s %d", tt.name, time.Now().UnixNano())
			st := tt.propose(h, t, marker, "")
			for _, a := range tt.alter {
				path := append([]string{"write"}, a.path...)
				if _, err := h.env.DB(t).Exec(context.Background(), `UPDATE public.mcp_pending_actions
					SET preview = jsonb_set(preview, $2::text[], $3::jsonb) WHERE id = $1`, st.ActionID, path, a.json); err != nil {
					t.Fatal(err)
				}
			}
			b := browser(t)
			_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
			_, out := decide(t, b, st.ApprovalURL, page, "approve")
			want := failureText(tt.failure, tt.detail)
			if got := title(out); got != "Approved, but not written" || !containsText(out, want) {
				t.Errorf("page %q, want Approved, but not written with %q:\n%s", got, want, out)
			}
			if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StateFailed || got.Failure != want {
				t.Errorf("recorded %q %q, want failed with %q", got.State, got.Failure, want)
			}
			h.assertGradingUntouched(t, marker)
		})
	}
}

// assertGradingUntouched checks that no grading write of the test was
// made: no comment with marker anywhere a grading write puts one, and
// regrade request 1 and review 7 as the seed has them.
func (h *harness) assertGradingUntouched(t *testing.T, marker string) {
	t.Helper()
	var comments int
	var status string
	var total float64
	if err := h.env.DB(t).QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM public.submission_comments WHERE comment = $1 OR regrade_request_id = 1)
		+ (SELECT count(*) FROM public.submission_file_comments WHERE comment = $1)
		+ (SELECT count(*) FROM public.submission_regrade_request_comments WHERE comment = $1),
		(SELECT status::text FROM public.submission_regrade_requests WHERE id = 1),
		(SELECT total_score::float8 FROM public.submission_reviews WHERE id = 7)`, marker).Scan(&comments, &status, &total); err != nil {
		t.Fatal(err)
	}
	if comments != 0 || status != "opened" || total != 30 {
		t.Errorf("written: %d comments, request 1 %s, review 7 total %v; want none, opened, 30", comments, status, total)
	}
}
