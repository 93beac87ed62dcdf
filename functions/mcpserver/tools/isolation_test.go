package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
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

// crossClassCalls are every read tool's crossClass case (toolcases_test.go),
// with class_id 2 (class B's own, Bea the control viewer) and then 1
// (mismatched: empty for everyone).
func crossClassCalls(t *testing.T) []crossClassCall {
	var out []crossClassCall
	for _, class := range []string{"2", "1"} {
		viewer := userBea
		if class == "1" {
			viewer = ""
		}
		for _, tool := range readTools() {
			c, ok := casesByTool[tool.Name]
			if !ok || c.crossClass == nil {
				t.Errorf("%s has no class-isolation case (TestEveryReadToolHasItsCases)", tool.Name)
				continue
			}
			args, empty := c.crossClass(class)
			out = append(out, crossClassCall{tool.Name, args, empty, viewer})
		}
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

// TestClassIsolation: class A's instructor and grader, and a stranger,
// asking any read tool for class B's objects get the tool's empty answer,
// never B's data; a class B member asking the same gets data, so the ids
// are real.
func TestClassIsolation(t *testing.T) {
	reg := isolationRegistry(t)
	calls := crossClassCalls(t)
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
