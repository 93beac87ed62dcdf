package approval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// TestToolWritesApproved: each write tool's proposal, approved on the
// page, is written once as the proposer under row-level security; a plan
// naming another class's rows, approved by its own (other-class) owner,
// is refused by row-level security inside the approval and writes nothing.
func TestToolWritesApproved(t *testing.T) {
	h := newHarness(t)
	h.restoreRequest1(t)
	db := h.env.DB(t)
	ctx := context.Background()
	marker := fmt.Sprintf("tool write %d", time.Now().UnixNano())
	t.Cleanup(func() {
		_, _ = db.Exec(context.Background(), `
			DO $$ BEGIN
				IF to_regclass('public.discussion_thread_read_status') IS NOT NULL THEN
					EXECUTE 'DELETE FROM public.discussion_thread_read_status WHERE discussion_thread_id IN (SELECT id FROM public.discussion_threads WHERE body LIKE ''tool write %'')';
				END IF;
			END $$;
			DELETE FROM public.discussion_threads WHERE body LIKE 'tool write %';
			DELETE FROM public.help_request_messages WHERE message LIKE 'tool write %'`)
	})
	reg := tools.New(tools.Options{Approvals: h.svc})
	calls := []struct{ tool, args string }{
		{"reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"` + marker + `"}`},
		{"set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"in_progress"}`},
		{"reply_to_discussion_thread", `{"class_id":1,"thread_id":1,"body":"` + marker + `"}`},
	}
	for _, c := range calls {
		args, err := jsjson.Decode([]byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		callCtx := tools.WithCaller(ctx, tools.Caller{UserID: gatewaytest.Alice})
		v, err := reg.Call(callCtx, h.env.UserClient(t, gatewaytest.Alice), []string{tools.ScopeRead, tools.ScopeWrite}, c.tool, args.(*jsjson.Object))
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		link := v.(*tools.Proposed).URL
		if status, page := h.approveAs(t, link); title(page) != "Approved and written" {
			t.Fatalf("%s: %d %q", c.tool, status, title(page))
		}
	}
	var messages, replies int
	var status, assignee string
	if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM public.help_request_messages WHERE message = $1),
		(SELECT count(*) FROM public.discussion_threads WHERE body = $1 AND parent = 1),
		(SELECT status::text FROM public.help_requests WHERE id = 1), (SELECT coalesce(assignee::text, '') FROM public.help_requests WHERE id = 1)`,
		marker).Scan(&messages, &replies, &status, &assignee); err != nil {
		t.Fatal(err)
	}
	if messages != 1 || replies != 1 || status != "in_progress" || assignee != alicePrivate {
		t.Errorf("written: %d messages, %d replies, request 1 %s assigned to %q", messages, replies, status, assignee)
	}

	// Bea (instructor of class 2) approving a plan that writes into class 1.
	st, err := h.svc.Propose(ctx, tools.Proposal{Caller: tools.Caller{UserID: gatewaytest.Bea}, ClassID: 1, Tool: "reply_to_help_request",
		Arguments: []byte(`{}`), Digest: "d4",
		Preview: tools.Preview{Action: "Post", Write: tools.WritePlan{Table: "help_request_messages", Op: "insert", Values: map[string]any{
			"help_request_id": 1, "class_id": 1, "author": "20000002-0000-4000-8000-000000000006", "message": marker + " forged", "instructors_only": false}}}})
	if err != nil {
		t.Fatal(err)
	}
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Bea)
	_, out := decide(t, b, st.ApprovalURL, page, "approve")
	if got := title(out); got != "Approved, but not written" {
		t.Errorf("Bea's approval: %q", got)
	}
	if n := h.messages(t, marker+" forged"); n != 0 {
		t.Errorf("row-level security let Bea write %d messages into class 1", n)
	}
	if got, _ := h.svc.State(ctx, gatewaytest.Bea, st.ActionID); got == nil || got.State != tools.StateFailed {
		t.Errorf("Bea's action: %+v, want failed", got)
	}
}
