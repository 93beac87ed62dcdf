package tools

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"

	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// fakeApprovals records proposals and answers them as pending.
type fakeApprovals struct{ proposals []approval.Proposal }

func (f *fakeApprovals) Propose(_ context.Context, p approval.Proposal) (*approval.ActionState, error) {
	f.proposals = append(f.proposals, p)
	return &approval.ActionState{ActionID: fmt.Sprint("action-", len(f.proposals)), Tool: p.Tool, State: approval.StatePending,
		ApprovalURL: "https://gateway.test/approve/x", ExpiresAt: time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC),
		Preview: &p.Preview, RequestState: "sealed"}, nil
}

func (f *fakeApprovals) State(_ context.Context, userID, id string) (*approval.ActionState, error) {
	if id != "action-1" || userID != userAlice {
		return nil, approval.ErrNoAction
	}
	return &approval.ActionState{ActionID: id, Tool: "reply_to_help_request", State: approval.StateApproved, RowID: "42"}, nil
}

func (f *fakeApprovals) Resume(context.Context, string, string, string) (*approval.ActionState, error) {
	return nil, approval.ErrNoAction
}

var writeToolNames = []string{"reply_to_help_request", "set_help_request_status", "reply_to_discussion_thread", "comment_on_regrade_request", "decide_regrade_request", "add_rubric_comment"}

func TestWriteToolsOnlyWithApprovals(t *testing.T) {
	names := func(r *Registry) (out []string) {
		for _, tl := range r.Tools() {
			if tl.Write {
				out = append(out, tl.Name)
			}
		}
		return out
	}
	if got := names(New(Options{})); len(got) != 0 {
		t.Errorf("without approval.Approvals the catalogue lists write tools %v", got)
	}
	if _, ok := New(Options{}).Lookup("reply_to_help_request"); ok {
		t.Errorf("without approval.Approvals a write tool can be looked up")
	}
	reg := New(Options{Approvals: &fakeApprovals{}})
	if diff := cmp.Diff(writeToolNames, names(reg)); diff != "" {
		t.Errorf("write tools (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"reply_to_help_request":      `{"title":"Reply to help request","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}`,
		"set_help_request_status":    `{"title":"Set help request status","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}`,
		"reply_to_discussion_thread": `{"title":"Reply to discussion thread","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}`,
		"comment_on_regrade_request": `{"title":"Comment on regrade request","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}`,
		"decide_regrade_request":     `{"title":"Decide regrade request","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}`,
		"add_rubric_comment":         `{"title":"Add rubric comment","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}`,
	}
	for name, w := range want {
		tl, _ := reg.Lookup(name)
		b, err := jsjson.Marshal(tl.Annotations())
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != w {
			t.Errorf("%s annotations: got %s, want %s", name, b, w)
		}
		if tl.Scope != ScopeWrite || !tl.NegotiatedOnly || tl.OutputSchema == nil || tl.ValueSchema == nil {
			t.Errorf("%s: scope %q, negotiated only %v, schemas %v %v", name, tl.Scope, tl.NegotiatedOnly, tl.OutputSchema != nil, tl.ValueSchema != nil)
		}
	}
}

// callWrite runs a write tool as userID and returns its value or error.
func callWrite(t *testing.T, reg *Registry, userID, name, argsJSON string) (any, error) {
	t.Helper()
	db, _ := clientFor(t, userID)
	v, err := jsjson.Decode([]byte(argsJSON))
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithCaller(context.Background(), Caller{UserID: userID, TokenID: "tok"})
	return reg.Call(ctx, db, []string{ScopeRead, ScopeWrite}, name, v.(*jsjson.Object))
}

func TestWriteRefusals(t *testing.T) {
	reg := New(Options{Approvals: &fakeApprovals{}})
	tests := []struct {
		name, user, tool, args, want string
	}{
		{"student", userSam, "reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"hi"}`,
			"reply_to_help_request is for instructors and graders; you are a student in class 1, so nothing can be written there for you."},
		{"staff of another class", userBea, "reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"hi"}`,
			"You are not an instructor or grader in class 1, so nothing can be written there for you."},
		{"disabled grader", userDale, "set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"resolved"}`,
			"You are not an instructor or grader in class 1, so nothing can be written there for you."},
		{"no such request", userAlice, "reply_to_help_request", `{"class_id":1,"help_request_id":6,"message":"hi"}`,
			"Help request 6 was not found in class 1."},
		{"same status", userAlice, "set_help_request_status", `{"class_id":1,"help_request_id":2,"status":"in_progress"}`,
			"Help request 2 is already in progress."},
		{"reply to a resolved request", userAlice, "reply_to_help_request", `{"class_id":1,"help_request_id":3,"message":"hi"}`,
			"Help request 3 is resolved; its chat takes no more replies."},
		{"reply to a closed request", userAlice, "reply_to_help_request", `{"class_id":1,"help_request_id":4,"message":"hi"}`,
			"Help request 4 is closed; its chat takes no more replies."},
		{"status of a resolved request", userAlice, "set_help_request_status", `{"class_id":1,"help_request_id":3,"status":"in_progress"}`,
			"Help request 3 is resolved; the queue's status changes apply only to open and in-progress requests."},
		{"status of a closed request", userAlice, "set_help_request_status", `{"class_id":1,"help_request_id":4,"status":"resolved"}`,
			"Help request 4 is closed; the queue's status changes apply only to open and in-progress requests."},
		{"draft thread", userAlice, "reply_to_discussion_thread", `{"class_id":1,"thread_id":12,"body":"hi"}`,
			"Discussion thread 12 is a draft; replies go to published threads only."},
		{"no such thread", userAlice, "reply_to_discussion_thread", `{"class_id":1,"thread_id":9,"body":"hi"}`,
			"Discussion thread 9 was not found in class 1."},
		{"missing message", userAlice, "reply_to_help_request", `{"class_id":1,"help_request_id":1}`,
			"Invalid params: missing required argument 'message' for tool reply_to_help_request"},
		{"blank message", userAlice, "reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"  "}`,
			"Invalid params: argument 'message' of tool reply_to_help_request must not be empty"},
		{"bad status", userAlice, "set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"open"}`,
			"Invalid params: argument 'status' of tool set_help_request_status must be one of in_progress, resolved, closed"},
		{"resolution with in_progress", userAlice, "set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"in_progress","resolution":"other"}`,
			"Invalid params: argument 'resolution' of tool set_help_request_status goes only with status resolved or closed"},
		{"fractional id", userAlice, "reply_to_help_request", `{"class_id":1.5,"help_request_id":1,"message":"hi"}`,
			"Invalid params: argument 'class_id' of tool reply_to_help_request must be a positive whole number"},
		{"someone else's action", userGary, "reply_to_help_request", `{"action_id":"action-1"}`,
			"There is no pending action with that id for you."},
		{"action of another tool", userAlice, "set_help_request_status", `{"action_id":"action-1"}`,
			"There is no pending action with that id for you."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := callWrite(t, reg, tt.user, tt.tool, tt.args)
			if err == nil {
				t.Fatalf("got %v, want the refusal %q", v, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got %q, want %q", err.Error(), tt.want)
			}
		})
	}
	db, _ := clientFor(t, userAlice)
	if _, err := reg.Call(WithCaller(context.Background(), Caller{UserID: userAlice}), db, []string{ScopeRead}, "reply_to_help_request", jsjson.NewObject(0)); err == nil || err.Error() != "Missing required scope: mcp:write" {
		t.Errorf("read-only token: got %v, want Missing required scope: mcp:write", err)
	}
}

func TestWriteProposals(t *testing.T) {
	tests := []struct {
		name, tool, args string
		wantPlan         string
		wantVisibility   string
	}{
		{"reply", "reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"Try the debugger."}`,
			`{"values":{"author":"` + privID(1, 1) + `","class_id":1,"help_request_id":1,"instructors_only":false,"message":"Try the debugger.","reply_to_message_id":null}}`,
			"Everyone in CS 3500: Object-Oriented Design: the request is public to the course, so every student sees it, as do its instructors and graders"},
		{"staff-only reply", "reply_to_help_request", `{"class_id":1,"help_request_id":2,"message":"Note","staff_only":true}`,
			`{"values":{"author":"` + privID(1, 1) + `","class_id":1,"help_request_id":2,"instructors_only":true,"message":"Note","reply_to_message_id":null}}`,
			"Visible to staff only: the instructors and graders of CS 3500: Object-Oriented Design"},
		{"resolve", "set_help_request_status", `{"class_id":1,"help_request_id":1,"status":"resolved","resolution":"staff_helped"}`,
			`{"match":{"class_id":"1","id":"1"},"values":{"resolution_status":"staff_helped","resolved_by":"` + privID(1, 1) + `","status":"resolved"},"expect":{"assignee":null,"status":"open"},"now":["resolved_at"]}`,
			"Everyone who can see this help request sees its status in the queue"},
		{"thread reply", "reply_to_discussion_thread", `{"class_id":1,"thread_id":7,"body":"Agreed."}`,
			`{"values":{"author":"` + privID(1, 1) + `","body":"Agreed.","class_id":1,"instructors_only":true,"parent":7,"root":6,"subject":"Re: ` + threadSubject(t, 7) + `","topic_id":6}}`,
			"Visible to staff only: the instructors and graders of CS 3500: Object-Oriented Design, and the thread's poster (the thread is staff only, so its replies are too)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fa := &fakeApprovals{}
			v, err := callWrite(t, New(Options{Approvals: fa}), userAlice, tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			pr, ok := v.(*Proposed)
			if !ok || len(fa.proposals) != 1 {
				t.Fatalf("got %T with %d proposals", v, len(fa.proposals))
			}
			p := fa.proposals[0]
			plan, _ := json.Marshal(p.Preview.Write)
			var got, want any
			if err := json.Unmarshal(plan, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.wantPlan), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if p.Preview.Visibility != tt.wantVisibility {
				t.Errorf("visibility %q, want %q", p.Preview.Visibility, tt.wantVisibility)
			}
			if want := seededName(t, privID(1, 1)) + " (instructor in CS 3500: Object-Oriented Design)"; p.Preview.As != want {
				t.Errorf("as %q, want %q", p.Preview.As, want)
			}
			if p.UserID != userAlice || p.TokenID != "tok" || p.ClassID != 1 || len(p.Digest) != 64 {
				t.Errorf("proposal caller/class/digest: %s %s %d %s", p.UserID, p.TokenID, p.ClassID, p.Digest)
			}
			if s, _ := pr.Value.String("approval_url"); s != "https://gateway.test/approve/x" || pr.URL != s || pr.RequestState != "sealed" {
				t.Errorf("result %v", pr.Value)
			}
		})
	}
}

func threadSubject(t *testing.T, id int) string {
	t.Helper()
	var s string
	if err := testEnv(t).DB(t).QueryRow(context.Background(), `SELECT subject FROM public.discussion_threads WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestActionStateReported(t *testing.T) {
	v, err := callWrite(t, New(Options{Approvals: &fakeApprovals{}}), userAlice, "reply_to_help_request", `{"action_id":"action-1"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := jsjson.Marshal(v)
	want := `{"action_id":"action-1","state":"approved","written_row_id":"42","next_step":"The person approved it and it was written (row 42)."}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

// TestPreviewMarksHiddenText: student-authored text reaches the model
// with its hidden characters as visible markers (hiddentext.Mark), not
// stripped, so the model sees that something was hidden; the caller's own
// text is left as written.
func TestPreviewMarksHiddenText(t *testing.T) {
	pv := previewValue(&approval.Preview{Fields: []approval.PreviewField{
		{Text: "a\u200bb\u202ec\u2066d\ufeffe\U000E0041f\ufe0fg\u3164h", StudentAuthored: true},
		{Text: "p\u202eq"},
	}}, true)
	b, err := jsjson.Marshal(pv)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"text":"a[U+200B]b[U+202E]c[U+2066]d[U+FEFF]e[U+E0041]f[U+FE0F]g[U+3164]h"`,
		"\"text\":\"p\u202eq\"",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("preview lacks %q: %s", want, b)
		}
	}
}

// TestPreviewNeedsReadScope: a token with mcp:write but not mcp:read gets
// the preview without the student-written fields it may not read.
func TestPreviewNeedsReadScope(t *testing.T) {
	p := &approval.Preview{Action: "Post", Fields: []approval.PreviewField{
		{Label: "The student's request", Text: "private question", StudentAuthored: true},
		{Label: "Your message", Text: "hello"},
	}}
	b, err := jsjson.Marshal(previewValue(p, false))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"action":"Post","as":"","where":"","visibility":"","fields":[{"label":"Your message","text":"hello","student_authored":false}]}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

func seededName(t *testing.T, id string) string {
	t.Helper()
	var s string
	if err := testEnv(t).DB(t).QueryRow(context.Background(), `SELECT name FROM public.profiles WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWritePreviewNamesTheStudent: a help request's preview names the
// student who asked and the course, as a TA knows them.
func TestWritePreviewNamesTheStudent(t *testing.T) {
	fa := &fakeApprovals{}
	if _, err := callWrite(t, New(Options{Approvals: fa}), userAlice, "reply_to_help_request", `{"class_id":1,"help_request_id":1,"message":"hi"}`); err != nil {
		t.Fatal(err)
	}
	var student, queue string
	if err := testEnv(t).DB(t).QueryRow(context.Background(), `SELECT p.name, q.name FROM public.help_requests h
		JOIN public.profiles p ON p.id = h.created_by JOIN public.help_queues q ON q.id = h.help_queue WHERE h.id = 1`).Scan(&student, &queue); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Help request #1 from %s, in queue %q of CS 3500: Object-Oriented Design", student, queue)
	if got := fa.proposals[0].Preview.Where; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
}
