package tools

import (
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// goldenCase is one tool call whose text is pinned by a golden file.
type goldenCase struct {
	name string // file name under testdata/golden/<tool>/
	user string
	args string
}

// runGoldenCases calls tool for every case, checks its golden text (the
// drop-in answer), and calls it again at a negotiated revision, where the
// outputSchemas are declared: that answer must be the golden plus only the
// fields S31 adds, and satisfy the tool's declared outputSchemas (wrapped,
// and the value itself as at 2026-07-28).
func runGoldenCases(t *testing.T, tool string, cases []goldenCase) {
	t.Helper()
	decl, ok := New(Options{}).Lookup(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	schema := compileOutputSchema(t, decl)
	valueSchema := compileValueSchema(t, decl)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if readsSearchFixture(tc.args) {
				requireSearchFixture(t)
			}
			db, _ := clientFor(t, tc.user)
			got := callTool(t, db, tool, tc.args)
			checkGolden(t, tool+"/"+tc.name, got)
			negotiated := callToolNegotiated(t, New(Options{}), db, tool, tc.args)
			if without := withoutNegotiatedFields(t, tool, negotiated); without != got {
				t.Errorf("negotiated answer without the fields S31 adds:\n%s\nwant the drop-in answer\n%s", without, got)
			}
			v, err := jsjson.Decode([]byte(negotiated))
			if err != nil {
				t.Fatal(err)
			}
			validateOutput(t, schema, tool, v)
			validateValue(t, valueSchema, tool, v)
		})
	}
}

// readsSearchFixture says the arguments name class 3, which the harness
// adds (searchFixtureSQL) rather than the seed.
func readsSearchFixture(argsJSON string) bool {
	v, err := jsjson.Decode([]byte(argsJSON))
	if err != nil {
		return false // callTool reports it
	}
	o, ok := v.(*jsjson.Object)
	if !ok {
		return false
	}
	class, ok := o.Number("class_id")
	return ok && class == 3
}

func TestGetAssignment(t *testing.T) {
	runGoldenCases(t, "get_assignment", []goldenCase{
		{"released", userAlice, `{"assignment_id":1,"class_id":1}`},
		{"fractional_points", userAlice, `{"assignment_id":2,"class_id":1}`},
		{"unreleased_as_staff", userAlice, `{"assignment_id":3,"class_id":1}`},
		{"archived_as_grader", userGary, `{"assignment_id":4,"class_id":1}`},
		{"unreleased_as_student", userSam, `{"assignment_id":3,"class_id":1}`},
		{"wrong_class", userAlice, `{"assignment_id":5,"class_id":1}`},
		{"other_class_not_member", userAlice, `{"assignment_id":5,"class_id":2}`},
		{"not_found", userAlice, `{"assignment_id":999,"class_id":1}`},
		{"fractional_id", userAlice, `{"assignment_id":1.5,"class_id":1}`},
	})
}
