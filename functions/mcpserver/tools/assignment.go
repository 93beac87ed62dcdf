package tools

import (
	"context"
)

// getAssignmentTool is get_assignment (docs/contract/tools.md §2.14): the assignment
// record A, or null.
var getAssignmentTool = Tool{
	Name:        "get_assignment",
	Title:       "Get assignment",
	Summary:     "Returns an assignment's title, description, handout URL, release and due dates, points and whether it has an autograder. Its grading rubric is returned by get_rubric.",
	Description: "Get assignment details including title, description, handout URL, due date, and points.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"assignment_id": {"type": "number", "description": "The ID of the assignment to fetch"},
			"class_id": {"type": "number", "description": "The class ID where the assignment exists"}
		},
		"required": ["assignment_id", "class_id"]
	}`),
	Result: getAssignmentSchema,
	Scope:  ScopeRead,
	Handler: func(ctx context.Context, c *Call) (any, error) {
		return c.assignmentRecord(ctx, arg(c.Args, "assignment_id"), arg(c.Args, "class_id")), nil
	},
}
