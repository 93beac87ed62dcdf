package tools

// The submission tools (docs/contract/tools.md §2.3–§2.8 and §2.13).

import (
	"context"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/minimatch"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// isTrue is the original's `args.x === true`.
func isTrue(args *jsjson.Object, name string) bool {
	v, _ := args.Get(name)
	b, ok := v.(bool)
	return ok && b
}

// notFalse is the original's `args.x !== false`.
func notFalse(args *jsjson.Object, name string) bool {
	v, _ := args.Get(name)
	b, ok := v.(bool)
	return !ok || b
}

// submissionArgs are the two arguments every submission tool shares.
func submissionArgs(args *jsjson.Object) (submissionID, classID string) {
	return arg(args, "submission_id"), arg(args, "class_id")
}

var getSubmissionTool = Tool{
	Name:        "get_submission",
	Title:       "Get submission",
	Summary:     "Returns one submission with its student, autograder result (score, lint, tests, build output) and, on request, test output and file contents.",
	Description: "Get a submission summary with grader results. By default, returns metadata only (file count, test summary). Use granular tools (list_submission_files, get_submission_files, list_submission_tests, get_test_output) to fetch specific data.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"submission_id":{"type":"number","description":"The ID of the submission to fetch"},
		"class_id":{"type":"number","description":"The class ID where the submission exists"},
		"include_test_output":{"type":"boolean","description":"Whether to include full test output (default: false)","default":false},
		"include_files":{"type":"boolean","description":"Whether to include submission file contents (default: false)","default":false}},
		"required":["submission_id","class_id"]}`),
	Result: getSubmissionSchema,
	Scope:  ScopeRead,
	Handler: func(ctx context.Context, c *Call) (any, error) {
		sid, cid := submissionArgs(c.Args)
		return c.submissionContext(ctx, sid, cid, isTrue(c.Args, "include_test_output"), isTrue(c.Args, "include_files")), nil
	},
}

var listSubmissionFilesTool = Tool{
	Name:        "list_submission_files",
	Title:       "List submission files",
	Summary:     "Returns the names and sizes of a submission's files, without contents.",
	Description: "List all files in a submission with names and sizes (no contents). Use get_submission_files to fetch contents filtered by glob pattern.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"submission_id":{"type":"number","description":"The ID of the submission"},
		"class_id":{"type":"number","description":"The class ID where the submission exists"}},
		"required":["submission_id","class_id"]}`),
	Result: listSubmissionFilesSchema,
	Scope:  ScopeRead,
	Handler: func(ctx context.Context, c *Call) (any, error) {
		sid, cid := submissionArgs(c.Args)
		return c.submissionFileList(ctx, sid, cid), nil
	},
}

var getSubmissionFilesTool = Tool{
	Name:        "get_submission_files",
	Title:       "Get submission files",
	Summary:     "Returns the contents of a submission's files whose names match an optional glob pattern.",
	Description: "Get file contents from a submission. Use glob_pattern to filter files (e.g., '*.java', 'src/**/*.py', 'test/*').",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"submission_id":{"type":"number","description":"The ID of the submission"},
		"class_id":{"type":"number","description":"The class ID where the submission exists"},
		"glob_pattern":{"type":"string","description":"Glob pattern to filter files (e.g., '*.java', 'src/**/*.py', 'test/*')"}},
		"required":["submission_id","class_id"]}`),
	Result:  getSubmissionFilesSchema,
	Scope:   ScopeRead,
	Handler: getSubmissionFiles,
}

// getSubmissionFiles is §2.5. The glob is compiled only when there are rows
// to filter because the original called minimatch per row: a pattern it
// rejects fails the call (the exception's message becomes a -32000 error)
// only when the submission has files.
func getSubmissionFiles(ctx context.Context, c *Call) (any, error) {
	sid, cid := submissionArgs(c.Args)
	rows, _ := c.fileQuery(ctx, sid, cid, "id,name,contents")
	var m *minimatch.Matcher
	if pattern, _ := c.Args.String("glob_pattern"); pattern != "" && len(rows) > 0 {
		var err error
		if m, err = minimatch.Compile(pattern); err != nil {
			return nil, err
		}
	}
	files := make([]any, 0, len(rows))
	for _, r := range rows {
		name, _ := r.String("name")
		if m != nil && !m.Match(name) {
			continue
		}
		files = append(files, jsjson.NewObject(3).
			Set("id", r.Value("id")).
			Set("name", r.Value("name")).
			Set("contents", r.Value("contents")))
	}
	return jsjson.NewObject(2).Set("files", files).Set("matched_count", float64(len(files))), nil
}

var listSubmissionTestsTool = Tool{
	Name:        "list_submission_tests",
	Title:       "List submission tests",
	Summary:     "Returns a submission's autograder tests with score, maximum and pass state, and a summary of passed, failed and points.",
	Description: "List test results with pass/fail status and scores (no output). Use get_test_output to fetch full output for specific tests.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"submission_id":{"type":"number","description":"The ID of the submission"},
		"class_id":{"type":"number","description":"The class ID where the submission exists"},
		"only_failed":{"type":"boolean","description":"Only return failed tests","default":false}},
		"required":["submission_id","class_id"]}`),
	Result:  listSubmissionTestsSchema,
	Scope:   ScopeRead,
	Handler: listSubmissionTests,
}

// latestGraderResult fetches the latest grader result of a submission with
// the given select list (which may embed its tests or output), as the
// original's "first get the grader result id" query followed by a second
// query on the id: one round trip instead of two.
func (c *Call) latestGraderResult(ctx context.Context, submissionID, classID, columns string, extra func(q *postgrest.Query) *postgrest.Query) (*jsjson.Object, bool) {
	q := c.DB.From("grader_results").Select(columns).
		Eq("submission_id", submissionID).
		Eq("class_id", classID).
		Order("created_at", false).
		Limit(1)
	if extra != nil {
		q = extra(q)
	}
	raw, err := q.MaybeSingle(ctx)
	row := c.pgObject(ctx, raw, err)
	return row, row != nil
}

// listSubmissionTests is §2.6, with only_failed applying the pass rule
// (quirk 6 fixed); the summary covers the returned tests. At negotiated
// revisions each test also says whether it is released to the student
// (is_released, S31).
func listSubmissionTests(ctx context.Context, c *Call) (any, error) {
	sid, cid := submissionArgs(c.Args)
	onlyFailed := isTrue(c.Args, "only_failed")
	withFields := negotiated(ctx)
	columns := "id,name,part,score,max_score"
	if withFields {
		columns += ",is_released"
	}
	tests := make([]any, 0)
	var passed, failed int
	var totalScore, maxScore float64
	row, ok := c.latestGraderResult(ctx, sid, cid, "id,"+testsEmbed+"("+columns+")",
		func(q *postgrest.Query) *postgrest.Query {
			return q.OrderIn("grader_result_tests", "id", true).LimitIn("grader_result_tests", maxRows)
		})
	if ok {
		for _, t := range embedRows(row, "grader_result_tests") {
			score, maxS := numberOrNull(t.Value("score")), numberOrNull(t.Value("max_score"))
			isPassed := testPassed(score, maxS)
			// The original's only_failed filter compared score with the text
			// "max_score" and always failed; we apply the pass rule instead.
			if onlyFailed && isPassed {
				continue
			}
			test := jsjson.NewObject(7).
				Set("id", t.Value("id")).
				Set("name", t.Value("name")).
				Set("part", t.Value("part")).
				Set("score", score).
				Set("max_score", maxS).
				Set("passed", isPassed)
			if withFields {
				released, _ := t.Value("is_released").(bool)
				test.Set("is_released", released)
			}
			tests = append(tests, test)
			if f, ok := maxS.(float64); ok {
				maxScore += f
			}
			if f, ok := score.(float64); ok {
				totalScore += f
			}
			if isPassed {
				passed++
			} else {
				failed++
			}
		}
	}
	return jsjson.NewObject(2).
		Set("tests", tests).
		Set("summary", jsjson.NewObject(4).
			Set("passed", float64(passed)).
			Set("failed", float64(failed)).
			Set("total_score", totalScore).
			Set("max_score", maxScore)), nil
}

// numberOrNull is `v !== null ? Number(v) : null`; NaN is kept as nil,
// which is how JSON.stringify prints it.
func numberOrNull(v any) any {
	if v == nil {
		return nil
	}
	f, ok := jsNumber(v)
	if !ok {
		return nil
	}
	return f
}

var getTestOutputTool = Tool{
	Name:        "get_test_output",
	Title:       "Get test output",
	Summary:     "Returns the full output of one autograder test of a submission, found by test id or name.",
	Description: "Get the full output for a specific test by ID or name.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"submission_id":{"type":"number","description":"The ID of the submission"},
		"class_id":{"type":"number","description":"The class ID where the submission exists"},
		"test_id":{"type":"number","description":"The ID of the test"},
		"test_name":{"type":"string","description":"The name of the test"}},
		"required":["submission_id","class_id"]}`),
	Result:  getTestOutputSchema,
	Scope:   ScopeRead,
	Handler: getTestOutput,
}

// getTestOutput is §2.7; a call without a usable selector is rejected
// (quirk 3 fixed).
func getTestOutput(ctx context.Context, c *Call) (any, error) {
	sid, cid := submissionArgs(c.Args)
	testID, _ := c.Args.Get("test_id")
	testName, _ := c.Args.Get("test_name")
	var column, value string
	switch {
	case jsjson.Truthy(testID): // test_id wins when both are given, as in the original
		column, value = "grader_result_tests.id", arg(c.Args, "test_id")
	case jsjson.Truthy(testName):
		column, value = "grader_result_tests.name", arg(c.Args, "test_name")
	default:
		// The original looked up the grader result and then answered
		// {"test": null}; a call that cannot select a test is a caller error.
		return nil, &InvalidParamsError{Message: "Invalid params: tool get_test_output needs a non-zero test_id or a non-empty test_name"}
	}
	none := jsjson.NewObject(1).Set("test", nil)
	row, ok := c.latestGraderResult(ctx, sid, cid, "id,"+testsEmbed+"(id,name,part,output,output_format)",
		func(q *postgrest.Query) *postgrest.Query {
			// Ordered so that duplicate names give the lowest id rather than an
			// arbitrary row.
			return q.Eq(column, value).OrderIn("grader_result_tests", "id", true).LimitIn("grader_result_tests", 1)
		})
	if !ok {
		return none, nil
	}
	tests := embedRows(row, "grader_result_tests")
	if len(tests) == 0 {
		return none, nil
	}
	t := tests[0]
	return jsjson.NewObject(1).Set("test", jsjson.NewObject(5).
		Set("id", t.Value("id")).
		Set("name", t.Value("name")).
		Set("part", t.Value("part")).
		Set("output", t.Value("output")).
		Set("output_format", t.Value("output_format"))), nil
}

var getSubmissionBuildOutputTool = Tool{
	Name:        "get_submission_build_output",
	Title:       "Get build output",
	Summary:     "Returns a submission's build output and, on request, its lint result.",
	Description: "Get build output (stdout/stderr) and optionally lint results separately.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"submission_id":{"type":"number","description":"The ID of the submission"},
		"class_id":{"type":"number","description":"The class ID where the submission exists"},
		"include_lint":{"type":"boolean","description":"Whether to include lint results","default":true}},
		"required":["submission_id","class_id"]}`),
	Result:  getSubmissionBuildOutputSchema,
	Scope:   ScopeRead,
	Handler: getSubmissionBuildOutput,
}

// getSubmissionBuildOutput is §2.8 in one request: the grader result with
// its chosen output row embedded.
func getSubmissionBuildOutput(ctx context.Context, c *Call) (any, error) {
	sid, cid := submissionArgs(c.Args)
	includeLint := notFalse(c.Args, "include_lint")
	out := jsjson.NewObject(2)
	row, ok := c.latestGraderResult(ctx, sid, cid, "id,lint_passed,lint_output,lint_output_format,"+outputEmbed+"(output,format)", orderedBuildOutput)
	if !ok {
		out.Set("build", nil)
		if includeLint {
			out.Set("lint", nil)
		}
		return out, nil
	}
	out.Set("build", buildOutputOf(embedRows(row, "grader_result_output")))
	if includeLint {
		lintOutput := row.Value("lint_output")
		if !jsjson.Truthy(lintOutput) {
			lintOutput = ""
		}
		lintFormat := row.Value("lint_output_format")
		if !jsjson.Truthy(lintFormat) {
			lintFormat = "text"
		}
		out.Set("lint", jsjson.NewObject(3).
			Set("passed", row.Value("lint_passed")).
			Set("output", lintOutput).
			Set("output_format", lintFormat))
	}
	return out, nil
}

var getSubmissionsForStudentTool = Tool{
	Name:        "get_submissions_for_student",
	Title:       "Get a student's submissions",
	Summary:     "Returns a student's submissions to one assignment, newest first, each with its autograder result.",
	Description: "Get all submissions for a student on a specific assignment.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"student_profile_id":{"type":"string","description":"The public profile ID of the student"},
		"assignment_id":{"type":"number","description":"The assignment ID"},
		"class_id":{"type":"number","description":"The class ID"},
		"limit":{"type":"number","description":"Maximum number of submissions to return (default 10)","default":10},
		"include_files":{"type":"boolean","description":"Include submission file contents (default false)","default":false}},
		"required":["student_profile_id","assignment_id","class_id"]}`),
	Result:  getSubmissionsForStudentSchema,
	Scope:   ScopeRead,
	Handler: getSubmissionsForStudent,
}

// studentLimit is `Math.min(args.limit ?? 10, MAX_ROWS)`; ok is false for
// a negative limit (PostgREST refuses its range and the original answered
// []) and for a fractional one (PostgREST ignores it and the original
// returned every submission: docs/compatibility.md Q16).
func studentLimit(args *jsjson.Object) (int, bool) {
	v, _ := args.Get("limit")
	if v == nil {
		return 10, true
	}
	f, ok := v.(float64)
	if !ok {
		return 0, false // validateArgs admits only numbers here
	}
	f = min(f, maxRows)
	if f < 0 || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// getSubmissionsForStudent is §2.13. The original built each submission
// with four requests of its own, one after another; here the submission
// rows embed their grader results and files (studentSubmissions), so the
// tool reads them in one request.
func getSubmissionsForStudent(ctx context.Context, c *Call) (any, error) {
	cid := arg(c.Args, "class_id")
	aid := arg(c.Args, "assignment_id")
	includeFiles := isTrue(c.Args, "include_files")
	empty := []any{}

	privateID, ok := c.privateProfileID(ctx, cid, arg(c.Args, "student_profile_id"))
	if !ok || privateID == "" {
		return empty, nil
	}
	limit, ok := studentLimit(c.Args)
	if !ok || limit == 0 {
		return empty, nil // limit=0 returns no rows; the others fail
	}
	// The original fetched only ids and then each submission row again by
	// id; the rows are the same, so fetch them here once.
	q := c.DB.From("submissions").Select(submissionSelect(includeFiles)).
		Eq("profile_id", privateID).
		Eq("assignment_id", aid).
		Eq("class_id", cid).
		Order("created_at", false).
		Limit(limit)
	return c.studentSubmissions(ctx, q, cid, privateID, includeFiles), nil
}

// studentSubmissions runs q, a query of one student's submission rows
// (submissionSelect, every row's profile_id privateID), with the embeds'
// filters, orders and limits added, and builds each row's submission S in
// the query's order.
func (c *Call) studentSubmissions(ctx context.Context, q *postgrest.Query, cid, privateID string, includeFiles bool) []any {
	empty := []any{}
	raw, err := withSubmissionEmbeds(q, "", cid).Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok || len(rows) == 0 {
		return empty
	}
	out := make([]any, 0, len(rows))
	for _, row := range rows {
		out = append(out, c.buildSubmission(row, cid, true, includeFiles))
	}
	return out
}
