package views

import (
	"embed"
	"strings"
)

// Extension is the MCP Apps extension identifier, as clients declare it in
// capabilities.extensions.
const Extension = "io.modelcontextprotocol/ui"

// MIMEType is the media type of an MCP Apps HTML view.
const MIMEType = "text/html;profile=mcp-app"

// View is one ui:// resource.
type View struct {
	// URI is the resource's ui:// address.
	URI string
	// Name is the resource's programmatic name; Title its display name.
	Name, Title string
	// Description says what the view shows.
	Description string
	// Tools are the tools whose results the view renders (in tools/list,
	// each carries _meta.ui.resourceUri = URI).
	Tools []string
	// HTML is the self-contained document.
	HTML string
}

//go:embed assets/shell.html assets/view.css assets/*.js
var assets embed.FS

// scripts are the script assets, in the order they are concatenated into
// each document's one inline script (later files use earlier ones).
var scripts = []string{"bridge.js", "dom.js", "review.js", "help.js", "assignment.js", "queues.js", "grading.js", "regrade.js", "boot.js"}

// catalogue is every view, in resources/list order.
var catalogue = []View{
	{
		URI:         "ui://pawtograder/submission-review",
		Name:        "submission-review",
		Title:       "Submission review",
		Description: "A submission's score and status, its tests (failed first, with their output) and its files.",
		Tools:       []string{"get_submission", "list_submission_tests", "get_test_output"},
	},
	{
		URI:         "ui://pawtograder/help-request",
		Name:        "help-request",
		Title:       "Help request",
		Description: "A help request's question and thread, and the linked submission's test summary.",
		Tools:       []string{"get_help_request"},
	},
	{
		URI:         "ui://pawtograder/assignment",
		Name:        "assignment",
		Title:       "Assignment at a glance",
		Description: "An assignment's dates and points, and a student's submissions over time with their scores.",
		Tools:       []string{"get_assignment", "get_submissions_for_student"},
	},
	{
		URI:         "ui://pawtograder/help-queues",
		Name:        "help-queues",
		Title:       "Help queues at a glance",
		Description: "A class's help queues with their open and in-progress requests, oldest first: age, assignee, assignment and students waiting.",
		Tools:       []string{"get_help_queue_overview"},
	},
	{
		URI:         "ui://pawtograder/grading-progress",
		Name:        "grading-progress",
		Title:       "Grading progress",
		Description: "An assignment's grading progress: submissions to grade, review assignments per grader and open regrade requests.",
		Tools:       []string{"get_grading_progress"},
	},
	{
		URI:         "ui://pawtograder/regrade-request",
		Name:        "regrade-request",
		Title:       "Regrade request",
		Description: "A regrade request before deciding it: the disputed check and its points, the score as graded and decided, the review's total, and the conversation with students' comments marked and hidden characters shown.",
		Tools:       []string{"get_regrade_request"},
	},
}

// viewKey is the data-view attribute each document boots with.
var viewKey = map[string]string{
	"submission-review": "review",
	"help-request":      "help",
	"assignment":        "assignment",
	"help-queues":       "queues",
	"grading-progress":  "grading",
	"regrade-request":   "regrade",
}

func init() {
	read := func(name string) string {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			panic("views: " + err.Error()) // embedded: cannot happen
		}
		return string(b)
	}
	shell, css := read("shell.html"), read("view.css")
	var js strings.Builder
	for _, name := range scripts {
		js.WriteString(read(name))
		js.WriteString("\n")
	}
	for i := range catalogue {
		v := &catalogue[i]
		v.HTML = strings.NewReplacer(
			"{{TITLE}}", v.Title,
			"{{VIEW}}", viewKey[v.Name],
			"{{CSS}}", strings.TrimSpace(css),
			"{{JS}}", strings.TrimSpace(js.String()),
		).Replace(shell)
	}
}

// All returns every view, in resources/list order. The slice is shared: do
// not modify it.
func All() []View { return catalogue }

// Lookup returns the view at uri.
func Lookup(uri string) (View, bool) {
	for _, v := range catalogue {
		if v.URI == uri {
			return v, true
		}
	}
	return View{}, false
}

// ForTool returns the URI of the view that renders tool's results.
func ForTool(tool string) (string, bool) {
	for _, v := range catalogue {
		for _, t := range v.Tools {
			if t == tool {
				return v.URI, true
			}
		}
	}
	return "", false
}
