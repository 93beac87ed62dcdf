package oauthserver

// writeKind is one kind of write that mcp:write lets a client propose, as
// the consent page names it: what it is, and who sees it once the person
// has approved it. Tools are the write tools that make it (package
// functions/mcpserver/tools, which this package does not import);
// TestConsentNamesEveryWrite fails when the catalogue has a write tool no
// kind names, or a kind names a tool the catalogue lacks. The texts say
// what each tool's approval preview says of its audience.
type writeKind struct {
	What, Who string
	Tools     []string
}

// writeKinds are the kinds of write, in the order the consent page lists
// them.
var writeKinds = []writeKind{
	{
		What:  "Replies in help requests",
		Who:   "the request's students see them, and everyone in the course for a public request, unless you make a reply visible to staff only",
		Tools: []string{"reply_to_help_request"},
	},
	{
		What:  "Help request status changes",
		Who:   "the request's students and everyone else who can see the request see its new status (in progress assigns it to you; resolved and closed record you as its resolver)",
		Tools: []string{"set_help_request_status"},
	},
	{
		What:  "Replies in discussion threads",
		Who:   "everyone in the course sees them; in a staff-only thread, or when you make a reply staff only, only the course's instructors and graders and the thread's poster",
		Tools: []string{"reply_to_discussion_thread"},
	},
	{
		What:  "Comments on regrade requests",
		Who:   "the submission's students see them at once",
		Tools: []string{"comment_on_regrade_request"},
	},
	{
		What:  "Decisions on regrade requests, which change a student's score",
		Who:   "the submission's students read your reason at once, and see the new points at once when the review is released, otherwise when it is",
		Tools: []string{"decide_regrade_request"},
	},
	{
		What:  "Rubric comments on a submission's review, which change its grade",
		Who:   "the submission's students see the comment and the new score at once when the review is released, otherwise when it is",
		Tools: []string{"add_rubric_comment"},
	},
}

// writeKindTools lists every tool writeKinds names, in their order.
func writeKindTools() []string {
	var out []string
	for _, k := range writeKinds {
		out = append(out, k.Tools...)
	}
	return out
}
