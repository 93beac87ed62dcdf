package tools

// catalogue lists every read tool in the order tools/list reports them:
// the original's, in its order, then those it lacks. Adding a read tool is
// one file with its declaration (and a test file with its cases,
// toolcases_test.go) plus one line here; New checks the declaration.
func catalogue() []*Tool {
	return []*Tool{
		&getHelpRequestTool,
		&getDiscussionThreadTool,
		&getSubmissionTool,
		&listSubmissionFilesTool,
		&getSubmissionFilesTool,
		&listSubmissionTestsTool,
		&getTestOutputTool,
		&getSubmissionBuildOutputTool,
		&listGraderFilesTool,
		&getGraderFilesTool,
		&listHandoutFilesTool,
		&getHandoutFilesTool,
		&getSubmissionsForStudentTool,
		&getAssignmentTool,
		&searchHelpRequestsTool,
		&searchDiscussionThreadsTool,
		// Listed only from revision 2025-06-18 (Tool.NegotiatedOnly).
		&getRubricTool,
		&listStudentSubmissionsTool,
		&searchSubmissionsTool,
		&listRegradeRequestsTool,
		&getGradingProgressTool,
		&getHelpQueueOverviewTool,
		&getStudentOverviewTool,
		&getRegradeRequestTool,
	}
}

// Names lists the tool names in catalogue order, for bounded metric labels.
func Names() []string {
	all := catalogue()
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name
	}
	return names
}
