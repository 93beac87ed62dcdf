package approval

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

const (
	alicePrivate = "20000001-0000-4000-8000-000000000001"
	garyPrivate  = "20000001-0000-4000-8000-000000000002"
)

// restoreRequest1 puts help request 1 back as the seed has it (open, no
// one assigned), removing the system messages Pawtograder's triggers add
// on a status change.
func (h *harness) restoreRequest1(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		if _, err := h.env.DB(t).Exec(context.Background(), `
			DELETE FROM public.help_request_messages WHERE help_request_id = 1 AND is_system_message AND created_at > now() - interval '1 hour';
			DO $$ BEGIN
				IF to_regclass('public.help_request_work_sessions') IS NOT NULL THEN
					DELETE FROM public.help_request_work_sessions WHERE help_request_id = 1 AND created_at > now() - interval '1 hour';
				END IF;
			END $$;
			UPDATE public.help_requests SET status = 'open', assignee = NULL, resolved_by = NULL, resolved_at = NULL, resolution_status = NULL WHERE id = 1`); err != nil {
			t.Errorf("restoring help request 1: %v", err)
		}
	})
}

// proposeTakeRequest1 proposes Alice taking open help request 1, as
// set_help_request_status plans it.
func (h *harness) proposeTakeRequest1(t *testing.T) *ActionState {
	t.Helper()
	st, err := h.svc.Propose(context.Background(), Proposal{
		UserID:  gatewaytest.Alice,
		ClassID: 1, Tool: "set_help_request_status",
		Arguments: []byte(`{"class_id":1,"help_request_id":1,"status":"in_progress"}`), Digest: "d2",
		Preview: Preview{Action: "Change the status of help request #1 to in_progress", As: "Alice", Where: "Help request #1", Visibility: "class",
			Fields:  []PreviewField{{Label: "The change", Text: "Status open → in_progress; assigned to you"}},
			Written: "help request",
			Write: WritePlan{
				Match:  map[string]string{"id": "1", "class_id": "1"},
				Values: map[string]any{"status": "in_progress", "assignee": alicePrivate},
				Expect: map[string]any{"status": "open", "assignee": nil}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (h *harness) approveAs(t *testing.T, link string) (int, string) {
	t.Helper()
	b := browser(t)
	_, page := signIn(t, b, h.env, link, gatewaytest.Alice)
	return decide(t, b, link, page, "approve")
}

// TestConditionalWrites: a write applies only while its target is as the
// preview showed it; otherwise nothing is written, the action fails with
// a fixed text saying what changed, and the page and the tool say so.
func TestConditionalWrites(t *testing.T) {
	h := newHarness(t)
	db := h.env.DB(t)
	ctx := context.Background()

	t.Run("status changed by another grader since the proposal", func(t *testing.T) {
		h.restoreRequest1(t)
		st := h.proposeTakeRequest1(t)
		if _, err := db.Exec(ctx, `UPDATE public.help_requests SET status = 'resolved', resolved_by = $1, resolved_at = now() WHERE id = 1`, garyPrivate); err != nil {
			t.Fatal(err)
		}
		status, page := h.approveAs(t, st.ApprovalURL)
		want := "The help request changed since the proposal: it was open and is now resolved, so nothing was changed."
		if got := fmt.Sprint(status, " ", title(page)); got != "200 Approved, but not written" || !containsText(page, want) {
			t.Errorf("page %q lacks %q", got, want)
		}
		var status1, resolvedBy string
		var assignee *string
		if err := db.QueryRow(ctx, `SELECT status::text, assignee::text, resolved_by::text FROM public.help_requests WHERE id = 1`).Scan(&status1, &assignee, &resolvedBy); err != nil {
			t.Fatal(err)
		}
		if status1 != "resolved" || assignee != nil || resolvedBy != garyPrivate {
			t.Errorf("request 1 is %s, assignee %v, resolved by %s; want resolved by Gary, unassigned", status1, assignee, resolvedBy)
		}
		got, err := h.svc.State(ctx, gatewaytest.Alice, st.ActionID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != StateFailed || got.Failure != want || got.RowID != "" {
			t.Errorf("state %+v; want failed with %q", got, want)
		}
	})

	t.Run("taken by someone else since the proposal", func(t *testing.T) {
		h.restoreRequest1(t)
		st := h.proposeTakeRequest1(t)
		if _, err := db.Exec(ctx, `UPDATE public.help_requests SET assignee = $1 WHERE id = 1`, garyPrivate); err != nil {
			t.Fatal(err)
		}
		_, page := h.approveAs(t, st.ApprovalURL)
		if want := "Someone else took the help request since the proposal, so nothing was changed."; !containsText(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	})

	t.Run("reply to a request resolved since the proposal", func(t *testing.T) {
		h.restoreRequest1(t)
		marker := fmt.Sprintf("too late %d", time.Now().UnixNano())
		st := h.proposeReply(t, marker, "")
		if _, err := db.Exec(ctx, `UPDATE public.help_requests SET status = 'closed' WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
		_, page := h.approveAs(t, st.ApprovalURL)
		want := "The help request is now closed, and its chat takes no more replies, so nothing was written."
		if !containsText(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
		if n := h.messages(t, marker); n != 0 {
			t.Errorf("%d messages written, want 0", n)
		}
		got, _ := h.svc.State(ctx, gatewaytest.Alice, st.ActionID)
		if got == nil || got.State != StateFailed || got.Failure != want {
			t.Errorf("state %+v; want failed with %q", got, want)
		}
	})

	t.Run("as proposed: written once", func(t *testing.T) {
		h.restoreRequest1(t)
		st := h.proposeTakeRequest1(t)
		status, page := h.approveAs(t, st.ApprovalURL)
		if got := fmt.Sprint(status, " ", title(page)); got != "200 Approved and written" {
			t.Fatalf("page %q", got)
		}
		var status1, assignee string
		if err := db.QueryRow(ctx, `SELECT status::text, assignee::text FROM public.help_requests WHERE id = 1`).Scan(&status1, &assignee); err != nil {
			t.Fatal(err)
		}
		if status1 != "in_progress" || assignee != alicePrivate {
			t.Errorf("request 1 is %s assigned to %s", status1, assignee)
		}
	})
}

// TestSessionBoundToItsAction: a sign-in decides only the action whose
// link started it, and two approval tabs in one browser each work.
func TestSessionBoundToItsAction(t *testing.T) {
	h := newHarness(t)
	markerA := fmt.Sprintf("tab A %d", time.Now().UnixNano())
	markerB := fmt.Sprintf("tab B %d", time.Now().UnixNano())
	a := h.proposeReply(t, markerA, "")
	bAction := h.proposeReply(t, markerB, "")
	b := browser(t)
	_, pageA := signIn(t, b, h.env, a.ApprovalURL, gatewaytest.Alice)
	// Signed in for A only: B's page starts a sign-in of its own, and a
	// decision for B (with a valid form token) is refused.
	if _, page := get(t, b, bAction.ApprovalURL); stateParam.FindStringSubmatch(page) == nil {
		t.Fatalf("B's link opened without signing in for B: %q", title(page))
	}
	status, out := post(t, b, bAction.ApprovalURL, url.Values{"csrf_token": {h.svc.csrfToken(bAction.ActionID, gatewaytest.Alice)}, "decision": {"approve"}})
	if got := fmt.Sprint(status, " ", title(out)); got != "403 Sign in first" {
		t.Errorf("deciding B with A's sign-in: %q", got)
	}
	if n := h.messages(t, markerB); n != 0 {
		t.Fatalf("B was written with A's sign-in")
	}
	// Now B's tab signs in too; A's tab, opened first, still decides A.
	_, pageB := signIn(t, b, h.env, bAction.ApprovalURL, gatewaytest.Alice)
	if _, done := decide(t, b, a.ApprovalURL, pageA, "approve"); title(done) != "Approved and written" {
		t.Errorf("tab A after tab B signed in: %q", title(done))
	}
	if _, done := decide(t, b, bAction.ApprovalURL, pageB, "approve"); title(done) != "Approved and written" {
		t.Errorf("tab B: %q", title(done))
	}
	if h.messages(t, markerA) != 1 || h.messages(t, markerB) != 1 {
		t.Errorf("messages A %d, B %d; want 1 each", h.messages(t, markerA), h.messages(t, markerB))
	}
}

// TestSessionExpires: a sign-in past its own expiry decides nothing, even
// while the browser still sends the cookie and the action is pending.
func TestSessionExpires(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{ttl: time.Hour})
	marker := fmt.Sprintf("late decision %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	h.offset.Store(int64(signInTTL + time.Minute))
	status, out := decide(t, b, st.ApprovalURL, page, "approve")
	if got := fmt.Sprint(status, " ", title(out)); got != "403 Sign in first" {
		t.Errorf("decision after the sign-in expired: %q", got)
	}
	if n := h.messages(t, marker); n != 0 {
		t.Errorf("%d messages written, want 0", n)
	}
	if got, _ := h.svc.State(context.Background(), gatewaytest.Alice, st.ActionID); got == nil || got.State != StatePending {
		t.Errorf("state %+v, want pending", got)
	}
}

// TestPendingLimit: a person with MaxPending proposals waiting gets a
// refusal that says how to clear them; deciding one makes room.
func TestPendingLimit(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{maxPending: 2})
	if _, err := h.env.DB(t).Exec(context.Background(), `UPDATE public.mcp_pending_actions SET state = 'expired' WHERE user_id = $1 AND state = 'pending'`, gatewaytest.Alice); err != nil {
		t.Fatal(err)
	}
	first := h.proposeReply(t, "limit 1", "")
	h.proposeReply(t, "limit 2", "")
	_, err := h.svc.Propose(context.Background(), Proposal{UserID: gatewaytest.Alice, ClassID: 1,
		Tool: "reply_to_help_request", Arguments: []byte(`{}`), Digest: "d3", Preview: Preview{Action: "x"}})
	want := "You have 2 proposals waiting for approval, the most allowed at once; nothing was proposed. Approve or reject them at their links, or wait: each lapses 10 minutes after it was proposed. Then propose this again."
	var refused *RefusedError
	if !asRefused(err, &refused) || refused.Message != want || refused.Fault {
		t.Fatalf("third proposal: %v; want %q", err, want)
	}
	b := browser(t)
	_, page := signIn(t, b, h.env, first.ApprovalURL, gatewaytest.Alice)
	decide(t, b, first.ApprovalURL, page, "reject")
	h.proposeReply(t, "limit 3", "")
}

// TestPurge deletes actions past the retention, in batches, and keeps the
// rest; a purge already running makes another return at once.
func TestPurge(t *testing.T) {
	h := newHarness(t)
	db := h.env.DB(t)
	ctx := context.Background()
	if _, err := db.Exec(ctx, `INSERT INTO public.mcp_pending_actions (user_id, class_id, tool, arguments, argument_digest, preview, state, created_at, expires_at, decided_at)
		SELECT $1, 1, 'reply_to_help_request', '{}', 'purge-test', '{}', 'rejected', now() - interval '40 days', now() - interval '40 days' + interval '10 minutes', now() - interval '40 days'
		FROM generate_series(1, 1203)`, gatewaytest.Alice); err != nil {
		t.Fatal(err)
	}
	recent := h.proposeReply(t, "purge keeps me", "")
	if n := h.svc.purgeOnce(ctx); n < 1203 {
		t.Errorf("purged %d, want at least 1203", n)
	}
	var left int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM public.mcp_pending_actions WHERE argument_digest = 'purge-test'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d old actions left, %v", left, err)
	}
	if st, err := h.svc.State(ctx, gatewaytest.Alice, recent.ActionID); err != nil || st.State != StatePending {
		t.Errorf("a recent action was purged: %+v, %v", st, err)
	}
	// A purge running elsewhere holds the lock: this one deletes nothing.
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('mcp_pending_actions:purge', 0))`); err != nil {
		t.Fatal(err)
	}
	if n, err := NewPostgRESTStore(h.env.ServiceREST(t)).Purge(ctx, time.Now(), 10); err != nil || n != 0 {
		t.Errorf("purge beside a running one: %d, %v; want 0", n, err)
	}
}

func asRefused(err error, out **RefusedError) bool { return errors.As(err, out) }

// containsText reports whether page shows text (HTML-escaped as the
// templates escape it).
func containsText(page, text string) bool {
	return strings.Contains(html.UnescapeString(page), text)
}

// TestProposalMadeAgainReplacesTheLost: a proposal whose answer was lost
// leaves a pending row nobody has the link to. The same call made again
// expires it, so it does not count toward the limit, and its link says it
// expired; another call still meets the limit.
func TestProposalMadeAgainReplacesTheLost(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{maxPending: 1})
	if _, err := h.env.DB(t).Exec(context.Background(), `UPDATE public.mcp_pending_actions SET state = 'expired' WHERE user_id = $1 AND state = 'pending'`, gatewaytest.Alice); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("retried %d", time.Now().UnixNano())
	lost := h.proposeReply(t, marker, "") // its answer never reached the assistant
	again := h.proposeReply(t, marker, "")
	if again.ActionID == lost.ActionID {
		t.Fatal("the retry returned the lost action")
	}
	if got, err := h.svc.State(context.Background(), gatewaytest.Alice, lost.ActionID); err != nil || got.State != StateExpired {
		t.Errorf("the lost proposal: %+v %v, want expired", got, err)
	}
	if _, page := signIn(t, browser(t), h.env, lost.ApprovalURL, gatewaytest.Alice); title(page) != "This link has expired" {
		t.Errorf("the lost proposal's link: %q", title(page))
	}
	_, err := h.svc.Propose(context.Background(), Proposal{UserID: gatewaytest.Alice, ClassID: 1,
		Tool: "reply_to_help_request", Arguments: []byte(`{}`), Digest: "another call", Preview: Preview{Action: "x"}})
	var refused *RefusedError
	if !asRefused(err, &refused) {
		t.Errorf("another call past the limit: %v, want refused", err)
	}
}
