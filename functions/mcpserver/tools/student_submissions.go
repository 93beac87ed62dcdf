package tools

import (
	"context"
	"encoding/json"
	"fmt"
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
var listStudentSubmissionsTool = staffTool(listStudentSubmissions, Tool{
	Name:  "list_student_submissions",
	Title: "List a student's submissions",
	Description: "Returns a student's submissions in a class, newest first, across all assignments or in one, " +
		"each with its autograder result (score, lint, tests, build output); the same shape as get_submissions_for_student.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"student_profile_id":{"type":"string","description":"The public profile ID of the student"},
		"assignment_id":{"type":"number","description":"Only submissions to this assignment (default: every assignment)"},
		"limit":{"type":"integer","description":"Maximum number of submissions (default 10, at most 50)","default":10,"minimum":1,"maximum":50},
		"include_files":{"type":"boolean","description":"Include submission file contents (default false)","default":false}},
		"required":["class_id","student_profile_id"]}`),
	Result:  listStudentSubmissionsSchema,
	Example: `{"class_id":1,"student_profile_id":"30000001-0000-4000-8000-000000000003"}`,
})

// listStudentSubmissionsSchema is list_student_submissions' value.
const listStudentSubmissionsSchema = `{"type":"array","items":{"$ref":"#/$defs/submission"}}`

// boundedLimit is the integer argument name clamped to [1, hi], def when
// absent (validateArgs has admitted only integers).
func boundedLimit(c *Call, name string, def, hi int) int {
	f, isNum := c.Args.Value(name).(float64)
	if !isNum {
		return def
	}
	return int(min(max(f, 1), float64(hi)))
}

// submissionResult is the submission S (docs/contract/tools.md §1.7, the
// schema definition "submission"), which the shared submission code
// builds for the original's tools too: files with include_files, else
// file_count and file_names.
type submissionResult struct {
	ID               float64            `json:"id"`
	AssignmentID     float64            `json:"assignment_id"`
	CreatedAt        string             `json:"created_at"`
	SHA              *string            `json:"sha"`
	Repository       *string            `json:"repository"`
	Ordinal          float64            `json:"ordinal"`
	IsActive         bool               `json:"is_active"`
	StudentProfileID *string            `json:"student_profile_id"`
	StudentName      *string            `json:"student_name"`
	GraderResult     *graderResultValue `json:"grader_result"`
	Files            *[]submissionFile  `json:"files,omitempty"`
	FileCount        *float64           `json:"file_count,omitempty"`
	FileNames        *[]string          `json:"file_names,omitempty"`
}

// submissionFile is one file of S with include_files.
type submissionFile struct {
	ID       float64 `json:"id"`
	Name     string  `json:"name"`
	Contents *string `json:"contents"`
}

// graderResultValue is G (§1.6, the definition "graderResult"): the
// latest grader result with its tests, or without the tests' output their
// counts and names.
type graderResultValue struct {
	ID               float64          `json:"id"`
	Score            float64          `json:"score"`
	MaxScore         float64          `json:"max_score"`
	LintPassed       bool             `json:"lint_passed"`
	LintOutput       string           `json:"lint_output"`
	LintOutputFormat string           `json:"lint_output_format"`
	Errors           json.RawMessage  `json:"errors"`
	ExecutionTime    *float64         `json:"execution_time"`
	RetCode          *float64         `json:"ret_code"`
	Tests            []graderTest     `json:"tests"`
	BuildOutput      *buildOutputItem `json:"build_output"`
	TestCount        *float64         `json:"test_count,omitempty"`
	TestsPassed      *float64         `json:"tests_passed,omitempty"`
	TestsFailed      *float64         `json:"tests_failed,omitempty"`
	TestNames        *[]string        `json:"test_names,omitempty"`
}

// graderTest is one test of G (the definition "test").
type graderTest struct {
	ID           float64  `json:"id"`
	Name         string   `json:"name"`
	Part         *string  `json:"part"`
	Score        *float64 `json:"score"`
	MaxScore     *float64 `json:"max_score"`
	Output       *string  `json:"output"`
	OutputFormat *string  `json:"output_format"`
	IsReleased   bool     `json:"is_released"`
}

// buildOutputItem is G's build output (the definition "build").
type buildOutputItem struct {
	Stdout         *nullValue `json:"stdout"`
	Stderr         *nullValue `json:"stderr"`
	CombinedOutput string     `json:"combined_output"`
	OutputFormat   string     `json:"output_format"`
}

// listStudentSubmissions orders by created_at and then id, both descending,
// so submissions made in the same instant keep one order. Each S comes
// from the code the original's tools share (studentSubmissions), read into
// submissionResult.
func listStudentSubmissions(ctx context.Context, c *Call) ([]submissionResult, error) {
	cid := arg(c.Args, "class_id")
	privateID, ok := c.privateProfileID(ctx, cid, arg(c.Args, "student_profile_id"))
	if !ok || privateID == "" {
		return []submissionResult{}, nil
	}
	q := c.DB.From("submissions").Select(submissionSelect(isTrue(c.Args, "include_files"))).
		Eq("profile_id", privateID).
		Eq("class_id", cid)
	if c.Args.Value("assignment_id") != nil {
		q = q.Eq("assignment_id", arg(c.Args, "assignment_id"))
	}
	q = q.Order("created_at", false).Order("id", false).
		Limit(boundedLimit(c, "limit", listStudentSubmissionsDefault, listStudentSubmissionsMax))
	var out []submissionResult
	if err := decodeTyped(c.studentSubmissions(ctx, q, cid, privateID, isTrue(c.Args, "include_files")), &out); err != nil {
		return nil, fmt.Errorf("tools: list_student_submissions: the shared submission no longer fits submissionResult: %w", err)
	}
	return out, nil
}
