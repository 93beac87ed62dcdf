package approval

import (
	"context"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// rubricComments is where a rubric comment's text lands.
var rubricComments = writtenText{table: "submission_comments", column: "comment"}

// proposeRubricComment proposes Alice applying "Single method" (5 points)
// to submission 3's released review 7, the comment the marker, as
// add_rubric_comment plans it. The comment and the review's recomputed
// total commit together; the cleanup restores the seed.
func (h *harness) proposeRubricComment(t *testing.T, marker, tokenID string) *ActionState {
	t.Helper()
	h.written = rubricComments
	t.Cleanup(func() {
		db := h.env.DB(t)
		if _, err := db.Exec(context.Background(), `DELETE FROM public.submission_comments WHERE comment = $1`, marker); err != nil {
			t.Errorf("removing the test's comment: %v", err)
		}
		if _, err := db.Exec(context.Background(), `UPDATE public.submission_reviews SET total_score = 30 WHERE id = 7`); err != nil {
			t.Errorf("restoring the seed: %v", err)
		}
	})
	st, err := h.svc.Propose(context.Background(), Proposal{
		UserID: gatewaytest.Alice, TokenID: tokenID,
		ClassID: 1, Tool: "add_rubric_comment",
		Arguments: []byte(`{"class_id":1}`), Digest: digestOf(marker),
		Preview: Preview{Action: `Apply rubric check "Single method" to submission #3 with 5 points`, As: "Alice", Where: "Submission #3", Visibility: "the submission's students",
			Fields:  []PreviewField{{Label: "The rubric check", Text: "Single method"}, {Label: "Your comment", Text: marker}},
			Written: "rubric comment",
			Write: WritePlan{
				Values: map[string]any{"class_id": 1, "submission_id": 3, "rubric_check_id": 4, "submission_review_id": 7,
					"author": "20000001-0000-4000-8000-000000000001", "comment": marker, "points": 5},
				Expect: map[string]any{"released": true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRubricCommentApprovalFaults interrupts the approval of a rubric
// comment at each point TestApprovalFaults does.
func TestRubricCommentApprovalFaults(t *testing.T) {
	runApprovalFaults(t, (*harness).proposeRubricComment)
}
