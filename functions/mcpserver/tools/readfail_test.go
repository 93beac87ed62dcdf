package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// TestStaffToolsReadFailures: for every staff tool (its readFail case,
// toolcases_test.go), a clean call through
// a fault proxy in front of the REST API records which tables it reads;
// then each table in turn is made to fail (its connection dropped, then a
// 503), and the tool must answer the ReadFailedError naming what it could
// not read, never an answer built around the hole.
func TestStaffToolsReadFailures(t *testing.T) {
	env := testEnv(t)
	proxy := gatewaytest.NewFaultProxy(t, strings.TrimSuffix(env.RestURL, "/rest/v1"))
	base, err := postgrest.New(postgrest.Options{BaseURL: proxy.URL + "/rest/v1", APIKey: env.AnonKey})
	if err != nil {
		t.Fatal(err)
	}
	db := userclient.NewClient(base, userAlice, env.SessionToken(t, userAlice))
	var calls []struct{ tool, args string }
	for _, tool := range readTools() {
		if tool.NegotiatedOnly {
			calls = append(calls, struct{ tool, args string }{tool.Name, casesByTool[tool.Name].readFail})
		}
	}
	call := func(tool, args string) (any, error) {
		v, err := jsjson.Decode([]byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return New(Options{}).Call(context.Background(), db, []string{ScopeRead}, tool, v.(*jsjson.Object))
	}
	for _, c := range calls {
		proxy.Reset()
		if _, err := call(c.tool, c.args); err != nil {
			t.Fatalf("%s without faults: %v", c.tool, err)
		}
		paths := proxy.Paths()
		if len(paths) == 0 {
			t.Fatalf("%s read nothing", c.tool)
		}
		for _, path := range paths {
			table := strings.TrimPrefix(path, "/rest/v1/")
			for _, fault := range []gatewaytest.Fault{gatewaytest.DropRequest, gatewaytest.ServerError} {
				t.Run(fmt.Sprintf("%s %s fault %d", c.tool, table, fault), func(t *testing.T) {
					proxy.Reset()
					proxy.Add(gatewaytest.FaultRule{Match: func(r *http.Request) bool { return r.URL.Path == path }, Fault: fault, Times: 1000})
					v, err := call(c.tool, c.args)
					var rf *ReadFailedError
					if !errors.As(err, &rf) {
						t.Fatalf("answered %v, %v; want a ReadFailedError", v, err)
					}
					want := "Pawtograder could not read " + readWhat(table) + " just now, so no answer is given: nothing was inferred from what could be read. Try again in a moment."
					if err.Error() != want {
						t.Errorf("message %q, want %q", err.Error(), want)
					}
					if readWhat(table) == "part of the course's data" {
						t.Errorf("table %s has no words in tableWords", table)
					}
				})
			}
		}
	}
}

// TestGradingWritesReadFailures: a grading write tool's checks and preview
// read Pawtograder (the caller's role, the request or submission, the
// rubric, the review's comments, the conversation); each table in turn
// made to fail (connection dropped, then a 503) must give the tool's
// read-failed refusal and propose nothing, never a preview built around
// the hole (a score without a comment's points, a conversation missing).
func TestGradingWritesReadFailures(t *testing.T) {
	env := testEnv(t)
	proxy := gatewaytest.NewFaultProxy(t, strings.TrimSuffix(env.RestURL, "/rest/v1"))
	base, err := postgrest.New(postgrest.Options{BaseURL: proxy.URL + "/rest/v1", APIKey: env.AnonKey})
	if err != nil {
		t.Fatal(err)
	}
	db := userclient.NewClient(base, userGary, env.SessionToken(t, userGary))
	calls := []struct{ tool, args string }{
		{"comment_on_regrade_request", `{"class_id":1,"regrade_request_id":2,"message":"m"}`},
		{"decide_regrade_request", `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"r"}`},
		{"add_rubric_comment", `{"class_id":1,"submission_id":3,"rubric_check_id":3,"comment":"c","file_id":6,"line":2}`},
	}
	call := func(fa *fakeApprovals, tool, args string) (any, error) {
		v, err := jsjson.Decode([]byte(args))
		if err != nil {
			t.Fatal(err)
		}
		ctx := WithCaller(context.Background(), Caller{UserID: userGary, TokenID: "tok"})
		return New(Options{Approvals: fa}).Call(ctx, db, []string{ScopeRead, ScopeWrite}, tool, v.(*jsjson.Object))
	}
	for _, c := range calls {
		proxy.Reset()
		if _, err := call(&fakeApprovals{}, c.tool, c.args); err != nil {
			t.Fatalf("%s without faults: %v", c.tool, err)
		}
		paths := proxy.Paths()
		if len(paths) < 3 {
			t.Fatalf("%s read only %v", c.tool, paths)
		}
		for _, path := range paths {
			for _, fault := range []gatewaytest.Fault{gatewaytest.DropRequest, gatewaytest.ServerError} {
				t.Run(fmt.Sprintf("%s %s fault %d", c.tool, strings.TrimPrefix(path, "/rest/v1/"), fault), func(t *testing.T) {
					proxy.Reset()
					proxy.Add(gatewaytest.FaultRule{Match: func(r *http.Request) bool { return r.URL.Path == path }, Fault: fault, Times: 1000})
					fa := &fakeApprovals{}
					v, err := call(fa, c.tool, c.args)
					if err == nil || err.Error() != errReadFailed.Message {
						t.Errorf("answered %v, %v; want %q", v, err, errReadFailed.Message)
					}
					if len(fa.proposals) != 0 {
						t.Errorf("%d proposals stored", len(fa.proposals))
					}
				})
			}
		}
	}
}
