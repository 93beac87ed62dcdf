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
	}
}
