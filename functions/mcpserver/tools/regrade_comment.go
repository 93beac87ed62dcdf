package tools

// The grading write tool comment_on_regrade_request (docs/writes.md). Like
// the other write tools (writes.go) it only proposes: it checks as the
// caller that the request exists in a class they are staff of and still
// takes comments, shows the request's conversation (each comment a student
// wrote marked as such) and the comment, and stores the one write an
// approval makes: a submission_regrade_request_comments row as
// components/ui/regrade-request-wrapper.tsx inserts it (pawtograder/platform),
// authored by the caller's private profile, the web app's default.

import (
	"context"
	"fmt"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

var commentOnRegradeRequestTool = writeTool(Tool{
	Name:    "comment_on_regrade_request",
	Title:   "Comment on regrade request",
	Summary: "Proposes a comment in a regrade request's conversation, posted as you once you approve it on the page whose link the result gives; nothing is written before. The submission's students see it at once. Call again with only action_id to learn its state.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID of the regrade request"},
			"regrade_request_id": {"type": "number", "description": "The regrade request to comment on"},
			"message": {"type": "string", "description": "The comment to post, as you"},
			"action_id": {"type": "string", "description": "Instead of proposing: the action_id of an earlier proposal, to learn its state"}
		}
	}`),
	Handler: commentOnRegradeRequest,
})

func commentOnRegradeRequest(ctx context.Context, c *Call) (any, error) {
	const tool = "comment_on_regrade_request"
	if v, ok, err := actionState(ctx, c, tool); ok {
		return v, err
	}
	// Read as the reply tools read theirs; the tool has no staff_only.
	a, err := readReplyArgs(ctx, c, tool, "regrade_request_id", "message")
	if err != nil {
		return nil, err
	}
	classID, requestID, message, me := a.classID, a.targetID, a.text, a.me
	rr, err := regradeTarget(ctx, c, regradeTargetColumns, classID, requestID)
	if err != nil {
		return nil, err
	}
	status, _ := rr.String("status")
	switch status {
	case "draft":
		return nil, refused("Regrade request %d is a draft the student has not sent; its conversation opens when they send it.", requestID)
	case "closed":
		return nil, refused("Regrade request %d is closed; its conversation takes no more comments.", requestID)
	}
	conversation, err := regradeConversation(ctx, c, classID, requestID)
	if err != nil {
		return nil, err
	}
	submissionID := jsjson.String(rr.Value("submission_id"))
	fields := append(conversation, approval.PreviewField{Label: "Your comment", Text: message})
	pv := approval.Preview{
		Action: fmt.Sprintf("Post a comment in regrade request #%d", requestID),
		As:     me.as(),
		Where:  regradeWhere(rr, requestID, me.course),
		Visibility: fmt.Sprintf("The students of submission #%s see it at once, in the regrade request, and are notified, as are its assignee and everyone who commented on it; every instructor and grader of %s can read it",
			submissionID, me.course),
		Fields:  fields,
		Written: "regrade comment",
		Write:   approval.WritePlan{Values: regradeCommentValues{RequestID: requestID, ClassID: classID, Author: me.privateProfileID, Comment: message}},
	}
	args := map[string]any{"class_id": classID, "regrade_request_id": requestID, "message": message}
	return propose(ctx, c, tool, classID, args, pv)
}

// regradeCommentValues is comment_on_regrade_request's plan, as
// mcp_write_comment_on_regrade_request reads it (which takes the request's
// status as it finds it: any but closed or draft takes a comment).
type regradeCommentValues struct {
	RequestID int64  `json:"submission_regrade_request_id"`
	ClassID   int64  `json:"class_id"`
	Author    string `json:"author"`
	Comment   string `json:"comment"`
}
