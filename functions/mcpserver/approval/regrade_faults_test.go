package approval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// regradeComments is where a regrade comment's text lands.
var regradeComments = writtenText{"submission_regrade_request_comments", "comment"}

// proposeRegradeComment proposes Alice's comment marker on regrade request
// 1 (opened), as comment_on_regrade_request plans it. The comment, if
// approved, is deleted after the test and the request's last comment (set
// by Pawtograder's trigger, and shown by list_regrade_requests) restored:
// on the real-schema route every package shares one database.
func (h *harness) proposeRegradeComment(t *testing.T, marker, tokenID string) *ActionState {
	t.Helper()
	h.written = regradeComments
	t.Cleanup(func() {
		db := h.env.DB(t)
		// Pawtograder's comment trigger notifies the request's participants
		// (the fixture schema has no notifications).
		if _, err := db.Exec(context.Background(), `DO $$ BEGIN
			IF to_regclass('public.notifications') IS NOT NULL THEN
				DELETE FROM public.notifications WHERE body->>'action' = 'new_comment' AND (body->>'regrade_request_id')::bigint = 1
					AND created_at > now() - interval '1 hour';
			END IF;
		END $$`); err != nil {
			t.Errorf("removing the test's notifications: %v", err)
		}
		if _, err := db.Exec(context.Background(), `DELETE FROM public.submission_regrade_request_comments WHERE comment = $1`, marker); err != nil {
			t.Errorf("removing the test's comment: %v", err)
		}
		if _, err := db.Exec(context.Background(), `UPDATE public.submission_regrade_requests SET status = 'opened',
			last_commented_at = '2026-01-23T10:00:00Z', last_commented_by = '20000001-0000-4000-8000-000000000003' WHERE id = 1`); err != nil {
			t.Errorf("restoring the seed: %v", err)
		}
	})
	st, err := h.svc.Propose(context.Background(), Proposal{
		UserID: gatewaytest.Alice, TokenID: tokenID,
		ClassID: 1, Tool: "comment_on_regrade_request",
		Arguments: []byte(`{"class_id":1}`), Digest: "d1",
		Preview: Preview{Action: "Post a comment in regrade request #1", As: "Alice", Where: "Regrade request #1", Visibility: "the submission's students",
			Fields: []PreviewField{{Label: "Sam (student)", Text: studentText, StudentAuthored: true}, {Label: "Your comment", Text: marker}},
			Write: WritePlan{Table: "submission_regrade_request_comments", Op: "insert",
				Values: map[string]any{"submission_regrade_request_id": 1, "class_id": 1, "author": "20000001-0000-4000-8000-000000000001", "comment": marker},
				Expect: map[string]any{"status": "opened"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRegradeCommentApprovalFaults interrupts the approval of a regrade
// comment at each point TestApprovalFaults does: the page says what is
// known, the record equals the data, and approving again writes once.
func TestRegradeCommentApprovalFaults(t *testing.T) {
	runApprovalFaults(t, (*harness).proposeRegradeComment)
}

// TestRegradeClosedSinceTheProposal: a request an instructor closed after
// the proposal takes no comment; the page and the recorded failure say so
// in fixed words, and nothing is written.
func TestRegradeClosedSinceTheProposal(t *testing.T) {
	h := newHarness(t)
	marker := fmt.Sprintf("regrade closed since %d", time.Now().UnixNano())
	st := h.proposeRegradeComment(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	if _, err := h.env.DB(t).Exec(context.Background(), `UPDATE public.submission_regrade_requests SET status = 'closed' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	_, out := decide(t, b, st.ApprovalURL, page, "approve")
	want := "The regrade request is now closed, and its conversation takes no more comments, so nothing was written."
	if got := title(out); got != "Approved, but not written" || !containsText(out, want) {
		t.Errorf("page %q, want Approved, but not written with %q:\n%s", got, want, out)
	}
	if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StateFailed || got.Failure != want {
		t.Errorf("recorded %q %q, want failed with %q", got.State, got.Failure, want)
	}
	if n := h.messages(t, marker); n != 0 {
		t.Errorf("%d comments written, want 0", n)
	}
}
