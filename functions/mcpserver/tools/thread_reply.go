package tools

// reply_to_discussion_thread (docs/writes.md): a reply in a discussion
// thread, as app/course/[course_id]/discussion/discussion_thread.tsx in
// pawtograder/platform creates it, proposed here and written by
// mcp_write_reply_to_discussion_thread once the person approves it.

import (
	"context"
	"fmt"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

var replyToDiscussionThreadTool = writeTool(Tool{
	Name:    "reply_to_discussion_thread",
	Title:   "Reply to discussion thread",
	Summary: "Proposes a reply in a discussion thread, posted as you once you approve it on the page whose link the result gives; nothing is written before. Call again with only action_id to learn its state.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID of the thread"},
			"thread_id": {"type": "number", "description": "The thread (or reply) to reply to"},
			"body": {"type": "string", "description": "The reply, as you"},
			"staff_only": {"type": "boolean", "description": "Visible only to staff and the thread's poster (a staff-only thread's replies always are)", "default": false},
			"action_id": {"type": "string", "description": "Instead of proposing: the action_id of an earlier proposal, to learn its state"}
		}
	}`),
	Handler: replyToDiscussionThread,
})

func replyToDiscussionThread(ctx context.Context, c *Call) (any, error) {
	const tool = "reply_to_discussion_thread"
	if v, ok, err := actionState(ctx, c, tool); ok {
		return v, err
	}
	a, err := readReplyArgs(ctx, c, tool, "thread_id", "body")
	if err != nil {
		return nil, err
	}
	classID, threadID, body, staffOnly, me := a.classID, a.targetID, a.text, a.staffOnly, a.me
	raw, err := c.DB.From("discussion_threads").
		Select("id, subject, body, root, topic_id, instructors_only, draft").
		Eq("id", writeIDString(threadID)).
		Eq("class_id", writeIDString(classID)).
		MaybeSingle(ctx)
	if err != nil && !postgrest.IsNoRows(err) {
		c.logQueryFailure(ctx, err)
		return nil, errReadFailed
	}
	th := c.pgObject(ctx, raw, err)
	if th == nil {
		return nil, refused("Discussion thread %d was not found in class %d.", threadID, classID)
	}
	if d, _ := th.Value("draft").(bool); d {
		return nil, refused("Discussion thread %d is a draft; replies go to published threads only.", threadID)
	}
	subject, _ := th.String("subject")
	threadBody, _ := th.String("body")
	root := th.Value("root")
	if root == nil {
		root = float64(threadID)
	}
	topic := th.Value("topic_id")
	threadStaffOnly, _ := th.Value("instructors_only").(bool)
	instructorsOnly := threadStaffOnly || staffOnly
	visibility := "Everyone in " + me.course
	if instructorsOnly {
		visibility = staffOnlyVisibility(me.course) + ", and the thread's poster"
		if threadStaffOnly {
			visibility += " (the thread is staff only, so its replies are too)"
		}
	}
	pv := approval.Preview{
		Action:     fmt.Sprintf("Post a reply in discussion thread #%d", threadID),
		As:         me.as(),
		Where:      fmt.Sprintf("Discussion thread #%d in %s", threadID, me.course),
		Visibility: visibility,
		Fields: []approval.PreviewField{
			{Label: "The thread's subject", Text: excerpt(subject, 200), StudentAuthored: true},
			{Label: "The post you reply to", Text: excerpt(threadBody, 500), StudentAuthored: true},
			{Label: "Your reply", Text: body},
		},
		Written: "reply",
		Write: approval.WritePlan{Values: threadReplyValues{Subject: "Re: " + subject, Parent: threadID, Root: root, TopicID: topic,
			InstructorsOnly: instructorsOnly, ClassID: classID, Author: me.privateProfileID, Body: body}},
	}
	args := map[string]any{"class_id": classID, "thread_id": threadID, "body": body, "staff_only": staffOnly}
	return propose(ctx, c, tool, classID, args, pv)
}

// threadReplyValues is reply_to_discussion_thread's plan, as
// mcp_write_reply_to_discussion_thread reads it.
type threadReplyValues struct {
	Subject         string `json:"subject"`
	Parent          int64  `json:"parent"`
	Root            any    `json:"root"`     // the thread's root, as read
	TopicID         any    `json:"topic_id"` // the thread's topic, as read
	InstructorsOnly bool   `json:"instructors_only"`
	ClassID         int64  `json:"class_id"`
	Author          string `json:"author"`
	Body            string `json:"body"`
}
