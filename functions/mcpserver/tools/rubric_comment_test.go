package tools

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func TestRubricCommentRefusals(t *testing.T) {
	reg := New(Options{Approvals: &fakeApprovals{}})
	const tool = "add_rubric_comment"
	tests := []struct {
		name, user, args, want string
	}{
		{"student", userSam, `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"c"}`,
			"add_rubric_comment is for instructors and graders; you are a student in class 1, so nothing can be written there for you."},
		{"staff of another class", userBea, `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"c"}`,
			"You are not an instructor or grader in class 1, so nothing can be written there for you."},
		{"another class's submission", userAlice, `{"class_id":1,"submission_id":8,"rubric_check_id":4,"comment":"c"}`,
			"Submission 8 was not found in class 1."},
		{"another class's check", userAlice, `{"class_id":1,"submission_id":3,"rubric_check_id":8,"comment":"c"}`,
			"Rubric check 8 was not found in class 1."},
		{"a check of no review of the submission", userAlice, `{"class_id":1,"submission_id":3,"rubric_check_id":7,"comment":"c"}`,
			`Rubric check "Within one point" is not on a rubric of submission 3's reviews (get_rubric lists the checks of the assignment's rubrics).`},
		{"points above the check's", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"c","points":6}`,
			`Rubric check "Single method" carries 5 points; points must be from 0 to 5.`},
		{"negative points on an additive check", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"c","points":-1}`,
			`Rubric check "Single method" carries 5 points; points must be from 0 to 5.`},
		{"positive points on a deduction", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":3,"comment":"c","points":1,"file_id":6,"line":2}`,
			`Rubric check "Unclear name" carries -2 points; points must be from -2 to 0.`},
		{"an annotation without a place", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":3,"comment":"c"}`,
			`Rubric check "Unclear name" is an annotation: give file_id and line (list_submission_files lists the files).`},
		{"an annotation on another file", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":3,"comment":"c","file_id":7,"line":2}`,
			`Rubric check "Unclear name" goes on src/Main.java; file 7 is src/Util.java.`},
		{"another submission's file", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":3,"comment":"c","file_id":2,"line":2}`,
			`File 2 is not a file of submission #3.`},
		{"a place for a check that is not an annotation", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"c","file_id":6,"line":2}`,
			`Rubric check "Single method" is not an annotation; it applies to the whole submission and takes no file_id or line.`},
		{"missing comment", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":4}`,
			"Invalid params: missing required argument 'comment' for tool add_rubric_comment"},
		{"points as text", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"c","points":"5"}`,
			"Invalid params: argument 'points' of tool add_rubric_comment must be a number"},
		{"missing check", userGary, `{"class_id":1,"submission_id":3,"comment":"c"}`,
			"Invalid params: missing required argument 'rubric_check_id' for tool add_rubric_comment"},
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

// TestRubricCommentProposal: Gary applies "Single method" (5 points, in
// the additive "Structure" criterion of at most 5) to Sam's graded and
// released HW1 submission: review 7, 30 points from the autograder alone,
// becomes 35.
func TestRubricCommentProposal(t *testing.T) {
	fa := &fakeApprovals{}
	if _, err := callWrite(t, New(Options{Approvals: fa}), userGary, "add_rubric_comment",
		`{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"One method does it all."}`); err != nil {
		t.Fatal(err)
	}
	var sam, gary, title string
	if err := testEnv(t).DB(t).QueryRow(context.Background(), `SELECT s.name, g.name, a.title
		FROM public.submissions sub JOIN public.profiles s ON s.id = sub.profile_id JOIN public.assignments a ON a.id = sub.assignment_id
		JOIN public.profiles g ON g.id = $1 WHERE sub.id = 3`, privID(1, 2)).Scan(&sam, &gary, &title); err != nil {
		t.Fatal(err)
	}
	course := "CS 3500: Object-Oriented Design"
	want := approval.Preview{
		Action:     `Apply rubric check "Single method" to submission #3 with 5 points, on the submission`,
		As:         gary + " (grader in " + course + ")",
		Where:      "Submission #3 from " + sam + " on \"" + title + "\", review \"Grading\", in " + course,
		Visibility: "The review is released: the submission's students see this comment and the new score at once; every instructor and grader of " + course + " can read it",
		Fields: []approval.PreviewField{
			{Label: "The rubric check", Text: `"Single method" (5 points), in criterion "Structure" (additive, at most 5 points)`},
			{Label: "The submission's score", Text: `30 points → 35 points, the total of the review "Grading" (released: the student sees it)`},
			{Label: "Your comment", Text: "One method does it all."},
		},
		Written: "rubric comment",
		Write: approval.WritePlan{
			Values: rubricCommentValues{ClassID: 1, SubmissionID: 3, CheckID: 4, ReviewID: float64(7),
				Author: privID(1, 2), Comment: "One method does it all.", Points: 5},
			Expect: rubricCommentExpect{Released: true}},
	}
	if len(fa.proposals) != 1 {
		t.Fatalf("%d proposals", len(fa.proposals))
	}
	if diff := cmp.Diff(want, fa.proposals[0].Preview); diff != "" {
		t.Errorf("preview (-want +got):\n%s", diff)
	}
}

// restoreRubricSQL undoes what TestRubricCommentsApprovedUnderRLS writes.
const restoreRubricSQL = `
DELETE FROM public.submission_comments WHERE comment LIKE 'rubric under rls%';
DELETE FROM public.submission_file_comments WHERE comment LIKE 'rubric under rls%';
UPDATE public.submission_reviews SET total_score = 30 WHERE id = 7;
UPDATE public.submission_reviews SET total_score = 10, released = false WHERE id = 3;`

// TestRubricCommentsApprovedUnderRLS approves rubric comments through the
// approval's SQL function, as the approving person, and holds the data to
// the preview: the row in the web app's table with the check's points,
// released as the review is, and the review's total after Pawtograder's
// recompute equal to the preview's. A review released since the proposal
// and a plan whose points were altered in storage write nothing. On the
// real-schema route this runs on the platform's own policies and
// triggers.
func TestRubricCommentsApprovedUnderRLS(t *testing.T) {
	rig := newApprovalRig(t)
	ctx := context.Background()
	db, svc := rig.db, rig.svc
	t.Cleanup(func() {
		if _, err := db.Exec(context.Background(), restoreRubricSQL); err != nil {
			t.Errorf("restoring the seed: %v", err)
		}
	})
	reg := New(Options{Approvals: svc})
	propose := func(user, args string) (string, string) {
		t.Helper()
		v, err := callWrite(t, reg, user, "add_rubric_comment", args)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := v.(*Proposed).Value.String("action_id")
		pv, _ := v.(*Proposed).Value.Object("preview")
		fields, _ := pv.Value("fields").([]any)
		f, _ := fields[1].(*jsjson.Object)
		score, _ := f.String("text")
		return id, score
	}
	approve := rig.approve
	type row struct {
		table, author string
		check, review int
		points        float64
		released      bool
		line          int
		total         float64
	}
	read := func(comment string) (row, int) {
		t.Helper()
		var r row
		var n int
		if err := db.QueryRow(ctx, `WITH c AS (
			SELECT 'submission_comments' AS t, author, rubric_check_id, submission_review_id, points, released, 0 AS line FROM public.submission_comments WHERE comment = $1
			UNION ALL
			SELECT 'submission_file_comments', author, rubric_check_id, submission_review_id, points, released, line FROM public.submission_file_comments WHERE comment = $1)
			SELECT (SELECT count(*) FROM c), coalesce(max(c.t), ''), coalesce(max(c.author::text), ''), coalesce(max(c.rubric_check_id), 0), coalesce(max(c.submission_review_id), 0),
			       coalesce(max(c.points), 0)::float8, coalesce(bool_or(c.released), false), coalesce(max(c.line), 0),
			       coalesce((SELECT total_score FROM public.submission_reviews WHERE id = max(c.submission_review_id)), 0)::float8
			  FROM c`, comment).Scan(&n, &r.table, &r.author, &r.check, &r.review, &r.points, &r.released, &r.line, &r.total); err != nil {
			t.Fatal(err)
		}
		return r, n
	}
	check := func(name, user, args, comment, wantScore string, want row) {
		t.Helper()
		id, score := propose(user, args)
		if score != wantScore {
			t.Errorf("%s: the preview's score %q, want %q", name, score, wantScore)
		}
		out := approve(user, id)
		if out.Outcome != approval.OutcomeApproved {
			t.Fatalf("%s: %+v", name, out)
		}
		if again := approve(user, id); again.Outcome != "already_approved" || again.RowID != out.RowID {
			t.Errorf("%s: approved again: %+v", name, again)
		}
		if got, n := read(comment); n != 1 || got != want {
			t.Errorf("%s: %d rows, %+v; want one, %+v", name, n, got, want)
		}
	}

	check("a check on the submission", userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"rubric under rls: one method"}`,
		"rubric under rls: one method", `30 points → 35 points, the total of the review "Grading" (released: the student sees it)`,
		row{table: "submission_comments", author: privID(1, 2), check: 4, review: 7, points: 5, released: true, total: 35})
	// The seed's "Unclear name" carries -2 in a deduction-only criterion;
	// Pawtograder counts such a criterion as greatest(-points, -total), so
	// -2 adds 2 (its rubric editor stores deductions as positive points).
	check("an annotation on a line", userAlice, `{"class_id":1,"submission_id":3,"rubric_check_id":3,"comment":"rubric under rls: name","file_id":6,"line":2}`,
		"rubric under rls: name", `35 points → 37 points, the total of the review "Grading" (released: the student sees it)`,
		row{table: "submission_file_comments", author: privID(1, 1), check: 3, review: 7, points: -2, released: true, line: 2, total: 37})
	check("part of a check on an unreleased review", userAlice, `{"class_id":1,"submission_id":4,"rubric_check_id":1,"comment":"rubric under rls: most of it","points":4}`,
		"rubric under rls: most of it", `10 points → 14 points, the total of the review "Grading" (not yet released to the student)`,
		row{table: "submission_comments", author: privID(1, 1), check: 1, review: 3, points: 4, released: false, total: 14})

	// Released since the proposal: the students would see it at once,
	// which the preview did not say.
	id, _ := propose(userAlice, `{"class_id":1,"submission_id":4,"rubric_check_id":5,"comment":"rubric under rls: too late"}`)
	if _, err := db.Exec(ctx, `UPDATE public.submission_reviews SET released = true WHERE id = 3`); err != nil {
		t.Fatal(err)
	}
	if out := approve(userAlice, id); out.Outcome != approval.OutcomeFailed || out.Failure != "review_changed" {
		t.Errorf("released since: %+v, want failed review_changed", out)
	}
	if st, err := svc.State(ctx, userAlice, id); err != nil || st.Failure != "The review was released to the students since the proposal, so they would see the comment at once; nothing was written." {
		t.Errorf("released since, the tool's state: %+v, %v", st, err)
	}
	if _, n := read("rubric under rls: too late"); n != 0 {
		t.Errorf("released since: %d rows written", n)
	}

	// Points altered in storage beyond the check's are refused.
	id, _ = propose(userGary, `{"class_id":1,"submission_id":3,"rubric_check_id":5,"comment":"rubric under rls: altered"}`)
	if _, err := db.Exec(ctx, `UPDATE public.mcp_pending_actions SET preview = jsonb_set(preview, '{write,values,points}', '99') WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if out := approve(userGary, id); out.Outcome != approval.OutcomeFailed || out.Failure != "refused" {
		t.Errorf("altered points: %+v, want failed refused", out)
	}
	if _, n := read("rubric under rls: altered"); n != 0 {
		t.Errorf("altered points: %d rows written", n)
	}
}

// TestRubricCommentGroupPartsRefused: a check in a part graded per student
// of a group, or assigned to one student, is refused (the web app has the
// grader choose the student there), whatever else the call gets right.
func TestRubricCommentGroupPartsRefused(t *testing.T) {
	db := testEnv(t).DB(t)
	reset := func() {
		if _, err := db.Exec(context.Background(), `UPDATE public.rubric_parts SET is_individual_grading = false, is_assign_to_student = false WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(reset)
	reg := New(Options{Approvals: &fakeApprovals{}})
	for _, tt := range []struct{ column, want string }{
		{"is_individual_grading", `Rubric check "Single method" is graded per student of the group; apply it in Pawtograder, where you choose the student.`},
		{"is_assign_to_student", `Rubric check "Single method" belongs to a part assigned to one student of the group; apply it in Pawtograder.`},
	} {
		t.Run(tt.column, func(t *testing.T) {
			reset()
			if _, err := db.Exec(context.Background(), `UPDATE public.rubric_parts SET `+tt.column+` = true WHERE id = 1`); err != nil {
				t.Fatal(err)
			}
			_, err := callWrite(t, reg, userGary, "add_rubric_comment", `{"class_id":1,"submission_id":3,"rubric_check_id":4,"comment":"c"}`)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want the refusal %q", err, tt.want)
			}
		})
	}
}
