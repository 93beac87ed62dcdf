package approval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// BenchmarkFaultedApprovals is the soak of the approval path: each
// iteration proposes a reply, approves it through a fault proxy that
// drops the request, drops or cuts the answer, or holds it past the
// client's deadline (one of them at random, or none), then reads the
// state back and approves again until it is decided, as a person
// following the page's advice would. After every iteration the recorded
// state must equal the data and the message must exist exactly once.
//
//	go test ./functions/mcpserver/approval -run '^$' -bench FaultedApprovals -benchtime 1000x
func BenchmarkFaultedApprovals(b *testing.B) {
	env := stack.Env(b)
	env.RequireDatabase(b)
	proxy := gatewaytest.NewFaultProxy(b, env.RestURL[:len(env.RestURL)-len("/rest/v1")])
	rest := proxy.URL + "/rest/v1"
	service, err := postgrest.New(postgrest.Options{BaseURL: rest, APIKey: env.ServiceRoleKey})
	if err != nil {
		b.Fatal(err)
	}
	store := NewPostgRESTStore(service.WithBearer(env.ServiceRoleKey))
	users := userclient.NewFactory(userclient.Options{RestURL: rest, AnonKey: env.AnonKey, SigningJWK: env.SigningJWK})
	db := env.DB(b)
	ctx := context.Background()
	prefix := fmt.Sprintf("soak %d ", time.Now().UnixNano())
	b.Cleanup(func() {
		_, _ = db.Exec(context.Background(), `DELETE FROM public.help_request_messages WHERE message LIKE $1`, prefix+"%")
		_, _ = db.Exec(context.Background(), `DELETE FROM public.mcp_pending_actions WHERE argument_digest = 'soak'`)
	})
	faults := []gatewaytest.Fault{0, gatewaytest.DropRequest, gatewaytest.DropAnswer, gatewaytest.TruncateAnswer, gatewaytest.DelayAnswer}
	counts := map[gatewaytest.Fault]int{}
	retries := 0
	b.ResetTimer()
	for i := range b.N {
		marker := fmt.Sprintf("%s%d", prefix, i)
		now := time.Now().UTC().Truncate(time.Millisecond)
		id, err := store.Propose(ctx, &Action{UserID: gatewaytest.Alice, ClassID: 1, Tool: "reply_to_help_request",
			Arguments: []byte(`{}`), Digest: "soak", Preview: Preview{Action: "soak", Write: WritePlan{
				Values: map[string]any{"help_request_id": 1, "class_id": 1, "author": alicePrivate, "message": marker}}}},
			time.Hour, 1000, now)
		if err != nil {
			b.Fatal(err)
		}
		f := faults[rand.N(len(faults))]
		counts[f]++
		if f != 0 {
			proxy.Add(gatewaytest.FaultRule{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: f, Delay: 300 * time.Millisecond})
		}
		for attempt := 0; ; attempt++ {
			as, err := users.ForApproval(ctx, gatewaytest.Alice, id)
			if err != nil {
				b.Fatal(err)
			}
			actx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
			_, aerr := store.Approve(actx, as, id, time.Now())
			cancel()
			a, err := store.Get(ctx, id, gatewaytest.Alice, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			if a.State == StatePending && aerr == nil {
				b.Fatalf("iteration %d: the approval answered yet the action is pending", i)
			}
			if a.State == StatePending {
				// The late answer's transaction may still be running:
				// wait until no approval runs, as a person reopening the
				// link a moment later would.
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					var running int
					if err := db.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid()
						AND state <> 'idle' AND query LIKE '%mcp_pending_action_approve%'`).Scan(&running); err != nil {
						b.Fatal(err)
					}
					if running == 0 {
						break
					}
					if time.Now().After(deadline) {
						b.Fatal("an approval still runs after 10 s")
					}
				}
				if a, err = store.Get(ctx, id, gatewaytest.Alice, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
			if a.State != StatePending {
				var rows []string
				r, err := db.Query(ctx, `SELECT id::text FROM public.help_request_messages WHERE message = $1`, marker)
				if err != nil {
					b.Fatal(err)
				}
				for r.Next() {
					var s string
					_ = r.Scan(&s)
					rows = append(rows, s)
				}
				r.Close()
				if a.State != StateApproved || len(rows) != 1 || rows[0] != a.RowID {
					b.Fatalf("iteration %d (fault %d): recorded %s row %q, the data holds %v", i, f, a.State, a.RowID, rows)
				}
				break
			}
			if attempt == 5 {
				b.Fatalf("iteration %d: still pending after %d approvals", i, attempt+1)
			}
			retries++
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(retries)/float64(b.N), "retries/op")
	b.Logf("faults: none %d, dropped request %d, dropped answer %d, cut answer %d, late answer %d; approvals repeated %d",
		counts[0], counts[gatewaytest.DropRequest], counts[gatewaytest.DropAnswer], counts[gatewaytest.TruncateAnswer], counts[gatewaytest.DelayAnswer], retries)
}
