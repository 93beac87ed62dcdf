package tools

import (
	"fmt"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// TestOutputSchemasAcceptSeededResults validates every tool's declared
// outputSchema against real answers at a negotiated revision (where the
// schemas are declared) over the seeded database (and the fake
// GitHub for the repository tools): the richest rows of the seed, so that
// every optional shape is exercised (test output, files, replies, group
// submissions, pending results, four build output rows), plus one empty
// answer per tool. Each tool must have at least one case whose answer is
// not empty, so a schema is never judged only on null or [].
func TestOutputSchemasAcceptSeededResults(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	sam1 := pubID(1, 3)
	cases := map[string][]struct{ user, args string }{
		"get_help_request": {
			{userAlice, `{"help_request_id":1,"class_id":1}`}, // submission, latest, messages
			{userSam, `{"help_request_id":1,"class_id":1}`},   // the caller's messages (private and public profile)
			{userAlice, `{"help_request_id":3,"class_id":1}`}, // no submission
			{userAlice, `{"help_request_id":5,"class_id":1}`}, // group submission
			{userAlice, `{"help_request_id":999,"class_id":1}`},
		},
		"get_discussion_thread": {
			{userAlice, `{"thread_id":1,"class_id":1}`}, // replies, answer, assignment, latest
			{userAlice, `{"thread_id":8,"class_id":1}`}, // 50 replies, no assignment
			{userAlice, `{"thread_id":11,"class_id":1}`},
			{userAlice, `{"thread_id":999999,"class_id":1}`},
		},
		"get_submission": {
			{userAlice, `{"submission_id":3,"class_id":1}`},
			{userAlice, `{"submission_id":3,"class_id":1,"include_test_output":true,"include_files":true}`},
			{userAlice, `{"submission_id":5,"class_id":1,"include_test_output":true}`},
			{userAlice, `{"submission_id":6,"class_id":1}`},
			{userAlice, `{"submission_id":9,"class_id":1}`},
			{userAlice, `{"submission_id":999,"class_id":1}`},
		},
		"list_submission_files": {
			{userAlice, `{"submission_id":3,"class_id":1}`},
			{userAlice, `{"submission_id":999,"class_id":1}`},
		},
		"get_submission_files": {
			{userAlice, `{"submission_id":3,"class_id":1}`},
			{userAlice, `{"submission_id":2,"class_id":1,"glob_pattern":"**"}`},
			{userAlice, `{"submission_id":999,"class_id":1}`},
		},
		"list_submission_tests": {
			{userAlice, `{"submission_id":2,"class_id":1}`},
			{userAlice, `{"submission_id":5,"class_id":1,"only_failed":true}`},
			{userAlice, `{"submission_id":6,"class_id":1}`},
		},
		"get_test_output": {
			{userAlice, `{"submission_id":3,"class_id":1,"test_id":11}`},
			{userAlice, `{"submission_id":2,"class_id":1,"test_name":"testNullScore"}`},
			{userAlice, `{"submission_id":6,"class_id":1,"test_id":1}`},
		},
		"get_submission_build_output": {
			{userAlice, `{"submission_id":3,"class_id":1}`},
			{userAlice, `{"submission_id":4,"class_id":1}`},
			{userAlice, `{"submission_id":3,"class_id":1,"include_lint":false}`},
			{userAlice, `{"submission_id":6,"class_id":1}`},
		},
		"list_grader_files": {
			{userAlice, `{"assignment_id":1,"class_id":1}`},
			{userGary, `{"assignment_id":1,"class_id":1}`},
		},
		"get_grader_files": {
			{userAlice, `{"assignment_id":1,"class_id":1}`},
			{userAlice, `{"assignment_id":4,"class_id":1}`},
		},
		"list_handout_files": {
			{userAlice, `{"assignment_id":1,"class_id":1}`},
			{userAlice, `{"assignment_id":3,"class_id":1}`},
		},
		"get_handout_files": {
			{userSam, `{"assignment_id":1,"class_id":1}`},
			{userAlice, `{"assignment_id":3,"class_id":1}`},
		},
		"get_submissions_for_student": {
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1,"include_files":true}`, sam1)},
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":2,"class_id":1}`, sam1)},
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1,"limit":0}`, sam1)},
		},
		"get_assignment": {
			{userAlice, `{"assignment_id":1,"class_id":1}`},
			{userAlice, `{"assignment_id":3,"class_id":1}`}, // null total_points
			{userAlice, `{"assignment_id":999,"class_id":1}`},
		},
		"search_help_requests": {
			{userAlice, `{"class_id":1}`},
			{userAlice, `{"class_id":2}`},
		},
		"search_discussion_threads": {
			{userAlice, `{"class_id":1}`},
			{userAlice, `{"class_id":1,"search_query":"zzz-no-match"}`},
		},
		"get_rubric": {
			{userAlice, `{"assignment_id":1,"class_id":1}`}, // three rubrics, every level
			{userSam, `{"assignment_id":1,"class_id":1}`},   // a student's narrower view
			{userAlice, `{"assignment_id":2,"class_id":1}`}, // empty rubrics
			{userAlice, `{"assignment_id":5,"class_id":2}`}, // another class: null
		},
		"search_submissions": {
			{userAlice, `{"assignment_id":1,"class_id":1,"include_inactive":true}`}, // scores, regrade requests
			{userAlice, `{"assignment_id":2,"class_id":1,"include_inactive":true}`}, // pending, group
			{userAlice, `{"assignment_id":1,"class_id":1,"student_name":"zzz"}`},    // no match
			{userAlice, `{"assignment_id":5,"class_id":2}`},                         // another class: null
		},
		"list_regrade_requests": {
			{userAlice, `{"class_id":1,"status":"all"}`}, // every state, every optional field
			{userBea, `{"class_id":2}`},
			{userGary, `{"class_id":2}`}, // another class: []
		},
		"get_grading_progress": {
			{userAlice, `{"assignment_id":1,"class_id":1}`}, // graders with and without pending work
			{userGary, `{"assignment_id":1,"class_id":1}`},
			{userAlice, `{"assignment_id":5,"class_id":2}`}, // another class: null
		},
		"get_help_queue_overview": {
			{userAlice, `{"class_id":1}`}, // assignee, private, group request, an empty queue
			{userAlice, `{"class_id":2}`}, // none visible
		},
		"get_student_overview": {
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"limit":20}`, sam1)}, // every area, group submission
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, pubID(1, 1))},     // staff: no activity
			{userAlice, `{"student_profile_id":"not-a-profile","class_id":1}`},
		},
		"list_student_submissions": {
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"include_files":true}`, sam1)},
			{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"assignment_id":2,"limit":1}`, sam1)},
			{userAlice, `{"student_profile_id":"not-a-profile","class_id":1}`},
		},
	}
	for _, tool := range reg.Tools() {
		t.Run(tool.Name, func(t *testing.T) {
			calls, ok := cases[tool.Name]
			if !ok {
				t.Fatalf("no seeded cases for %s", tool.Name)
			}
			schema := compileOutputSchema(t, tool)
			nonEmpty := 0
			for _, c := range calls {
				db, _ := clientFor(t, c.user)
				text := callToolNegotiated(t, reg, db, tool.Name, c.args)
				v, err := jsjson.Decode([]byte(text))
				if err != nil {
					t.Fatal(err)
				}
				validateOutput(t, schema, tool.Name+" "+c.args, v)
				if !isEmptyAnswer(v) {
					nonEmpty++
				}
			}
			if nonEmpty == 0 {
				t.Errorf("every seeded case of %s answered empty: the schema was not tried on data", tool.Name)
			}
		})
	}
	for name := range cases {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("cases for %s, which is not a tool", name)
		}
	}
}

// isEmptyAnswer says whether a tool's value carries no data: null, [], or
// an object whose lists are all empty and whose other values are null or
// zero (the empty shapes of docs/contract/tools.md §2).
func isEmptyAnswer(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case *jsjson.Object:
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			switch y := val.(type) {
			case nil:
			case float64:
				if y != 0 {
					return false
				}
			case *jsjson.Object:
				if !isEmptyAnswer(y) {
					return false
				}
			case []any:
				if len(y) != 0 {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}
