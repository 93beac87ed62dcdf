package tools

import (
	"fmt"
	"testing"
	"time"
)

// TestScoreFilterBoundaries: search_submissions' score filters include
// their bound. HW1's active submissions score 88 (7), 100 (3) and 10 (4):
// a filter equal to a seeded score must keep that submission, so an
// exclusive comparison fails here.
func TestScoreFilterBoundaries(t *testing.T) {
	cases := []struct {
		filters string
		ids     []any
	}{
		{`,"min_score":88`, nums(7, 3)},
		{`,"max_score":88`, nums(7, 4)},
		{`,"min_score":88,"max_score":88`, nums(7)},
		{`,"min_score":10`, nums(7, 3, 4)},
		{`,"max_score":10`, nums(4)},
		{`,"min_score":100`, nums(3)},
		{`,"max_score":100`, nums(7, 3, 4)},
		{`,"min_score":100.5`, nums()},
		{`,"max_score":9.5`, nums()},
	}
	for _, c := range cases {
		t.Run(c.filters, func(t *testing.T) {
			got := toolJSON(t, nil, userAlice, "search_submissions", `{"assignment_id":1,"class_id":1`+c.filters+`}`)
			expectEqual(t, "ids", c.ids, pluck(field(got, "submissions"), "id"))
		})
	}
}

// TestLimitBoundaries: every tool's limit that declares a maximum (its
// limit case, toolcases_test.go) takes its minimum and its maximum, and a value past either is answered as that bound (the
// tools clamp, as their descriptions say: "at most 100").
func TestLimitBoundaries(t *testing.T) {
	type limitCall struct {
		name, args string
		max        int
	}
	var tools []limitCall
	for _, tool := range readTools() {
		c := casesByTool[tool.Name].limit
		if !hasLimitMaximum(tool) || c == nil {
			continue
		}
		props, _ := tool.InputSchema.Object("properties")
		limit, _ := props.Object("limit")
		if declared, _ := limit.Number("maximum"); int(declared) != c.max {
			t.Errorf("%s: limit case's maximum %d, the schema declares %v", tool.Name, c.max, declared)
		}
		tools = append(tools, limitCall{tool.Name, c.args, c.max})
	}
	db, _ := clientFor(t, userAlice)
	at := time.Now() // ages in the answers must not tick between two calls
	reg := New(Options{Now: func() time.Time { return at }})
	for _, tt := range tools {
		for _, c := range []struct{ limit, as int }{{1, 0}, {tt.max, tt.max + 1}} {
			t.Run(fmt.Sprintf("%s limit %d", tt.name, c.limit), func(t *testing.T) {
				at := callToolWith(t, reg, db, tt.name, fmt.Sprintf(`%s,"limit":%d}`, tt.args, c.limit))
				past := callToolWith(t, reg, db, tt.name, fmt.Sprintf(`%s,"limit":%d}`, tt.args, c.as))
				if at != past {
					t.Errorf("limit %d and limit %d answer differently:\n%s\n%s", c.limit, c.as, at, past)
				}
			})
		}
	}
}
