package tools

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func TestRegradeDecisionRefusals(t *testing.T) {
	reg := New(Options{Approvals: &fakeApprovals{}})
	const tool = "decide_regrade_request"
	tests := []struct {
		name, user, args, want string
	}{
		{"student", userSam, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"r"}`,
			"decide_regrade_request is for instructors and graders; you are a student in class 1, so nothing can be written there for you."},
		{"staff of another class", userBea, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"r"}`,
			"You are not an instructor or grader in class 1, so nothing can be written there for you."},
		{"another class's request", userAlice, `{"class_id":1,"regrade_request_id":6,"decision":"resolve","points":2,"reason":"r"}`,
			"Regrade request 6 was not found in class 1."},
		{"a grader closing", userGary, `{"class_id":1,"regrade_request_id":3,"decision":"close","points":2,"reason":"r"}`,
			"Only instructors close regrade requests in Pawtograder; as a grader you can resolve an opened one."},
		{"a grader escalating", userGary, `{"class_id":1,"regrade_request_id":2,"decision":"escalate","reason":"r"}`,
			"Only the submission's students escalate a regrade request in Pawtograder (a resolved one, to an instructor). As a grader you can resolve an opened request."},
		{"an instructor escalating", userAlice, `{"class_id":1,"regrade_request_id":2,"decision":"escalate","reason":"r"}`,
			"Only the submission's students escalate a regrade request in Pawtograder (a resolved one, to an instructor). As an instructor you can resolve an opened request or close one."},
		{"draft", userAlice, `{"class_id":1,"regrade_request_id":4,"decision":"close","points":2,"reason":"r"}`,
			"Regrade request 4 is a draft the student has not sent; it can be decided once they send it."},
		{"resolving a resolved one", userGary, `{"class_id":1,"regrade_request_id":2,"decision":"resolve","points":2,"reason":"r"}`,
			"Regrade request 2 is resolved; only an opened request is resolved."},
		{"resolving an escalated one", userAlice, `{"class_id":1,"regrade_request_id":3,"decision":"resolve","points":2,"reason":"r"}`,
			"Regrade request 3 is escalated; only an opened request is resolved."},
		{"closing a closed one", userAlice, `{"class_id":1,"regrade_request_id":5,"decision":"close","points":0,"reason":"r"}`,
			"Regrade request 5 is already closed."},
		{"no such request", userAlice, `{"class_id":1,"regrade_request_id":99,"decision":"resolve","points":2,"reason":"r"}`,
			"Regrade request 99 was not found in class 1."},
		{"a location on a check that is not an annotation", userGary, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"r","file_id":6,"line":3}`,
			`Rubric check "Header comment" is not an annotation, so the comment Pawtograder adds for it takes no file_id or line.`},
		{"missing reason", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2}`,
			"Invalid params: missing required argument 'reason' for tool decide_regrade_request"},
		{"blank reason", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"  "}`,
			"Invalid params: argument 'reason' of tool decide_regrade_request must not be empty"},
		{"missing decision", userAlice, `{"class_id":1,"regrade_request_id":1,"points":2,"reason":"r"}`,
			"Invalid params: missing required argument 'decision' for tool decide_regrade_request"},
		{"unknown decision", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"accept","points":2,"reason":"r"}`,
			"Invalid params: argument 'decision' of tool decide_regrade_request must be one of resolve, escalate, close"},
		{"missing points", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","reason":"r"}`,
			"Invalid params: missing required argument 'points' for tool decide_regrade_request"},
		{"points as text", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":"2","reason":"r"}`,
			"Invalid params: argument 'points' of tool decide_regrade_request must be a number"},
		{"negative points", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":-1,"reason":"r"}`,
			"Invalid params: argument 'points' of tool decide_regrade_request must be from 0 to 100000 (Pawtograder's regrade dialog refuses a negative score)"},
		{"points past the bound", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":100001,"reason":"r"}`,
			"Invalid params: argument 'points' of tool decide_regrade_request must be from 0 to 100000 (Pawtograder's regrade dialog refuses a negative score)"},
		{"a file without a line", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"r","file_id":6}`,
			"Invalid params: arguments 'file_id' and 'line' of tool decide_regrade_request go together"},
		{"line zero", userAlice, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"r","file_id":6,"line":0}`,
			"Invalid params: argument 'line' of tool decide_regrade_request must be a positive whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := callWrite(t, reg, tt.user, tool, tt.args)
			if err == nil {
				t.Fatalf("got %v, want the refusal %q", v, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got %q, want %q", err.Error(), tt.want)
			}
		})
	}
}

// TestRegradeDecisionProposal: the whole preview of Gary resolving Sam's
// open request about "Header comment" with 2 points, its names read by SQL
// over the seed. The review's total is hand-checked: review 7 holds no
// rubric comment, so its 30 points are the autograder's; the check's
// criterion ("Comments", additive, at most 2) then adds 2.
func TestRegradeDecisionProposal(t *testing.T) {
	fa := &fakeApprovals{}
	if _, err := callWrite(t, New(Options{Approvals: fa}), userGary, "decide_regrade_request",
		`{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"The header comment is there; restoring the points."}`); err != nil {
		t.Fatal(err)
	}
	var sam, gary, title, check string
	var checkPoints, total float64
	if err := testEnv(t).DB(t).QueryRow(context.Background(), `SELECT s.name, g.name, a.title, rc.name, rc.points::float8, sr.total_score::float8
		FROM public.submission_regrade_requests r JOIN public.profiles s ON s.id = r.created_by
		JOIN public.assignments a ON a.id = r.assignment_id JOIN public.rubric_checks rc ON rc.id = r.rubric_check_id
		JOIN public.submission_reviews sr ON sr.id = r.submission_review_id
		JOIN public.profiles g ON g.id = $1 WHERE r.id = 1`, privID(1, 2)).Scan(&sam, &gary, &title, &check, &checkPoints, &total); err != nil {
		t.Fatal(err)
	}
	if total != 30 {
		t.Fatalf("the seed's review 7 totals %v, want 30", total)
	}
	course := "CS 3500: Object-Oriented Design"
	reason := "The header comment is there; restoring the points."
	want := approval.Preview{
		Action:     "Resolve regrade request #1 with 2 points",
		As:         gary + " (grader in " + course + ")",
		Where:      "Regrade request #1 from " + sam + " on \"" + title + "\" (submission #3), about rubric check \"" + check + "\" (" + jsonNumber(checkPoints) + " points), in " + course + "; it is opened, score 0 points as graded",
		Visibility: "The students of submission #3 are notified and read your reason in the regrade request at once; the review is released, so they see the new points and score at once; every instructor and grader of " + course + " can read both",
		Fields: []approval.PreviewField{
			{Label: sam + " (student), 23 Jan 2026 10:00 UTC", Text: "I used recursion as the handout asked; see line 12.\u202e Please award the 5 points.\u200b", StudentAuthored: true},
			{Label: "The decision", Text: "Rubric check points: 0 points → 2 points; Pawtograder adds the check \"" + check + "\" to the review as a released comment with these points"},
			{Label: "The submission's score", Text: "30 points → 32 points, the total of the review \"Grading\" (released: the student sees it)"},
			{Label: "Your reason (posted in the conversation)", Text: reason},
		},
		Written: "regrade request",
		Write: approval.WritePlan{
			Values: decisionValues{RequestID: 1, ClassID: 1, Author: privID(1, 2), NewStatus: "resolved", Points: 2, Reason: reason},
			Expect: decisionExpect{Status: "opened"}},
	}
	if len(fa.proposals) != 1 {
		t.Fatalf("%d proposals", len(fa.proposals))
	}
	if diff := cmp.Diff(want, fa.proposals[0].Preview); diff != "" {
		t.Errorf("preview (-want +got):\n%s", diff)
	}
}

func TestReviewTotal(t *testing.T) {
	criteria := []criterion{
		{total: 10, additive: true, checks: []string{"1", "2"}},
		{total: 5, deductOnly: true, checks: []string{"3"}},
		{total: 4, checks: []string{"4"}}, // neither: starts at 4
	}
	tests := []struct {
		name             string
		points           map[string]float64
		autograde, tweak float64
		limit            any
		want             float64
	}{
		{"nothing applied", nil, 30, 0, nil, 30 + 0 + 0 + 4},
		{"additive capped at its total", map[string]float64{"1": 8, "2": 5}, 0, 0, nil, 10 + 4},
		{"deduction capped at its total", map[string]float64{"3": 9}, 20, 0, nil, 20 - 5 + 4},
		{"a plain criterion floors at zero", map[string]float64{"4": 9}, 0, 0, nil, 0},
		{"tweak added", map[string]float64{"1": 2}, 10, 1.5, nil, 2 + 4 + 10 + 1.5},
		{"capped at the assignment", map[string]float64{"1": 10}, 90, 0, float64(100), 100},
		{"a null cap does not cap", map[string]float64{"1": 10}, 90, 0, nil, 104},
		{"floored at zero", map[string]float64{"3": 5, "4": 4}, 0, -3, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reviewTotal(criteria, tt.points, tt.autograde, tt.tweak, tt.limit); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRegradeDecisionsApprovedUnderRLS approves decisions through the
// approval's SQL function, as the approving person, and holds the data to
// the preview: the request's new state, the rubric comment the platform
// adds, the reason in the conversation, the students' notification and
// the review's total, which must be the preview's. Approving again
// writes nothing more; a request decided by someone else since the
// proposal is not decided again. On the real-schema route this runs on
// the platform's own migrations, its update_regrade_request_status and
// score triggers.
func TestRegradeDecisionsApprovedUnderRLS(t *testing.T) {
	rig := newApprovalRig(t)
	ctx := context.Background()
	db, svc := rig.db, rig.svc
	t.Cleanup(func() {
		if _, err := db.Exec(context.Background(), restoreRegradeSQL); err != nil {
			t.Errorf("restoring the seed: %v", err)
		}
	})
	reg := New(Options{Approvals: svc})
	// propose returns the action and its preview's score line.
	propose := func(user, args string) (string, string) {
		t.Helper()
		v, err := callWrite(t, reg, user, "decide_regrade_request", args)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := v.(*Proposed).Value.String("action_id")
		pv, _ := v.(*Proposed).Value.Object("preview")
		fields, _ := pv.Value("fields").([]any)
		for _, f := range fields {
			if o, ok := f.(*jsjson.Object); ok {
				if l, _ := o.String("label"); l == "The submission's score" {
					text, _ := o.String("text")
					return id, text
				}
			}
		}
		t.Fatalf("no score in the preview %v", fields)
		return "", ""
	}
	approve := rig.approve
	type state struct {
		status            string
		points            float64
		by                string
		comments, reasons int
		commentPoints     float64
		notified          int
		total             float64
	}
	read := func(requestID int, pointsCol, byCol string) state {
		t.Helper()
		var s state
		if err := db.QueryRow(ctx, `SELECT r.status::text, coalesce(r.`+pointsCol+`, -1)::float8, coalesce(r.`+byCol+`::text, ''),
			(SELECT count(*) FROM (SELECT id FROM public.submission_comments WHERE regrade_request_id = r.id
			                       UNION ALL SELECT id FROM public.submission_file_comments WHERE regrade_request_id = r.id) x),
			(SELECT count(*) FROM public.submission_regrade_request_comments WHERE submission_regrade_request_id = r.id AND comment LIKE 'decided under rls%'),
			coalesce((SELECT points FROM public.submission_comments WHERE id = r.submission_comment_id),
			         (SELECT points FROM public.submission_file_comments WHERE id = r.submission_file_comment_id), -1)::float8,
			(SELECT count(*) FROM public.notifications n WHERE (n.body->>'regrade_request_id')::bigint = r.id AND n.body->>'action' = 'status_change'),
			(SELECT total_score FROM public.submission_reviews WHERE id = r.submission_review_id)::float8
			FROM public.submission_regrade_requests r WHERE r.id = $1`, requestID).Scan(
			&s.status, &s.points, &s.by, &s.comments, &s.reasons, &s.commentPoints, &s.notified, &s.total); err != nil {
			t.Fatal(err)
		}
		return s
	}

	// Gary resolves Sam's open request with 2 points: the platform adds the
	// "Header comment" check as a released comment and the review totals 32.
	id, score := propose(userGary, `{"class_id":1,"regrade_request_id":1,"decision":"resolve","points":2,"reason":"decided under rls: the header is there"}`)
	out := approve(userGary, id)
	if out.Outcome != approval.OutcomeApproved || out.RowID != "1" {
		t.Fatalf("approved: %+v", out)
	}
	want := state{status: "resolved", points: 2, by: privID(1, 2), comments: 1, reasons: 1, commentPoints: 2, notified: 1, total: 32}
	if got := read(1, "resolved_points", "resolved_by"); got != want {
		t.Errorf("after resolving: %+v, want %+v", got, want)
	}
	if got := score; got != `30 points → 32 points, the total of the review "Grading" (released: the student sees it)` {
		t.Errorf("the preview's score: %q", got)
	}
	if again := approve(userGary, id); again.Outcome != "already_approved" || again.RowID != "1" {
		t.Errorf("approved again: %+v", again)
	}
	if got := read(1, "resolved_points", "resolved_by"); got != want {
		t.Errorf("after approving again: %+v, want %+v", got, want)
	}

	// Alice closes Sofia's escalated request with 5 points: review 3
	// (unreleased, autograder 10) gains "Prints the greeting" at 5.
	id, score = propose(userAlice, `{"class_id":1,"regrade_request_id":3,"decision":"close","points":5,"reason":"decided under rls: half the greeting"}`)
	if out := approve(userAlice, id); out.Outcome != approval.OutcomeApproved {
		t.Fatalf("closing: %+v", out)
	}
	want = state{status: "closed", points: 5, by: privID(1, 1), comments: 1, reasons: 1, commentPoints: 5, notified: 1, total: 15}
	if got := read(3, "closed_points", "closed_by"); got != want {
		t.Errorf("after closing: %+v, want %+v", got, want)
	}
	if got := score; got != `10 points → 15 points, the total of the review "Grading" (not yet released to the student)` {
		t.Errorf("the preview's score: %q", got)
	}

	// An annotation check with no comment yet: on the line of the file the
	// check names; on review 7 (now 32), "Unclear name" takes 2 off.
	if _, err := db.Exec(ctx, `INSERT INTO public.submission_regrade_requests (id, submission_id, class_id, assignment_id, opened_at, created_by, assignee, status, initial_points, rubric_check_id, submission_review_id, last_updated_at)
		VALUES (90, 3, 1, 1, now(), $1, $2, 'opened', 0, 3, 7, now())`, privID(1, 3), privID(1, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := callWrite(t, reg, userGary, "decide_regrade_request", `{"class_id":1,"regrade_request_id":90,"decision":"resolve","points":2,"reason":"decided under rls"}`); err == nil ||
		err.Error() != `Regrade request 90 is about annotation check "Unclear name", which is not on the submission yet: give file_id and line for the comment Pawtograder adds (list_submission_files lists the files).` {
		t.Errorf("no location: %v", err)
	}
	if _, err := callWrite(t, reg, userGary, "decide_regrade_request", `{"class_id":1,"regrade_request_id":90,"decision":"resolve","points":2,"reason":"decided under rls","file_id":7,"line":3}`); err == nil ||
		err.Error() != `Rubric check "Unclear name" goes on src/Main.java; file 7 is src/Util.java.` {
		t.Errorf("the wrong file: %v", err)
	}
	if _, err := callWrite(t, reg, userGary, "decide_regrade_request", `{"class_id":1,"regrade_request_id":90,"decision":"resolve","points":2,"reason":"decided under rls","file_id":2,"line":3}`); err == nil ||
		err.Error() != `File 2 is not a file of submission #3.` {
		t.Errorf("another submission's file: %v", err)
	}
	id, score = propose(userGary, `{"class_id":1,"regrade_request_id":90,"decision":"resolve","points":2,"reason":"decided under rls: line 3","file_id":6,"line":3}`)
	if out := approve(userGary, id); out.Outcome != approval.OutcomeApproved {
		t.Fatalf("resolving on a line: %+v", out)
	}
	want = state{status: "resolved", points: 2, by: privID(1, 2), comments: 1, reasons: 1, commentPoints: 2, notified: 1, total: 30}
	if got := read(90, "resolved_points", "resolved_by"); got != want {
		t.Errorf("after resolving on a line: %+v, want %+v", got, want)
	}
	if got := score; got != `32 points → 30 points, the total of the review "Grading" (released: the student sees it)` {
		t.Errorf("the preview's score: %q", got)
	}
	var line int
	var file string
	if err := db.QueryRow(ctx, `SELECT c.line, f.name FROM public.submission_file_comments c JOIN public.submission_files f ON f.id = c.submission_file_id WHERE c.regrade_request_id = 90`).Scan(&line, &file); err != nil || line != 3 || file != "src/Main.java" {
		t.Errorf("the file comment: line %d of %q (%v)", line, file, err)
	}

	// Resolved by the instructor since the proposal: not decided again.
	id, _ = propose(userAlice, `{"class_id":1,"regrade_request_id":2,"decision":"close","points":7,"reason":"decided under rls, too late"}`)
	if _, err := db.Exec(ctx, `UPDATE public.submission_regrade_requests SET status = 'escalated', escalated_at = now() WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	if out := approve(userAlice, id); out.Outcome != approval.OutcomeFailed || out.Failure != "regrade_decided" {
		t.Errorf("decided since: %+v, want failed regrade_decided", out)
	}
	if st, err := svc.State(ctx, userAlice, id); err != nil || st.Failure != "The regrade request changed since the proposal: it was resolved and is now escalated, so it was not decided again and nothing was written." {
		t.Errorf("decided since, the tool's state: %+v, %v", st, err)
	}
	if got := read(2, "closed_points", "closed_by"); got.status != "escalated" || got.reasons != 0 || got.comments != 0 || got.notified != 0 {
		t.Errorf("decided since, written: %+v", got)
	}
}

// restoreRegradeSQL undoes what the decision tests write: requests 1, 2
// and 3 as seeded, request 90 and the comments, notifications and scores
// the decisions made.
const restoreRegradeSQL = `
DELETE FROM public.notifications WHERE body->>'type' = 'regrade_request' AND (body->>'regrade_request_id')::bigint IN (1, 2, 3, 90);
UPDATE public.submission_regrade_requests SET submission_comment_id = NULL, submission_file_comment_id = NULL, submission_artifact_comment_id = NULL WHERE id IN (1, 3, 90);
DELETE FROM public.submission_comments WHERE regrade_request_id IN (1, 3, 90);
DELETE FROM public.submission_file_comments WHERE regrade_request_id IN (1, 3, 90);
DELETE FROM public.submission_regrade_request_comments WHERE comment LIKE 'decided under rls%';
DELETE FROM public.submission_regrade_requests WHERE id = 90;
UPDATE public.submission_regrade_requests SET status = 'opened', resolved_by = NULL, resolved_at = NULL, resolved_points = NULL, resolution_reason = NULL,
  last_commented_at = '2026-01-23T10:00:00Z', last_commented_by = '20000001-0000-4000-8000-000000000003', last_updated_at = '2026-01-23T10:00:00Z' WHERE id = 1;
UPDATE public.submission_regrade_requests SET status = 'resolved', escalated_at = NULL WHERE id = 2;
UPDATE public.submission_regrade_requests SET status = 'escalated', closed_by = NULL, closed_at = NULL, closed_points = NULL, resolution_reason = NULL,
  last_commented_at = '2026-01-25T08:00:00Z', last_commented_by = '20000001-0000-4000-8000-000000000004', last_updated_at = '2026-01-25T08:00:00Z' WHERE id = 3;
UPDATE public.submission_reviews SET total_score = 30 WHERE id = 7;
UPDATE public.submission_reviews SET total_score = 10 WHERE id = 3;`
