package mcpserver

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"

	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// writeAuth grants mcp:write to authGood's principal.
type writeAuth struct{ *fakeAuth }

func (a writeAuth) Authenticate(ctx context.Context, h string) (*mcpauth.Principal, error) {
	p, err := a.fakeAuth.Authenticate(ctx, h)
	if err == nil && h == authGood {
		p.Scopes = []string{"mcp:read", "mcp:write"}
	}
	return p, err
}

// stubApprovals answers Resume for user-a's sealed state "sealed-1".
type stubApprovals struct{}

func (stubApprovals) Propose(context.Context, approval.Proposal) (*approval.ActionState, error) {
	return nil, approval.ErrNoAction
}

func (stubApprovals) State(context.Context, string, string) (*approval.ActionState, error) {
	return nil, approval.ErrNoAction
}

func (stubApprovals) Resume(_ context.Context, userID, tool, state string) (*approval.ActionState, error) {
	if userID != "user-a" || state != "sealed-1" {
		return nil, approval.ErrNoAction
	}
	return &approval.ActionState{ActionID: "a-1", Tool: tool, State: approval.StateApproved, RowID: "77"}, nil
}

// newWriteEnv is a server with the write tools; its reply_to_help_request
// answers with a fixed proposal and records the caller it was given.
func newWriteEnv(t *testing.T) (*testEnv, *tools.Caller) {
	t.Helper()
	var seen tools.Caller
	env := newTestEnv(t, func(o *Options) {
		o.Auth = writeAuth{o.Auth.(*fakeAuth)}
		o.Tools = tools.New(tools.Options{Approvals: stubApprovals{}})
	})
	real := env.srv.callTool
	env.srv.callTool = func(ctx context.Context, db *userclient.Client, scopes []string, name string, args *jsjson.Object) (any, error) {
		if name != "reply_to_help_request" {
			return real(ctx, db, scopes, name, args)
		}
		seen, _ = tools.CallerFrom(ctx)
		if _, ok := args.Get("refuse"); ok {
			return nil, &approval.RefusedError{Message: "You are not an instructor or grader in class 9, so nothing can be written there for you."}
		}
		st := &approval.ActionState{ActionID: "a-1", Tool: name, State: approval.StatePending,
			ApprovalURL: "https://gw.test/functions/v1/mcp-server/approve/a-1", ExpiresAt: time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)}
		return &tools.Proposed{Value: tools.StateValue(st), URL: st.ApprovalURL, Message: "Review and approve or reject: Post a message", RequestState: "sealed-1"}, nil
	}
	return env, &seen
}

const callReply = `"name":"reply_to_help_request","arguments":{"class_id":1,"help_request_id":1,"message":"hi"}`

func TestWriteToolsChangeNothingWhenOff(t *testing.T) {
	off := newTestEnv(t, nil)
	on, _ := newWriteEnv(t)
	same := []struct {
		name, version, body string
	}{
		{"drop-in tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"2025-03-26 tools/list", "2025-03-26", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"2024-11-05 initialize", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`},
		{"drop-in write call", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + callReply + `}}`},
	}
	for _, tt := range same {
		t.Run(tt.name, func(t *testing.T) {
			h := hdr("Authorization", authGood)
			if tt.version != "" {
				h[headerProtocolVersion] = tt.version
			}
			a, b := off.do(http.MethodPost, "", h, tt.body), on.do(http.MethodPost, "", h, tt.body)
			if a.Body.String() != b.Body.String() {
				t.Errorf("answers differ with the write tools on:\noff %s\non  %s", a.Body, b.Body)
			}
		})
	}
	list := on.do(http.MethodPost, "", hdr("Authorization", authGood, headerProtocolVersion, "2025-06-18"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).Body.String()
	for _, n := range []string{`"name":"reply_to_help_request"`, `"name":"set_help_request_status"`, `"name":"reply_to_discussion_thread"`} {
		if !strings.Contains(list, n) {
			t.Errorf("2025-06-18 tools/list lacks %s", n)
		}
	}
	init := on.do(http.MethodPost, "", hdr("Authorization", authGood), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`).Body.String()
	if !strings.Contains(init, `"instructions":"`+writeInstructions+` Step-by-step workflows`) {
		t.Errorf("2025-06-18 initialize lacks the write instructions: %s", init)
	}
}

func TestWriteProposalAnswers(t *testing.T) {
	env, seen := newWriteEnv(t)
	urlCaps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}}`
	tests := []struct {
		name string
		hdr  map[string]string
		body string
		want string
	}{
		{"2026-07-28 with URL elicitation: input_required", modernHdr("tools/call", "Mcp-Name", "reply_to_help_request"),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + urlCaps + `,` + callReply + `}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"url","message":"Review and approve or reject: Post a message. Nothing is written until you approve it on this page.","url":"https://gw.test/functions/v1/mcp-server/approve/a-1"}}},"requestState":"sealed-1",` + serverInfo + `}}`},
		{"2026-07-28 retry with requestState: the state", modernHdr("tools/call", "Mcp-Name", "reply_to_help_request"),
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + urlCaps + `,` + callReply + `,"requestState":"sealed-1","inputResponses":{"approval":{"action":"accept"}}}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"{\n  \"action_id\": \"a-1\",\n  \"state\": \"approved\",\n  \"written_row_id\": \"77\",\n  \"next_step\": \"The person approved it and it was written (row 77).\"\n}"}],"structuredContent":{"action_id":"a-1","state":"approved","written_row_id":"77","next_step":"The person approved it and it was written (row 77)."},` + serverInfo + `}}`},
		{"2026-07-28 forged requestState", modernHdr("tools/call", "Mcp-Name", "reply_to_help_request"),
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + urlCaps + `,` + callReply + `,"requestState":"forged"}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"There is no pending action with that id for you."}],"isError":true,` + serverInfo + `}}`},
		{"2025-06-18: the link in the result", hdr("Authorization", authGood, headerProtocolVersion, "2025-06-18"),
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{` + callReply + `}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\n  \"action_id\": \"a-1\",\n  \"state\": \"pending\",\n  \"approval_url\": \"https://gw.test/functions/v1/mcp-server/approve/a-1\",\n  \"expires_at\": \"2026-01-01T00:10:00Z\",\n  \"next_step\": \"Nothing has been written. Give the person approval_url: they sign in there, review this preview and approve or reject it (within 10 minutes). Then call reply_to_help_request with only action_id to learn the outcome.\"\n}"}],"structuredContent":{"result":{"action_id":"a-1","state":"pending","approval_url":"https://gw.test/functions/v1/mcp-server/approve/a-1","expires_at":"2026-01-01T00:10:00Z","next_step":"Nothing has been written. Give the person approval_url: they sign in there, review this preview and approve or reject it (within 10 minutes). Then call reply_to_help_request with only action_id to learn the outcome."}}}}`},
		{"refusal: a tool execution error", hdr("Authorization", authGood, headerProtocolVersion, "2025-06-18"),
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"reply_to_help_request","arguments":{"refuse":true}}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"You are not an instructor or grader in class 9, so nothing can be written there for you."}],"isError":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := env.do(http.MethodPost, "", tt.hdr, tt.body)
			if got := rec.Body.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if seen.UserID != "user-a" || seen.TokenID != "token-a" {
		t.Errorf("the tool got caller %+v, want user-a with token-a", *seen)
	}
}
