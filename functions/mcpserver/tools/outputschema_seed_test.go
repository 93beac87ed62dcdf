package tools

import (
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// TestOutputSchemasAcceptSeededResults validates every tool's declared
// outputSchema against real answers at a negotiated revision (where the
// schemas are declared) over the seeded database (and the fake
// GitHub for the repository tools): the richest rows of the seed, so that
// every optional shape is exercised (test output, files, replies, group
// submissions, pending results, four build output rows), plus one empty
// answer per tool: each tool's seeded cases (toolcases_test.go). Each tool
// must have at least one case whose answer is not empty, so a schema is
// never judged only on null or [].
func TestOutputSchemasAcceptSeededResults(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	for _, tool := range reg.Tools() {
		t.Run(tool.Name, func(t *testing.T) {
			calls := casesByTool[tool.Name].seeded
			if len(calls) == 0 {
				t.Fatalf("no seeded cases for %s (toolcases_test.go)", tool.Name)
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
