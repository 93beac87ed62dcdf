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

// rubricSchema is get_rubric's value.
const rubricSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["assignment_id","class_id","rubrics","truncated"],
	"properties":{"assignment_id":{"type":"number"},"class_id":{"type":"number"},"truncated":{"type":"boolean"},
	"rubrics":{"type":"array","items":{"type":"object","required":["id","name","description","review_round","is_private","parts"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"review_round":{"$ref":"#/$defs/nstring"},"is_private":{"type":"boolean"},
	"parts":{"type":"array","items":{"type":"object","required":["id","name","description","ordinal","criteria"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"ordinal":{"type":"number"},
	"criteria":{"type":"array","items":{"type":"object","required":["id","name","description","ordinal","total_points","is_additive","is_deduction_only","min_checks_per_submission","max_checks_per_submission","checks"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"ordinal":{"type":"number"},"total_points":{"type":"number"},
	"is_additive":{"type":"boolean"},"is_deduction_only":{"type":"boolean"},"min_checks_per_submission":{"$ref":"#/$defs/nnumber"},"max_checks_per_submission":{"$ref":"#/$defs/nnumber"},
	"checks":{"type":"array","items":{"type":"object","required":["id","name","description","group","ordinal","points","is_annotation","max_annotations","file","artifact","is_required","is_comment_required","student_visibility"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"group":{"$ref":"#/$defs/nstring"},"ordinal":{"type":"number"},"points":{"type":"number"},
	"is_annotation":{"type":"boolean"},"max_annotations":{"$ref":"#/$defs/nnumber"},"file":{"$ref":"#/$defs/nstring"},"artifact":{"$ref":"#/$defs/nstring"},
	"is_required":{"type":"boolean"},"is_comment_required":{"type":"boolean"},"student_visibility":{"type":"string"}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}]}`

// resultSchemas maps each tool to the schema of its value.
var resultSchemas = map[string]string{
	"get_help_request": `{"anyOf":[{"type":"null"},{"type":"object","required":["id","request","status","created_at","updated_at","assignment","submission","latest_submission","student_profile_id","student_name","help_queue_name","messages"],
		"properties":{"id":{"type":"number"},"request":{"type":"string"},"status":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"assignment":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/assignment"}]},"submission":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]},
		"latest_submission":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]},"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},
		"help_queue_name":{"type":"string"},"messages":{"type":"array","items":{"type":"object","required":["id","content","created_at","author_name","is_staff","instructors_only","is_caller"],
		"properties":{"id":{"type":"number"},"content":{"type":"string"},"created_at":{"type":"string"},"author_name":{"$ref":"#/$defs/nstring"},"is_staff":{"type":"boolean"},
		"instructors_only":{"type":"boolean"},"is_caller":{"type":"boolean"}},"additionalProperties":false}}},"additionalProperties":false}]}`,
	"get_discussion_thread": `{"anyOf":[{"type":"null"},{"type":"object","required":["id","subject","body","created_at","updated_at","is_question","children_count","author_profile_id","author_name","assignment","latest_submission","replies"],
		"properties":{"id":{"type":"number"},"subject":{"type":"string"},"body":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"is_question":{"type":"boolean"},"children_count":{"type":"number"},"author_profile_id":{"$ref":"#/$defs/nstring"},"author_name":{"$ref":"#/$defs/nstring"},
		"assignment":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/assignment"}]},"latest_submission":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]},
		"replies":{"type":"array","items":{"type":"object","required":["id","body","created_at","author_name","is_staff","is_answer"],
		"properties":{"id":{"type":"number"},"body":{"type":"string"},"created_at":{"type":"string"},"author_name":{"$ref":"#/$defs/nstring"},"is_staff":{"type":"boolean"},"is_answer":{"type":"boolean"}},"additionalProperties":false}}},"additionalProperties":false}]}`,
	"get_submission":        `{"anyOf":[{"type":"null"},{"$ref":"#/$defs/submission"}]}`,
	"list_submission_files": `{"$ref":"#/$defs/fileList"}`,
	"get_submission_files": `{"type":"object","required":["files","matched_count"],"properties":{"files":{"type":"array","items":{"type":"object","required":["id","name","contents"],
		"properties":{"id":{"type":"number"},"name":{"type":"string"},"contents":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}},"matched_count":{"type":"number"}},"additionalProperties":false}`,
	"list_submission_tests": `{"type":"object","required":["tests","summary"],"properties":{"tests":{"type":"array","items":{"type":"object","required":["id","name","part","score","max_score","passed","is_released"],
		"properties":{"id":{"type":"number"},"name":{"type":"string"},"part":{"$ref":"#/$defs/nstring"},"score":{"$ref":"#/$defs/nnumber"},"max_score":{"$ref":"#/$defs/nnumber"},"passed":{"type":"boolean"},"is_released":{"type":"boolean"}},"additionalProperties":false}},
		"summary":{"type":"object","required":["passed","failed","total_score","max_score"],"properties":{"passed":{"type":"number"},"failed":{"type":"number"},"total_score":{"type":"number"},"max_score":{"type":"number"}},"additionalProperties":false}},"additionalProperties":false}`,
	"get_test_output": `{"type":"object","required":["test"],"properties":{"test":{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","part","output","output_format"],
		"properties":{"id":{"type":"number"},"name":{"type":"string"},"part":{"$ref":"#/$defs/nstring"},"output":{"$ref":"#/$defs/nstring"},"output_format":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}]}},"additionalProperties":false}`,
	"get_submission_build_output": `{"type":"object","required":["build"],"properties":{"build":{"$ref":"#/$defs/build"},
		"lint":{"anyOf":[{"type":"null"},{"type":"object","required":["passed","output","output_format"],"properties":{"passed":{"type":"boolean"},"output":{"type":"string"},"output_format":{"type":"string"}},"additionalProperties":false}]}},"additionalProperties":false}`,
	"list_grader_files":           `{"$ref":"#/$defs/fileList"}`,
	"get_grader_files":            `{"$ref":"#/$defs/repoFiles"}`,
	"list_handout_files":          `{"$ref":"#/$defs/fileList"}`,
	"get_handout_files":           `{"$ref":"#/$defs/repoFiles"}`,
	"get_submissions_for_student": `{"type":"array","items":{"$ref":"#/$defs/submission"}}`,
	"get_assignment":              `{"anyOf":[{"type":"null"},{"$ref":"#/$defs/assignment"}]}`,
	"list_student_submissions":    `{"type":"array","items":{"$ref":"#/$defs/submission"}}`,
	"get_rubric":                  rubricSchema,
	"search_submissions":          searchSubmissionsSchema,
	"list_regrade_requests":       listRegradeRequestsSchema,
	"get_grading_progress":        gradingProgressSchema,
	"get_help_queue_overview":     queueOverviewSchema,
	"get_student_overview":        studentOverviewSchema,
	"search_help_requests": `{"type":"array","items":{"type":"object","required":["id","request","status","created_at","updated_at","student_profile_id","student_name","help_queue_name","has_submission"],
		"properties":{"id":{"type":"number"},"request":{"type":"string"},"status":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},"help_queue_name":{"type":"string"},"has_submission":{"type":"boolean"}},"additionalProperties":false}}`,
	"search_discussion_threads": `{"type":"array","items":{"type":"object","required":["id","subject","body","created_at","updated_at","is_question","children_count","author_profile_id","author_name","has_answer"],
		"properties":{"id":{"type":"number"},"subject":{"type":"string"},"body":{"type":"string"},"created_at":{"type":"string"},"updated_at":{"$ref":"#/$defs/nstring"},
		"is_question":{"type":"boolean"},"children_count":{"type":"number"},"author_profile_id":{"$ref":"#/$defs/nstring"},"author_name":{"$ref":"#/$defs/nstring"},"has_answer":{"type":"boolean"}},"additionalProperties":false}}`,
}

// outputSchema builds the declared outputSchema of a tool for revisions
// 2025-06-18 and 2025-11-25: an object with one required property, result,
// plus the shared definitions it refers to (followed transitively).
func outputSchema(tool string) *jsjson.Object {
	text, ok := resultSchemas[tool]
	if !ok {
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
// schema of the tool's value itself, a JSON Schema 2020-12 document (the
// default dialect, so no $schema) with the shared definitions at its root.
func valueSchema(tool string) *jsjson.Object {
	text, ok := resultSchemas[tool]
	if !ok {
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
		for _, part := range strings.Split(s, `"#/$defs/`)[1:] {
			name := part[:strings.IndexByte(part, '"')]
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

// StructuredResult wraps a tool's value as its structuredContent for
// revisions 2025-06-18 and 2025-11-25; from 2026-07-28 the value itself is
// the structuredContent.
func StructuredResult(v any) *jsjson.Object {
	return jsjson.NewObject(1).Set("result", v)
}
