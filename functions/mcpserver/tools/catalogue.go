package tools

// catalogue lists every tool in the order tools/list reports them (the
// original's order). Adding a tool is one file with its declaration plus
// one line here.
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
