package tools

// reply_to_help_request (docs/writes.md): a message in a help request's
// chat, as hooks/useRealtimeChat.tsx in pawtograder/platform posts it,
// proposed here and written by mcp_write_reply_to_help_request once the
// person approves it.

import (
	"context"
	"fmt"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
)

var replyToHelpRequestTool = writeTool(Tool{
	Name:    "reply_to_help_request",
	Title:   "Reply to help request",
	Summary: "Proposes a message in a help request's chat, posted as you once you approve it on the page whose link the result gives; nothing is written before. Call again with only action_id to learn whether it was approved, rejected or expired.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID of the help request"},
			"help_request_id": {"type": "number", "description": "The help request to reply to"},
			"message": {"type": "string", "description": "The message to post, as you"},
			"staff_only": {"type": "boolean", "description": "Visible only to the class's instructors and graders", "default": false},
			"action_id": {"type": "string", "description": "Instead of proposing: the action_id of an earlier proposal, to learn its state"}
		}
	}`),
	Handler: replyToHelpRequest,
})

func replyToHelpRequest(ctx context.Context, c *Call) (any, error) {
	const tool = "reply_to_help_request"
	if v, ok, err := actionState(ctx, c, tool); ok {
		return v, err
	}
	a, err := readReplyArgs(ctx, c, tool, "help_request_id", "message")
	if err != nil {
		return nil, err
	}
	classID, requestID, message, staffOnly, me := a.classID, a.targetID, a.text, a.staffOnly, a.me
	hr, err := helpTarget(ctx, c, classID, requestID)
	if err != nil {
		return nil, err
	}
	if err := acceptsReplies(hr, requestID); err != nil {
		return nil, err
	}
	request, _ := hr.String("request")
	private, _ := hr.Value("is_private").(bool)
	visibility := "The students of this help request, and the instructors and graders of " + me.course
	if !private {
		visibility = "Everyone in " + me.course + ": the request is public to the course, so every student sees it, as do its instructors and graders"
	}
	if staffOnly {
		visibility = staffOnlyVisibility(me.course)
	}
	pv := approval.Preview{
		Action:     fmt.Sprintf("Post a message in the chat of help request #%d", requestID),
		As:         me.as(),
		Where:      helpWhere(hr, requestID, me.course),
		Visibility: visibility,
		Fields: []approval.PreviewField{
			{Label: "The student's request", Text: excerpt(request, 500), StudentAuthored: true},
			{Label: "Your message", Text: message},
		},
		Written: "message",
		Write: approval.WritePlan{Values: helpReplyValues{HelpRequestID: requestID, ClassID: classID,
			Author: me.privateProfileID, Message: message, InstructorsOnly: staffOnly}},
	}
	args := map[string]any{"class_id": classID, "help_request_id": requestID, "message": message, "staff_only": staffOnly}
	return propose(ctx, c, tool, classID, args, pv)
}

// helpReplyValues is reply_to_help_request's plan, as
// mcp_write_reply_to_help_request reads it.
type helpReplyValues struct {
	HelpRequestID    int64  `json:"help_request_id"`
	ClassID          int64  `json:"class_id"`
	Author           string `json:"author"`
	Message          string `json:"message"`
	InstructorsOnly  bool   `json:"instructors_only"`
	ReplyToMessageID *int64 `json:"reply_to_message_id"`
}
