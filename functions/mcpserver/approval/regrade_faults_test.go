package approval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// regradeComments is where a regrade comment's text lands.
var regradeComments = writtenText{table: "submission_regrade_request_comments", column: "comment"}

// regradeReasons is where a regrade decision's reason lands; the approval
// records the request it decided.
var regradeReasons = writtenText{table: "submission_regrade_request_comments", column: "comment", rowID: "submission_regrade_request_id"}

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
		Arguments: []byte(`{"class_id":1}`), Digest: digestOf(marker),
		Preview: Preview{Action: "Post a comment in regrade request #1", As: "Alice", Where: "Regrade request #1", Visibility: "the submission's students",
			Fields:  []PreviewField{{Label: "Sam (student)", Text: studentText, StudentAuthored: true}, {Label: "Your comment", Text: marker}},
			Written: "regrade comment",
			Write: WritePlan{
				Values: map[string]any{"submission_regrade_request_id": 1, "class_id": 1, "author": "20000001-0000-4000-8000-000000000001", "comment": marker}}},
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

// proposeRegradeDecision proposes Alice resolving regrade request 1
// (opened, about a check no comment applies yet) with 2 points, its reason
// the marker, as decide_regrade_request plans it. The reason, the
// decision, the rubric comment the platform adds and the review's new
// total commit together, so the reason's count is the decision's; the
// cleanup restores the seed.
func (h *harness) proposeRegradeDecision(t *testing.T, marker, tokenID string) *ActionState {
	t.Helper()
	h.written = regradeReasons
	t.Cleanup(func() {
		db := h.env.DB(t)
		if _, err := db.Exec(context.Background(), `DELETE FROM public.submission_regrade_request_comments WHERE comment = $1`, marker); err != nil {
			t.Errorf("removing the test's reason: %v", err)
		}
		if _, err := db.Exec(context.Background(), `
			DELETE FROM public.notifications WHERE body->>'type' = 'regrade_request' AND (body->>'regrade_request_id')::bigint = 1;
			UPDATE public.submission_regrade_requests SET submission_comment_id = NULL WHERE id = 1;
			DELETE FROM public.submission_comments WHERE regrade_request_id = 1;
			UPDATE public.submission_regrade_requests SET status = 'opened', resolved_by = NULL, resolved_at = NULL, resolved_points = NULL,
				resolution_reason = NULL, last_commented_at = '2026-01-23T10:00:00Z',
				last_commented_by = '20000001-0000-4000-8000-000000000003', last_updated_at = '2026-01-23T10:00:00Z' WHERE id = 1;
			UPDATE public.submission_reviews SET total_score = 30 WHERE id = 7`); err != nil {
			t.Errorf("restoring the seed: %v", err)
		}
	})
	st, err := h.svc.Propose(context.Background(), Proposal{
		UserID: gatewaytest.Alice, TokenID: tokenID,
		ClassID: 1, Tool: "decide_regrade_request",
		Arguments: []byte(`{"class_id":1}`), Digest: digestOf(marker),
		Preview: Preview{Action: "Resolve regrade request #1 with 2 points", As: "Alice", Where: "Regrade request #1", Visibility: "the submission's students",
			Fields:  []PreviewField{{Label: "Sam (student)", Text: studentText, StudentAuthored: true}, {Label: "Your reason", Text: marker}},
			Written: "regrade request",
			Write: WritePlan{
				Values: map[string]any{"regrade_request_id": 1, "class_id": 1, "author": "20000001-0000-4000-8000-000000000001",
					"new_status": "resolved", "points": 2, "reason": marker},
				Expect: map[string]any{"status": "opened", "resolved_at": nil, "escalated_at": nil}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRegradeDecisionApprovalFaults interrupts the approval of a regrade
// decision at each point TestApprovalFaults does.
func TestRegradeDecisionApprovalFaults(t *testing.T) {
	runApprovalFaults(t, (*harness).proposeRegradeDecision)
}

// TestRegradeDecidedSinceTheProposal: a request resolved by someone else
// after the proposal is not decided again; the page and the record say so
// in fixed words, and neither the reason nor the points are written.
func TestRegradeDecidedSinceTheProposal(t *testing.T) {
	h := newHarness(t)
	marker := fmt.Sprintf("regrade decided since %d", time.Now().UnixNano())
	st := h.proposeRegradeDecision(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	if _, err := h.env.DB(t).Exec(context.Background(), `UPDATE public.submission_regrade_requests SET status = 'resolved', resolved_at = now(), resolved_points = 0 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	_, out := decide(t, b, st.ApprovalURL, page, "approve")
	want := "The regrade request changed since the proposal: it was opened and is now resolved, so it was not decided again and nothing was written."
	if got := title(out); got != "Approved, but not written" || !containsText(out, want) {
		t.Errorf("page %q, want Approved, but not written with %q:\n%s", got, want, out)
	}
	if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StateFailed || got.Failure != want {
		t.Errorf("recorded %q %q, want failed with %q", got.State, got.Failure, want)
	}
	var comments int
	var points float64
	if err := h.env.DB(t).QueryRow(context.Background(), `SELECT (SELECT count(*) FROM public.submission_comments WHERE regrade_request_id = 1),
		(SELECT resolved_points FROM public.submission_regrade_requests WHERE id = 1)::float8`).Scan(&comments, &points); err != nil || comments != 0 || points != 0 {
		t.Errorf("decided since: %d rubric comments, points %v (%v); want none and 0", comments, points, err)
	}
}
