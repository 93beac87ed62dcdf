package tools

import (
	"context"
)

// Limits of list_student_submissions.
const (
	listStudentSubmissionsDefault = 10
	listStudentSubmissionsMax     = 50
)

// listStudentSubmissionsTool is list_student_submissions, the name
// Pawtograder's AI Help prompts use: a student's submissions in a class,
// across its assignments or in one, each in get_submissions_for_student's
// shape (the submission S, docs/contract/tools.md §1.8). Listed only on
// negotiated revisions.
var listStudentSubmissionsTool = Tool{
	Name:           "list_student_submissions",
	Title:          "List a student's submissions",
	NegotiatedOnly: true,
	Description: "Returns a student's submissions in a class, newest first, across all assignments or in one, " +
		"each with its autograder result (score, lint, tests, build output); the same shape as get_submissions_for_student.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"student_profile_id":{"type":"string","description":"The public profile ID of the student"},
		"assignment_id":{"type":"number","description":"Only submissions to this assignment (default: every assignment)"},
		"limit":{"type":"integer","description":"Maximum number of submissions (default 10, at most 50)","default":10,"minimum":1,"maximum":50},
		"include_files":{"type":"boolean","description":"Include submission file contents (default false)","default":false}},
		"required":["class_id","student_profile_id"]}`),
	Scope:   ScopeRead,
	Handler: listStudentSubmissions,
}

// boundedLimit is the integer argument name clamped to [1, hi], def when
// absent (validateArgs has admitted only integers).
func boundedLimit(c *Call, name string, def, hi int) int {
	f, isNum := c.Args.Value(name).(float64)
	if !isNum {
		return def
	}
	return int(min(max(f, 1), float64(hi)))
}

// listStudentSubmissions orders by created_at and then id, both descending,
// so submissions made in the same instant keep one order.
func listStudentSubmissions(ctx context.Context, c *Call) (any, error) {
	cid := arg(c.Args, "class_id")
	privateID, ok := c.privateProfileID(ctx, cid, arg(c.Args, "student_profile_id"))
	if !ok || privateID == "" {
		return []any{}, nil
	}
	q := c.DB.From("submissions").Select(submissionColumns).
		Eq("profile_id", privateID).
		Eq("class_id", cid)
	if c.Args.Value("assignment_id") != nil {
		q = q.Eq("assignment_id", arg(c.Args, "assignment_id"))
	}
	q = q.Order("created_at", false).Order("id", false).
		Limit(boundedLimit(c, "limit", listStudentSubmissionsDefault, listStudentSubmissionsMax))
	return c.studentSubmissions(ctx, q, cid, privateID, isTrue(c.Args, "include_files")), nil
}
