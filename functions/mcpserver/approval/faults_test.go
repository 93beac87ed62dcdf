package approval

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// assertRecordEqualsData checks that the action's recorded state is what
// the data shows: approved with the one row written, or not approved and
// nothing written. Both are read in one statement, so in one snapshot: a
// transaction committing meanwhile is seen whole or not at all.
func (h *harness) assertRecordEqualsData(t *testing.T, actionID, marker string) *ActionState {
	t.Helper()
	idColumn := h.written.rowID
	if idColumn == "" {
		idColumn = "id"
	}
	q := fmt.Sprintf(`SELECT a.state, coalesce(a.written_row_id, ''), coalesce(a.failure, ''), coalesce(a.failure_detail, '{}'),
		(SELECT coalesce(string_agg(w.%s::text, ','), '') FROM public.%s AS w WHERE w.%s = $2)
		FROM public.mcp_pending_actions AS a WHERE a.id = $1`, idColumn, h.written.table, h.written.column)
	st := &ActionState{ActionID: actionID}
	var failure, row string
	var detail map[string]string
	if err := h.env.DB(t).QueryRow(context.Background(), q, actionID, marker).Scan(&st.State, &st.RowID, &failure, &detail, &row); err != nil {
		t.Fatal(err)
	}
	if st.State == StateFailed {
		st.Failure = failureText(failure, detail)
	}
	switch {
	case st.State == StateApproved && (row == "" || st.RowID != row):
		t.Errorf("recorded approved with row %q, the data holds %q", st.RowID, row)
	case st.State != StateApproved && row != "":
		t.Errorf("recorded %s, yet row %s was written", st.State, row)
	}
	return st
}

// TestApprovalFaults interrupts an approval at each point between the
// gateway and the database, through a fault proxy in front of the REST
// API, and checks what the page says, that the record equals the data,
// and that approving again writes at most once.
func TestApprovalFaults(t *testing.T) {
	runApprovalFaults(t, (*harness).proposeReply)
}

// approvalFault is one interruption of an approval.
type approvalFault struct {
	name      string
	rules     []gatewaytest.FaultRule
	wantTitle string // the page after the faulted approval
	wantState string // recorded after the faulted approval
}

// runApprovalFaults runs every interruption point against the write that
// propose makes.
func runApprovalFaults(t *testing.T, propose func(h *harness, t *testing.T, marker, tokenID string) *ActionState) {
	tests := []approvalFault{
		{name: "before the decision: the approval never arrives",
			rules:     []gatewaytest.FaultRule{{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: gatewaytest.DropRequest}},
			wantTitle: "Not confirmed yet", wantState: StatePending},
		{name: "after the write: its answer is lost",
			rules:     []gatewaytest.FaultRule{{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: gatewaytest.DropAnswer}},
			wantTitle: "Already approved", wantState: StateApproved},
		{name: "after the write: its answer is cut short",
			rules:     []gatewaytest.FaultRule{{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: gatewaytest.TruncateAnswer}},
			wantTitle: "Already approved", wantState: StateApproved},
		{name: "the answer late past the deadline",
			rules:     []gatewaytest.FaultRule{{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: gatewaytest.DelayAnswer, Delay: 3 * time.Second}},
			wantTitle: "Already approved", wantState: StateApproved},
		{name: "the answer lost and the read-back too",
			rules: []gatewaytest.FaultRule{
				{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: gatewaytest.DropAnswer},
				{Match: gatewaytest.RPCTo("mcp_pending_action_state"), Fault: gatewaytest.DropAnswer, Skip: 1}},
			wantTitle: "Pawtograder did not answer", wantState: StateApproved},
		{name: "before the decision: the proposal cannot be read",
			rules:     []gatewaytest.FaultRule{{Match: gatewaytest.RPCTo("mcp_pending_action_state"), Fault: gatewaytest.DropRequest}},
			wantTitle: "Pawtograder is unavailable", wantState: StatePending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := stack.Env(t)
			proxy := gatewaytest.NewFaultProxy(t, env.RestURL[:len(env.RestURL)-len("/rest/v1")])
			h := newHarnessWith(t, harnessOptions{restURL: proxy.URL + "/rest/v1", writeTimeout: time.Second})
			marker := fmt.Sprintf("faulted %s %d", tt.name, time.Now().UnixNano())
			st := propose(h, t, marker, "")
			b := browser(t)
			_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
			for _, r := range tt.rules {
				proxy.Add(r)
			}
			_, out := decide(t, b, st.ApprovalURL, page, "approve")
			if got := title(out); got != tt.wantTitle {
				t.Errorf("page after the fault: %q, want %q\n%s", got, tt.wantTitle, out)
			}
			for _, r := range tt.rules {
				if proxy.Hits(r.Fault) == 0 {
					t.Fatalf("fault %d never happened", r.Fault)
				}
			}
			// The late answer's transaction may still be running.
			h.waitNoApprovalRunning(t)
			got := h.assertRecordEqualsData(t, st.ActionID, marker)
			if got.State != tt.wantState {
				t.Fatalf("recorded %q, want %q", got.State, tt.wantState)
			}
			// Approving again, as the page advises, writes at most once.
			h.approveAgainWritesOnce(t, st, got.State, marker)
		})
	}
}

// TestClosedTabDoesNotCancelTheWrite: the action's row is locked
// elsewhere, so the approval waits in the database, while the browser
// gives up on its request. The gateway's decision runs to its own
// deadline, not the browser's: once the lock is gone the write completes,
// is recorded, and the gateway itself audits it as written (a decision
// cancelled with the browser's request would leave the statement to the
// REST API and never learn its outcome).
func TestClosedTabDoesNotCancelTheWrite(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{writeTimeout: 10 * time.Second})
	ctx := context.Background()
	marker := fmt.Sprintf("closed tab %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	lock, err := h.env.DB(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback(ctx) }()
	if _, err := lock.Exec(ctx, `SELECT 1 FROM public.mcp_pending_actions WHERE id = $1 FOR UPDATE`, st.ActionID); err != nil {
		t.Fatal(err)
	}
	b.Timeout = 500 * time.Millisecond // the tab closes while the approval waits
	m := csrfField.FindStringSubmatch(page)
	if _, err := b.PostForm(st.ApprovalURL, map[string][]string{"csrf_token": {m[1]}, "decision": {"approve"}}); err == nil {
		t.Fatal("the browser's request did not time out")
	}
	waitUntil(t, 5*time.Second, func() bool { return h.lockWaiters(t) > 0 }, "no approval waits on the lock after the tab closed")
	if err := lock.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	h.waitNoApprovalRunning(t)
	if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StateApproved {
		t.Fatalf("after the tab closed: %s, want approved", got.State)
	}
	written := fmt.Sprintf(`"event":"written","user_id":%q`, gatewaytest.Alice)
	waitUntil(t, 5*time.Second, func() bool {
		return strings.Contains(h.audit.String(), written) && strings.Contains(h.audit.String(), st.ActionID)
	}, "the gateway never audited the write as its own")
	if n := h.messages(t, marker); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

// waitDatabaseQuiet waits until no other session of the database is in a
// statement or a transaction, three looks in a row, so that a request the
// REST API had sent before PostgreSQL stopped has run.
func (h *harness) waitDatabaseQuiet(t *testing.T) {
	t.Helper()
	quiet := 0
	waitUntil(t, 10*time.Second, func() bool {
		var n int
		if err := h.env.DB(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND state IN ('active', 'idle in transaction')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			quiet++
		} else {
			quiet = 0
		}
		return quiet >= 3
	}, "the database is still busy after 10 s")
}

// lockWaiters counts the backends waiting on a lock.
func (h *harness) lockWaiters(t *testing.T) int {
	t.Helper()
	var n int
	if err := h.env.DB(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitUntil polls cond until it holds, failing with msg after limit.
func waitUntil(t *testing.T, limit time.Duration, cond func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestApprovalNeedsItsOwnToken: the approval's SQL function refuses a
// person's own session token (or any token not minted for this action),
// so nothing but the gateway's page can approve.
func TestApprovalNeedsItsOwnToken(t *testing.T) {
	h := newHarness(t)
	marker := fmt.Sprintf("direct %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	other := h.proposeReply(t, marker+" other", "")
	users := userclient.NewFactory(userclient.Options{RestURL: h.env.RestURL, AnonKey: h.env.AnonKey, SigningJWK: h.env.SigningJWK})
	forOther, err := users.ForApproval(context.Background(), gatewaytest.Alice, other.ActionID)
	if err != nil {
		t.Fatal(err)
	}
	store := NewPostgRESTStore(h.env.ServiceREST(t))
	for name, as := range map[string]RPC{
		"the person's session token":        h.env.UserClient(t, gatewaytest.Alice),
		"a token minted for another action": forOther,
	} {
		if out, err := store.Approve(context.Background(), as, st.ActionID, time.Now()); err == nil {
			t.Errorf("%s approved: %+v", name, out)
		}
	}
	if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StatePending {
		t.Errorf("state %q, want pending", got.State)
	}
}

// TestDatabaseStallPastTheDeadline: the action's row is locked elsewhere
// past the gateway's deadline while the REST API, as PostgREST does, runs
// the approval on whatever the gateway does. The database gives up within
// the budget the gateway gave it, so the page can say nothing was written;
// once the lock is gone and nothing runs any more, the data agrees, and
// approving again writes exactly once.
func TestDatabaseStallPastTheDeadline(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{writeTimeout: time.Second})
	ctx := context.Background()
	marker := fmt.Sprintf("stalled %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	tx, err := h.env.DB(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM public.mcp_pending_actions WHERE id = $1 FOR UPDATE`, st.ActionID); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, out := decide(t, b, st.ApprovalURL, page, "approve")
	if got := title(out); got != "Not done yet" {
		t.Errorf("page while the database stalls: %q, want Not done yet", got)
	}
	time.Sleep(time.Until(start.Add(time.Second))) // the lock outlasts the gateway's deadline
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	h.waitNoApprovalRunning(t)
	if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StatePending {
		t.Errorf("the page said nothing was written, yet the action is %s", got.State)
	}
	h.approveAgainWritesOnce(t, st, StatePending, marker)
}

// waitNoApprovalRunning waits until no approval runs in the database.
func (h *harness) waitNoApprovalRunning(t *testing.T) {
	t.Helper()
	waitUntil(t, 10*time.Second, func() bool {
		var n int
		if err := h.env.DB(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE pid <> pg_backend_pid() AND state <> 'idle' AND query LIKE '%mcp_pending_action_approve%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	}, "an approval still runs after 10 s")
}

// TestPostgreSQLStopped: PostgreSQL stops answering (every process
// SIGSTOPped) just as an approval reaches the REST API. The page says,
// within its deadlines, that it cannot tell; once PostgreSQL runs again,
// the record equals the data, and approving again writes exactly once.
func TestPostgreSQLStopped(t *testing.T) {
	env := stack.Env(t)
	local := env.RequireLocal(t)
	proxy := gatewaytest.NewFaultProxy(t, env.RestURL[:len(env.RestURL)-len("/rest/v1")])
	h := newHarnessWith(t, harnessOptions{restURL: proxy.URL + "/rest/v1", writeTimeout: time.Second})
	marker := fmt.Sprintf("stopped database %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	var once sync.Once
	resume := func() {
		once.Do(func() {
			if err := local.ResumeDatabase(); err != nil {
				t.Fatal(err)
			}
		})
	}
	defer resume()
	proxy.Add(gatewaytest.FaultRule{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), OnMatch: func() {
		if err := local.PauseDatabase(); err != nil {
			t.Error(err)
		}
	}})
	start := time.Now()
	_, out := decide(t, b, st.ApprovalURL, page, "approve")
	took := time.Since(start)
	resume()
	if got := title(out); got != "Pawtograder did not answer" {
		t.Errorf("page while PostgreSQL is stopped: %q, want Pawtograder did not answer", got)
	}
	if limit := time.Second + readBackTimeout + 2*time.Second; took > limit {
		t.Errorf("the page took %s, more than its deadlines allow (%s)", took, limit)
	}
	h.waitDatabaseQuiet(t) // what PostgreSQL had in hand finishes
	got := h.assertRecordEqualsData(t, st.ActionID, marker)
	h.approveAgainWritesOnce(t, st, got.State, marker)
}

// approveAgainWritesOnce opens the link again in a new browser, as the
// page advises after a fault: an action still pending is approved and
// written, one already approved is shown as such; either way the record
// ends approved with exactly one message.
func (h *harness) approveAgainWritesOnce(t *testing.T, st *ActionState, state, marker string) {
	t.Helper()
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	if state == StatePending {
		if _, out := decide(t, b, st.ApprovalURL, page, "approve"); title(out) != "Approved and written" {
			t.Errorf("approving again: %q, want Approved and written", title(out))
		}
	} else if got := title(page); got != "Already approved" {
		t.Errorf("the link opened again: %q, want Already approved", got)
	}
	if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StateApproved {
		t.Errorf("after approving again: %q, want approved", got.State)
	}
	if n := h.messages(t, marker); n != 1 {
		t.Errorf("%d messages written, want exactly 1", n)
	}
}

// TestRejectAnswerLost: a rejection whose answer is lost is read back and
// shown as recorded; nothing is written.
func TestRejectAnswerLost(t *testing.T) {
	env := stack.Env(t)
	proxy := gatewaytest.NewFaultProxy(t, env.RestURL[:len(env.RestURL)-len("/rest/v1")])
	h := newHarnessWith(t, harnessOptions{restURL: proxy.URL + "/rest/v1", writeTimeout: time.Second})
	marker := fmt.Sprintf("rejected, answer lost %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	proxy.Add(gatewaytest.FaultRule{Match: gatewaytest.RPCTo("mcp_pending_action_reject"), Fault: gatewaytest.DropAnswer})
	if _, out := decide(t, b, st.ApprovalURL, page, "reject"); title(out) != "Rejected" {
		t.Errorf("page after the lost rejection: %q, want Rejected", title(out))
	}
	if got := h.assertRecordEqualsData(t, st.ActionID, marker); got.State != StateRejected {
		t.Errorf("state %q, want rejected", got.State)
	}
}

// TestPurgeFailureIsBounded: a purge whose store fails stops at once and
// deletes nothing; the next run tries again.
func TestPurgeFailureIsBounded(t *testing.T) {
	env := stack.Env(t)
	proxy := gatewaytest.NewFaultProxy(t, env.RestURL[:len(env.RestURL)-len("/rest/v1")])
	h := newHarnessWith(t, harnessOptions{restURL: proxy.URL + "/rest/v1"})
	proxy.Add(gatewaytest.FaultRule{Match: gatewaytest.RPCTo("mcp_pending_actions_purge"), Fault: gatewaytest.ServerError, Times: 100})
	if n := h.svc.purgeOnce(context.Background()); n != 0 {
		t.Errorf("purged %d through a failing store", n)
	}
	if got := proxy.Hits(gatewaytest.ServerError); got != 1 {
		t.Errorf("the failing purge was tried %d times in one run, want 1", got)
	}
}
