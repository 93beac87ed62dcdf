package tools

import (
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Structured output (MCP 2025-06-18 and later) requires an object, but
// several tools answer with an array or null. Every tool therefore wraps its
// result the same way: structuredContent is {"result": <the tool's value>},
// and the text block keeps the original JSON unchanged
// (docs/compatibility.md). These schemas describe <the tool's value>.

// schemaDefs are the shapes several tools share (docs/contract/tools.md §1.5–§1.7).
var schemaDefs = map[string]string{
	"nstring": `{"type":["string","null"]}`,
	"nnumber": `{"type":["number","null"]}`,
	"assignment": `{"type":"object","required":["id","title","slug","description","handout_url","due_date","release_date","total_points","has_autograder","class_id"],
		"properties":{"id":{"type":"number"},"title":{"type":"string"},"slug":{"$ref":"#/$defs/nstring"},"description":{"$ref":"#/$defs/nstring"},
		"handout_url":{"$ref":"#/$defs/nstring"},"due_date":{"type":"string"},"release_date":{"$ref":"#/$defs/nstring"},
		"total_points":{"$ref":"#/$defs/nnumber"},"has_autograder":{"type":"boolean"},"class_id":{"type":"number"}},"additionalProperties":false}`,
	"test": `{"type":"object","required":["id","name","part","score","max_score","output","output_format","is_released"],
		"properties":{"id":{"type":"number"},"name":{"type":"string"},"part":{"$ref":"#/$defs/nstring"},"score":{"$ref":"#/$defs/nnumber"},
		"max_score":{"$ref":"#/$defs/nnumber"},"output":{"$ref":"#/$defs/nstring"},"output_format":{"$ref":"#/$defs/nstring"},"is_released":{"type":"boolean"}},"additionalProperties":false}`,
	"build": `{"type":["object","null"],"required":["stdout","stderr","combined_output","output_format"],
		"properties":{"stdout":{"type":"null"},"stderr":{"type":"null"},"combined_output":{"type":"string"},"output_format":{"type":"string"}},"additionalProperties":false}`,
	"graderResult": `{"type":["object","null"],"required":["id","score","max_score","lint_passed","lint_output","lint_output_format","errors","execution_time","ret_code","tests","build_output"],
		"properties":{"id":{"type":"number"},"score":{"type":"number"},"max_score":{"type":"number"},"lint_passed":{"type":"boolean"},
		"lint_output":{"type":"string"},"lint_output_format":{"type":"string"},"errors":{},"execution_time":{"$ref":"#/$defs/nnumber"},
		"ret_code":{"$ref":"#/$defs/nnumber"},"tests":{"type":"array","items":{"$ref":"#/$defs/test"}},"build_output":{"$ref":"#/$defs/build"},
		"test_count":{"type":"number"},"tests_passed":{"type":"number"},"tests_failed":{"type":"number"},
		"test_names":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`,
	"submission": `{"type":"object","required":["id","assignment_id","created_at","sha","repository","ordinal","is_active","student_profile_id","student_name","grader_result"],
		"properties":{"id":{"type":"number"},"assignment_id":{"type":"number"},"created_at":{"type":"string"},"sha":{"$ref":"#/$defs/nstring"},
		"repository":{"$ref":"#/$defs/nstring"},"ordinal":{"type":"number"},"is_active":{"type":"boolean"},
		"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},"grader_result":{"$ref":"#/$defs/graderResult"},
		"files":{"type":"array","items":{"type":"object","required":["id","name","contents"],"properties":{"id":{"type":"number"},"name":{"type":"string"},"contents":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}},
		"file_count":{"type":"number"},"file_names":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`,
	"fileList": `{"type":"object","required":["files","total_count"],"properties":{"files":{"type":"array","items":{"type":"object","required":["name","size"],
		"properties":{"name":{"type":"string"},"size":{"type":"number"}},"additionalProperties":false}},"total_count":{"type":"number"}},"additionalProperties":false}`,
	"repoFiles": `{"type":"object","required":["files","matched_count"],"properties":{"files":{"type":"array","items":{"type":"object","required":["name","contents"],
		"properties":{"name":{"type":"string"},"contents":{"type":"string"}},"additionalProperties":false}},"matched_count":{"type":"number"}},"additionalProperties":false}`,
}

// The values of the original's sixteen tools (docs/contract/tools.md §2),
// each declared by its tool as Tool.Result; the tools the original lacks
// declare theirs in their own files.
const (
	// getHelpRequestSchema is get_help_request's value.
	getHelpRequestSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["id","request","status","created_at","updated_at","assignment","submission","latest_submission","student_profile_id","student_name","help_queue_name","messages"],
		"properties":{"id":{"type":"number"},"request":{"type":"string"},"status":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"assignment":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/assignment"}]},"submission":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]},
		"latest_submission":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]},"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},
		"help_queue_name":{"type":"string"},"messages":{"type":"array","items":{"type":"object","required":["id","content","created_at","author_name","is_staff","instructors_only","is_caller"],
		"properties":{"id":{"type":"number"},"content":{"type":"string"},"created_at":{"type":"string"},"author_name":{"$ref":"#/$defs/nstring"},"is_staff":{"type":"boolean"},
		"instructors_only":{"type":"boolean"},"is_caller":{"type":"boolean"}},"additionalProperties":false}}},"additionalProperties":false}]}`
	// getDiscussionThreadSchema is get_discussion_thread's value.
	getDiscussionThreadSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["id","subject","body","created_at","updated_at","is_question","children_count","author_profile_id","author_name","assignment","latest_submission","replies"],
		"properties":{"id":{"type":"number"},"subject":{"type":"string"},"body":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"is_question":{"type":"boolean"},"children_count":{"type":"number"},"author_profile_id":{"$ref":"#/$defs/nstring"},"author_name":{"$ref":"#/$defs/nstring"},
		"assignment":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/assignment"}]},"latest_submission":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]},
		"replies":{"type":"array","items":{"type":"object","required":["id","body","created_at","author_name","is_staff","is_answer"],
		"properties":{"id":{"type":"number"},"body":{"type":"string"},"created_at":{"type":"string"},"author_name":{"$ref":"#/$defs/nstring"},"is_staff":{"type":"boolean"},"is_answer":{"type":"boolean"}},"additionalProperties":false}}},"additionalProperties":false}]}`
	// getSubmissionSchema is get_submission's value.
	getSubmissionSchema = `{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]}`
	// listSubmissionFilesSchema is list_submission_files's value.
	listSubmissionFilesSchema = `{"$ref":"#/$defs/fileList"}`
	// getSubmissionFilesSchema is get_submission_files's value.
	getSubmissionFilesSchema = `{"type":"object","required":["files","matched_count"],"properties":{"files":{"type":"array","items":{"type":"object","required":["id","name","contents"],
		"properties":{"id":{"type":"number"},"name":{"type":"string"},"contents":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}},"matched_count":{"type":"number"}},"additionalProperties":false}`
	// listSubmissionTestsSchema is list_submission_tests's value.
	listSubmissionTestsSchema = `{"type":"object","required":["tests","summary"],"properties":{"tests":{"type":"array","items":{"type":"object","required":["id","name","part","score","max_score","passed","is_released"],
		"properties":{"id":{"type":"number"},"name":{"type":"string"},"part":{"$ref":"#/$defs/nstring"},"score":{"$ref":"#/$defs/nnumber"},"max_score":{"$ref":"#/$defs/nnumber"},"passed":{"type":"boolean"},"is_released":{"type":"boolean"}},"additionalProperties":false}},
		"summary":{"type":"object","required":["passed","failed","total_score","max_score"],"properties":{"passed":{"type":"number"},"failed":{"type":"number"},"total_score":{"type":"number"},"max_score":{"type":"number"}},"additionalProperties":false}},"additionalProperties":false}`
	// getTestOutputSchema is get_test_output's value.
	getTestOutputSchema = `{"type":"object","required":["test"],"properties":{"test":{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","part","output","output_format"],
		"properties":{"id":{"type":"number"},"name":{"type":"string"},"part":{"$ref":"#/$defs/nstring"},"output":{"$ref":"#/$defs/nstring"},"output_format":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}]}},"additionalProperties":false}`
	// getSubmissionBuildOutputSchema is get_submission_build_output's value.
	getSubmissionBuildOutputSchema = `{"type":"object","required":["build"],"properties":{"build":{"$ref":"#/$defs/build"},
		"lint":{"anyOf":[{"type":"null"},{"type":"object","required":["passed","output","output_format"],"properties":{"passed":{"type":"boolean"},"output":{"type":"string"},"output_format":{"type":"string"}},"additionalProperties":false}]}},"additionalProperties":false}`
	// listGraderFilesSchema is list_grader_files's value.
	listGraderFilesSchema = `{"$ref":"#/$defs/fileList"}`
	// getGraderFilesSchema is get_grader_files's value.
	getGraderFilesSchema = `{"$ref":"#/$defs/repoFiles"}`
	// listHandoutFilesSchema is list_handout_files's value.
	listHandoutFilesSchema = `{"$ref":"#/$defs/fileList"}`
	// getHandoutFilesSchema is get_handout_files's value.
	getHandoutFilesSchema = `{"$ref":"#/$defs/repoFiles"}`
	// getSubmissionsForStudentSchema is get_submissions_for_student's value.
	getSubmissionsForStudentSchema = `{"type":"array","items":{"$ref":"#/$defs/submission"}}`
	// getAssignmentSchema is get_assignment's value.
	getAssignmentSchema = `{"anyOf":[{"type":"null"},{"$ref":"#/$defs/assignment"}]}`
	// searchHelpRequestsSchema is search_help_requests's value.
	searchHelpRequestsSchema = `{"type":"array","items":{"type":"object","required":["id","request","status","created_at","updated_at","student_profile_id","student_name","help_queue_name","has_submission"],
		"properties":{"id":{"type":"number"},"request":{"type":"string"},"status":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},"help_queue_name":{"type":"string"},"has_submission":{"type":"boolean"}},"additionalProperties":false}}`
	// searchDiscussionThreadsSchema is search_discussion_threads's value.
	searchDiscussionThreadsSchema = `{"type":"array","items":{"type":"object","required":["id","subject","body","created_at","updated_at","is_question","children_count","author_profile_id","author_name","has_answer"],
		"properties":{"id":{"type":"number"},"subject":{"type":"string"},"body":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"is_question":{"type":"boolean"},"children_count":{"type":"number"},"author_profile_id":{"$ref":"#/$defs/nstring"},"author_name":{"$ref":"#/$defs/nstring"},"has_answer":{"type":"boolean"}},"additionalProperties":false}}`
)

// outputSchema builds the declared outputSchema of a tool whose value has
// the schema text, for revisions 2025-06-18 and 2025-11-25: an object with
// one required property, result, plus the shared definitions it refers to
// (followed transitively); nil when text is empty.
func outputSchema(text string) *jsjson.Object {
	if text == "" {
		return nil
	}
	schema := jsjson.NewObject(4).
		Set("type", "object").
		Set("properties", jsjson.NewObject(1).Set("result", mustSchema(text))).
		Set("required", []any{"result"})
	if defs := schemaDefsFor(text); defs.Len() > 0 {
		schema.Set("$defs", defs)
	}
	return schema
}

// valueSchema builds the declared outputSchema of a tool from revision
// 2026-07-28, where structuredContent may be any JSON value (SEP-2106): the
// schema text of the tool's value itself, a JSON Schema 2020-12 document
// (the default dialect, so no $schema) with the shared definitions at its
// root; nil when text is empty.
func valueSchema(text string) *jsjson.Object {
	if text == "" {
		return nil
	}
	schema := mustSchema(text)
	if defs := schemaDefsFor(text); defs.Len() > 0 {
		schema.Set("$defs", defs)
	}
	return schema
}

// schemaDefsFor returns the shared definitions schema text refers to,
// followed transitively, in first-reference order.
func schemaDefsFor(text string) *jsjson.Object {
	defs := jsjson.NewObject(4)
	var collect func(string)
	collect = func(s string) {
		for _, name := range schemaRefs(s) {
			if _, done := defs.Get(name); done {
				continue
			}
			defs.Set(name, mustSchema(schemaDefs[name]))
			collect(schemaDefs[name])
		}
	}
	collect(text)
	return defs
}

// schemaRefs are the names schema text refers to as "#/$defs/<name>", in
// order of reference.
func schemaRefs(text string) []string {
	var names []string
	for _, part := range strings.Split(text, `"#/$defs/`)[1:] {
		if end := strings.IndexByte(part, '"'); end >= 0 {
			names = append(names, part[:end])
		}
	}
	return names
}

// StructuredResult wraps a tool's value as its structuredContent for
// revisions 2025-06-18 and 2025-11-25; from 2026-07-28 the value itself is
// the structuredContent.
func StructuredResult(v any) *jsjson.Object {
	return jsjson.NewObject(1).Set("result", v)
}
