package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Empty answers of the 16 tools, as the original prints them when nothing is
// visible.
const (
	emptyNull       = `null`
	emptyArray      = `[]`
	emptyFileList   = `{"files":[],"total_count":0}`
	emptyFileGet    = `{"files":[],"matched_count":0}`
	emptyTests      = `{"tests":[],"summary":{"passed":0,"failed":0,"total_score":0,"max_score":0}}`
	emptyTestOutput = `{"test":null}`
	emptyBuild      = `{"build":null,"lint":null}`
)

// pretty re-prints compact JSON as tools/call's text.
func pretty(t *testing.T, compact string) string {
	t.Helper()
	v, err := jsjson.Decode([]byte(compact))
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsjson.MarshalIndent(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// crossClassCall is a call naming class B's objects, with the answer
// class A's staff must get.
type crossClassCall struct {
	tool, args, empty string
	// viewer is a class B member for whom the call returns data, proving
	// that the ids are real; empty when no such control applies.
	viewer string
}

// crossClassCalls names class B (id 2) objects: help request 6, thread 9,
// submission 8 (test 17), assignment 5 and Ben's public profile, once with
// class_id 2 and once with class A's id 1.
func crossClassCalls() []crossClassCall {
	ben := pubID(2, 7)
	var out []crossClassCall
	for _, class := range []string{"2", "1"} {
		viewer := userBea
		if class == "1" {
			viewer = "" // mismatched class: empty for everyone
		}
		sub := `{"submission_id":8,"class_id":` + class
		asg := `{"assignment_id":5,"class_id":` + class
		out = append(out,
			crossClassCall{"get_help_request", `{"help_request_id":6,"class_id":` + class + `}`, emptyNull, viewer},
			crossClassCall{"get_discussion_thread", `{"thread_id":9,"class_id":` + class + `}`, emptyNull, viewer},
			crossClassCall{"get_submission", sub + `,"include_test_output":true,"include_files":true}`, emptyNull, viewer},
			crossClassCall{"list_submission_files", sub + `}`, emptyFileList, viewer},
			crossClassCall{"get_submission_files", sub + `}`, emptyFileGet, viewer},
			crossClassCall{"list_submission_tests", sub + `}`, emptyTests, viewer},
			crossClassCall{"get_test_output", sub + `,"test_id":17}`, emptyTestOutput, viewer},
			crossClassCall{"get_submission_build_output", sub + `}`, emptyBuild, viewer},
			crossClassCall{"get_submissions_for_student", `{"student_profile_id":"` + ben + `","assignment_id":5,"class_id":` + class + `}`, emptyArray, viewer},
			crossClassCall{"get_assignment", asg + `}`, emptyNull, viewer},
			crossClassCall{"search_help_requests", `{"class_id":` + class + `,"assignment_id":5}`, emptyArray, viewer},
			crossClassCall{"search_discussion_threads", `{"class_id":` + class + `,"assignment_id":5}`, emptyArray, viewer},
			// The original looks the grader repository up by assignment
			// id only (quirk 1); RLS on autograder hides class B's row
			// from class A's staff either way.
			crossClassCall{"list_grader_files", asg + `}`, emptyFileList, viewer},
			crossClassCall{"get_grader_files", asg + `}`, emptyFileGet, viewer},
			crossClassCall{"list_handout_files", asg + `}`, emptyFileList, viewer},
			crossClassCall{"get_handout_files", asg + `}`, emptyFileGet, viewer},
			crossClassCall{"get_rubric", asg + `}`, emptyNull, viewer},
			crossClassCall{"list_student_submissions", `{"student_profile_id":"` + ben + `","class_id":` + class + `}`, emptyArray, viewer},
			crossClassCall{"search_submissions", asg + `,"include_inactive":true}`, emptyNull, viewer},
			crossClassCall{"list_regrade_requests", `{"class_id":` + class + `,"assignment_id":5,"status":"all"}`, emptyArray, viewer},
			crossClassCall{"get_grading_progress", asg + `}`, emptyNull, viewer},
			crossClassCall{"get_student_overview", `{"student_profile_id":"` + ben + `","class_id":` + class + `}`, emptyNull, viewer},
			crossClassCall{"get_help_queue_overview", `{"class_id":` + class + `,"help_queue_id":3}`, `{"class_id":` + class + `,"queues":[],"truncated":false}`, viewer},
		)
	}
	return out
}

// isolationRegistry is a Registry whose fake GitHub also serves class B's
// repositories, so an empty repository answer can only come from RLS.
func isolationRegistry(t *testing.T) *Registry {
	gh := fakeGitHub(t)
	gh.AddInstallation("pawtograder-cs2100", 1002)
	gh.AddRepo("pawtograder-cs2100", "recursion-grader").
		AddFile("tests/RecursionTest.java", "class RecursionTest {}\n")
	gh.AddRepo("pawtograder-cs2100", "recursion-handout").
		AddFile("src/Recursion.java", "class Recursion {}\n")
	return repoRegistry(t, gh)
}

// TestClassIsolation: class A's instructor and grader asking for class B's
// objects get the original's empty answers, never B's data; a class B
// member asking the same gets data, so the ids are real.
func TestClassIsolation(t *testing.T) {
	reg := isolationRegistry(t)
	calls := crossClassCalls()
	callers := []struct{ name, user string }{{"instructor_a", userAlice}, {"grader_a", userGary}, {"unenrolled", userNora}}
	for _, caller := range callers {
		db, _ := clientFor(t, caller.user)
		for _, cc := range calls {
			t.Run(caller.name+"/"+cc.tool+"/"+goldenName(cc.args), func(t *testing.T) {
				got := callToolWith(t, reg, db, cc.tool, cc.args)
				if diff := cmp.Diff(pretty(t, cc.empty), got); diff != "" {
					t.Errorf("(-empty +got):\n%s", diff)
				}
			})
		}
	}
	viewers := map[string]bool{}
	for _, cc := range calls {
		if cc.viewer == "" || viewers[cc.tool+cc.args] {
			continue
		}
		viewers[cc.tool+cc.args] = true
		t.Run("control/"+cc.tool+"/"+goldenName(cc.args), func(t *testing.T) {
			db, _ := clientFor(t, cc.viewer)
			if got := callToolWith(t, reg, db, cc.tool, cc.args); got == pretty(t, cc.empty) {
				t.Errorf("class B's instructor also got the empty answer %s; the case proves nothing", got)
			}
		})
	}
}

// TestGradersGetNoGraderRepository is quirk 2: only instructors can read
// autograder rows, so graders always get the empty grader-repository
// answers, in their own class too; handout files stay readable.
func TestGradersGetNoGraderRepository(t *testing.T) {
	reg := isolationRegistry(t)
	tests := []struct {
		user, class, assignment string
	}{
		{userGary, "1", "1"}, // grader of class A
		{userTara, "2", "5"}, // grader of class B (student in A)
	}
	for _, tt := range tests {
		db, _ := clientFor(t, tt.user)
		args := `{"assignment_id":` + tt.assignment + `,"class_id":` + tt.class + `}`
		if got := callToolWith(t, reg, db, "list_grader_files", args); got != pretty(t, emptyFileList) {
			t.Errorf("list_grader_files%s as grader = %s", args, got)
		}
		if got := callToolWith(t, reg, db, "get_grader_files", args); got != pretty(t, emptyFileGet) {
			t.Errorf("get_grader_files%s as grader = %s", args, got)
		}
		if got := callToolWith(t, reg, db, "list_handout_files", args); got == pretty(t, emptyFileList) {
			t.Errorf("list_handout_files%s as grader is empty; graders can read assignments", args)
		}
	}
	// Control: the instructors do see their grader repositories.
	for _, tt := range []struct{ user, args string }{
		{userAlice, `{"assignment_id":1,"class_id":1}`},
		{userBea, `{"assignment_id":5,"class_id":2}`},
	} {
		db, _ := clientFor(t, tt.user)
		if got := callToolWith(t, reg, db, "list_grader_files", tt.args); !strings.Contains(got, `"name"`) {
			t.Errorf("list_grader_files%s as instructor = %s", tt.args, got)
		}
	}
}
