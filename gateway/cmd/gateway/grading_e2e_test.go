package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// The grading write tools (docs/writes.md) as a grader tries them, with
// the real parts: the wired gateway with GATEWAY_WRITE_TOOLS=on over the
// local stack, the TypeScript SDK proposing, and headless Chromium as the
// person who approves. The scores Pawtograder holds afterwards are read
// from the database and must be the ones the preview showed.

// sdkCallSeen is writes.mjs sdk-call's answer; a tool's value may be a
// list, so it is decoded into a map only where it is one.
type sdkCallSeen struct {
	Protocol string
	Tools    []string
	Result   struct {
		IsError     bool
		Text, Error string
		Value       json.RawMessage
	}
}

// sdkTool makes one tool call with the TypeScript SDK.
func sdkTool(t *testing.T, endpoint, token, name, args string) toolResult {
	t.Helper()
	var s sdkCallSeen
	writesNode(t, &s, "sdk-call", endpoint, token, name, args)
	if s.Protocol != "2025-11-25" {
		t.Errorf("negotiated %q, want 2025-11-25", s.Protocol)
	}
	if s.Result.Error != "" || s.Result.IsError {
		t.Fatalf("%s: %+v", name, s.Result)
	}
	r := toolResult{Text: s.Result.Text}
	_ = json.Unmarshal(s.Result.Value, &r.Value) // a list leaves Value nil
	return r
}

// previewScore is the proposal's "The submission's score" line.
func previewScore(t *testing.T, r toolResult) string {
	t.Helper()
	pv, _ := r.Value["preview"].(map[string]any)
	fields, _ := pv["fields"].([]any)
	for _, f := range fields {
		if m, _ := f.(map[string]any); m["label"] == "The submission's score" {
			s, _ := m["text"].(string)
			return s
		}
	}
	t.Fatalf("no score in the preview %v", pv)
	return ""
}

// regradeListed is request id as list_regrade_requests (called with the
// TypeScript SDK) shows it.
func regradeListed(t *testing.T, endpoint, token string, id float64) map[string]any {
	t.Helper()
	r := sdkTool(t, endpoint, token, "list_regrade_requests", `{"class_id":1,"assignment_id":1,"status":"all"}`)
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.Text), &list); err != nil {
		t.Fatalf("list_regrade_requests: %v: %s", err, r.Text)
	}
	for _, rr := range list {
		if rr["id"] == id {
			return rr
		}
	}
	return nil
}

// reviewTotal is a review's total_score as Pawtograder holds it.
func reviewTotal(t *testing.T, id int) string {
	t.Helper()
	var total float64
	if err := env.DB(t).QueryRow(context.Background(), `SELECT total_score::float8 FROM public.submission_reviews WHERE id = $1`, id).Scan(&total); err != nil {
		t.Fatal(err)
	}
	return strconv.FormatFloat(total, 'f', -1, 64)
}

// restoreGradingSeed undoes what the grading tests write.
func restoreGradingSeed(t *testing.T) {
	t.Cleanup(func() {
		if _, err := env.DB(t).Exec(context.Background(), `
			DELETE FROM public.notifications WHERE body->>'type' = 'regrade_request' AND (body->>'regrade_request_id')::bigint = 1;
			UPDATE public.submission_regrade_requests SET submission_comment_id = NULL WHERE id = 1;
			DELETE FROM public.submission_comments WHERE regrade_request_id = 1 OR comment LIKE 'grading e2e%';
			DELETE FROM public.submission_regrade_request_comments WHERE comment LIKE 'grading e2e%';
			UPDATE public.submission_regrade_requests SET status = 'opened', resolved_by = NULL, resolved_at = NULL, resolved_points = NULL,
				resolution_reason = NULL, last_commented_at = '2026-01-23T10:00:00Z',
				last_commented_by = '20000001-0000-4000-8000-000000000003', last_updated_at = '2026-01-23T10:00:00Z' WHERE id = 1;
			UPDATE public.submission_reviews SET total_score = 30 WHERE id = 7`); err != nil {
			t.Errorf("restoring the seed: %v", err)
		}
	})
}

// TestGradingWritesApprovedInBrowser is the grading issue's acceptance
// path: Gary's assistant (the TypeScript SDK) reads Sam's regrade request
// with get_regrade_request, proposes to resolve it with the points restored
// and a reason that answers what Sam wrote, and Gary approves in
// Chromium; then it proposes a rubric comment on the same submission and
// Gary approves that too. Each time the review's total Pawtograder holds
// afterwards is the one the preview showed, and list_regrade_requests
// reports the request resolved.
func TestGradingWritesApprovedInBrowser(t *testing.T) {
	requireStandIn(t)
	restoreGradingSeed(t)
	gw := startGateway(t, writeVars())
	endpoint := gw + "/functions/v1/mcp-server"
	token := createWriteToken(t, gw, env.SessionToken(t, gatewaytest.Gary))
	const gary = "gary.grader@example.edu"

	if got := regradeListed(t, endpoint, token, 1); got["status"] != "opened" {
		t.Fatalf("list_regrade_requests, request 1: %v", got)
	}

	// The grader reads the request before deciding, and the reason answers
	// what the student wrote.
	argument := studentArgument(t, sdkTool(t, endpoint, token, "get_regrade_request", `{"class_id":1,"regrade_request_id":1}`))
	reason := "grading e2e: you wrote \"" + argument + "\", and the recursion is there, so the points are restored."
	args, _ := json.Marshal(map[string]any{"class_id": 1, "regrade_request_id": 1, "decision": "resolve", "points": 2, "reason": reason})
	proposed := sdkTool(t, endpoint, token, "decide_regrade_request", string(args))
	url, _ := proposed.Value["approval_url"].(string)
	if proposed.Value["state"] != "pending" || url == "" {
		t.Fatalf("proposal: %+v", proposed)
	}
	if got, want := previewScore(t, proposed), `30 points → 32 points, the total of the review "Grading" (released: the student sees it)`; got != want {
		t.Errorf("the preview's score %q, want %q", got, want)
	}
	if got := reviewTotal(t, 7); got != "30" {
		t.Errorf("the proposal changed the score: %s", got)
	}
	seen := openLink(t, url, gary, "approve")
	rv := seen.Review
	for _, want := range []string{"Resolve regrade request #1 with 2 points", "Rubric check points: 0 points → 2 points", "30 points → 32 points",
		reason, "Signed in as " + gary} {
		if !strings.Contains(rv.Text, want) {
			t.Errorf("the review page lacks %q:\n%s", want, rv.Text)
		}
	}
	if rv.ScrollWidth > 375 {
		t.Errorf("the review page is %d px wide in a 375 px window", rv.ScrollWidth)
	}
	if d := seen.Decided; d == nil || d.Heading != "Approved and written" || !strings.Contains(d.Text, "regrade request #1") {
		t.Errorf("after Approve: %+v", d)
	}
	if got := reviewTotal(t, 7); got != "32" {
		t.Errorf("the review's total after the approval: %s, want the previewed 32", got)
	}
	if got := regradeListed(t, endpoint, token, 1); got["status"] != "resolved" || got["resolved_points"] != float64(2) {
		t.Errorf("list_regrade_requests after the approval, request 1: %v", got)
	}
	var posted int
	if err := env.DB(t).QueryRow(context.Background(), `SELECT count(*) FROM public.submission_regrade_request_comments
		WHERE submission_regrade_request_id = 1 AND comment = $1`, reason).Scan(&posted); err != nil || posted != 1 {
		t.Errorf("the reason in the request's conversation: %d comments (%v), want 1", posted, err)
	}

	proposed = sdkTool(t, endpoint, token, "add_rubric_comment",
		`{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"grading e2e: everything happens in main."}`)
	url, _ = proposed.Value["approval_url"].(string)
	if got, want := previewScore(t, proposed), `32 points → 37 points, the total of the review "Grading" (released: the student sees it)`; got != want {
		t.Errorf("the rubric comment's preview score %q, want %q", got, want)
	}
	if seen := openLink(t, url, gary, "approve"); seen.Decided == nil || seen.Decided.Heading != "Approved and written" {
		t.Errorf("after approving the rubric comment: %+v", seen)
	}
	if got := reviewTotal(t, 7); got != "37" {
		t.Errorf("the review's total after the rubric comment: %s, want the previewed 37", got)
	}
}

// studentArgument is the first clause of the student's comment in
// get_regrade_request's answer (called with the TypeScript SDK), after
// checking that the answer shows the request as a grader needs it: opened,
// its rubric check, and the student's comment marked as theirs with its
// two hidden characters counted.
func studentArgument(t *testing.T, r toolResult) string {
	t.Helper()
	check, _ := r.Value["rubric_check"].(map[string]any)
	if r.Value["status"] != "opened" || check["name"] == nil {
		t.Fatalf("get_regrade_request, request 1: %v", r.Value)
	}
	comments, _ := r.Value["comments"].([]any)
	for _, c := range comments {
		m, _ := c.(map[string]any)
		if m["student_authored"] != true {
			continue
		}
		text, _ := m["comment"].(string)
		if m["hidden_characters"] != float64(2) || !strings.HasPrefix(text, "I used recursion as the handout asked;") {
			t.Fatalf("the student's comment as read: %v", m)
		}
		return strings.SplitN(text, ";", 2)[0]
	}
	t.Fatalf("get_regrade_request shows no student-written comment: %v", comments)
	return ""
}

// TestGradingApprovalPageScreenshots photographs the approval page of a
// regrade decision in Chromium at 1280 and 375 pixels wide: the student's
// argument (which hides a right-to-left override and a zero width space)
// marked, the points and score before and after. With
// -update-screenshots the pictures replace docs/images/approval-regrade-*.png.
func TestGradingApprovalPageScreenshots(t *testing.T) {
	requireStandIn(t)
	restoreGradingSeed(t)
	gw := startGateway(t, writeVars())
	endpoint := gw + "/functions/v1/mcp-server"
	token := createWriteToken(t, gw, env.SessionToken(t, gatewaytest.Gary))
	proposed := sdkTool(t, endpoint, token, "decide_regrade_request",
		`{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"The header comment is at the top of Main.java, so the check applies."}`)
	url, _ := proposed.Value["approval_url"].(string)
	dir := t.TempDir()
	if *updateScreenshots {
		var err error
		if dir, err = filepath.Abs(filepath.Join("..", "..", "..", "docs", "images")); err != nil {
			t.Fatal(err)
		}
	}
	var s personSeen
	writesNode(t, &s, "person", url, "gary.grader@example.edu", "none", dir, "approval-regrade")
	if s.Review.Heading != "Review a change proposed by your assistant" || s.Review.ApproveButton != 1 {
		t.Fatalf("review page: %+v", s.Review)
	}
	if got := strings.Join(s.Review.Markers, " "); got != "U+202E U+200B" {
		t.Errorf("markers %q, want the student's U+202E and U+200B", got)
	}
	for width, scroll := range map[string]int{"1280": s.Shots["1280"], "375": s.Shots["375"]} {
		w, _ := strconv.Atoi(width)
		if scroll == 0 || scroll > w {
			t.Errorf("at %s px the page is %d px wide", width, scroll)
		}
		if _, err := os.Stat(filepath.Join(dir, "approval-regrade-"+width+".png")); err != nil {
			t.Error(err)
		}
	}
}
