package tools

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// TestWritesApprovedUnderRLS proposes each write tool's change through
// the approval service and approves it as the approval page would (the
// approval's SQL function with the proposer's approval JWT): each is
// written once, as the proposer, with Pawtograder's row-level security
// and triggers; approving again writes nothing more. On the real-schema
// route this runs against the platform's own migrations.
func TestWritesApprovedUnderRLS(t *testing.T) {
	rig := newApprovalRig(t)
	db := rig.db
	t.Cleanup(func() {
		if _, err := db.Exec(context.Background(), `
			DELETE FROM public.help_request_messages WHERE message = 'approved under rls'
				OR (help_request_id = 1 AND is_system_message AND created_at > now() - interval '1 hour');
			DO $$ BEGIN
				IF to_regclass('public.discussion_thread_read_status') IS NOT NULL THEN -- not in the fixture schema
					DELETE FROM public.discussion_thread_read_status WHERE discussion_thread_id IN (SELECT id FROM public.discussion_threads WHERE body = 'approved under rls');
					DELETE FROM public.help_request_work_sessions WHERE help_request_id = 1 AND created_at > now() - interval '1 hour';
				END IF;
			END $$;
			DELETE FROM public.discussion_threads WHERE body = 'approved under rls';
			UPDATE public.help_requests SET status = 'open', assignee = NULL, resolved_by = NULL, resolved_at = NULL, resolution_status = NULL WHERE id = 1`); err != nil {
			t.Errorf("restoring the seed: %v", err)
		}
	})
	reg := New(Options{Approvals: rig.svc})
	calls := []struct{ tool, args string }{
		{"reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"approved under rls"}`},
		{"set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"in_progress"}`},
		{"reply_to_discussion_thread", `{"class_id":1,"thread_id":1,"body":"approved under rls"}`},
		{"set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"resolved","resolution":"staff_helped"}`},
	}
	for _, c := range calls {
		v, err := callWrite(t, reg, userAlice, c.tool, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		id, _ := v.(*Proposed).Value.String("action_id")
		out := rig.approve(userAlice, id)
		if out.Outcome != approval.OutcomeApproved || out.RowID == "" {
			t.Fatalf("%s approved: %+v", c.tool, out)
		}
		if again := rig.approve(userAlice, id); again.Outcome != "already_approved" || again.RowID != out.RowID {
			t.Errorf("%s approved again: %+v; want already_approved with row %s", c.tool, again, out.RowID)
		}
	}
	var messages, replies int
	var status, assignee, resolvedBy, resolution string
	if err := db.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM public.help_request_messages WHERE message = 'approved under rls'),
		(SELECT count(*) FROM public.discussion_threads WHERE body = 'approved under rls' AND parent = 1),
		status::text, coalesce(assignee::text, ''), coalesce(resolved_by::text, ''), coalesce(resolution_status::text, '')
		FROM public.help_requests WHERE id = 1`).Scan(&messages, &replies, &status, &assignee, &resolvedBy, &resolution); err != nil {
		t.Fatal(err)
	}
	alicePrivate := privID(1, 1)
	if messages != 1 || replies != 1 || status != "resolved" || assignee != alicePrivate || resolvedBy != alicePrivate || resolution != "staff_helped" {
		t.Errorf("written: %d messages, %d replies; request 1 %s, assignee %s, resolved by %s, %s", messages, replies, status, assignee, resolvedBy, resolution)
	}
}

// approvalRig approves actions as the approval page would: the approval
// service over the test database's REST API, and the approval's SQL
// function called with the proposer's approval JWT.
type approvalRig struct {
	svc   *approval.Service
	store *approval.PostgRESTStore
	users *userclient.Factory
	db    *pgx.Conn
	t     *testing.T
}

func newApprovalRig(t *testing.T) *approvalRig {
	env := testEnv(t)
	env.RequireDatabase(t)
	r := &approvalRig{t: t, db: env.DB(t), store: approval.NewPostgRESTStore(env.ServiceREST(t)),
		users: userclient.NewFactory(userclient.Options{RestURL: env.RestURL, AnonKey: env.AnonKey, SigningJWK: env.SigningJWK})}
	var err error
	r.svc, err = approval.New(approval.Options{BaseURL: "https://gateway.test/functions/v1/mcp-server", Store: r.store,
		Approver: func(ctx context.Context, userID, actionID string) (approval.RPC, error) {
			return r.users.ForApproval(ctx, userID, actionID)
		},
		Secrets: []string{"a-tools-test-secret-of-32-bytes-or-more"}, AuthURL: env.AuthURL})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// approve approves action id as user.
func (r *approvalRig) approve(user, id string) *approval.Outcome {
	r.t.Helper()
	ctx := context.Background()
	as, err := r.users.ForApproval(ctx, user, id)
	if err != nil {
		r.t.Fatal(err)
	}
	out, err := r.store.Approve(ctx, as, id, time.Now())
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}
