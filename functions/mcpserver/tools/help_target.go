package tools

// What the help request write tools read of their request: the request
// as the caller sees it, whether it still takes replies, and where it is.

import (
	"context"
	"fmt"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// helpTarget reads the help request as the caller.
func helpTarget(ctx context.Context, c *Call, classID, requestID int64) (*jsjson.Object, error) {
	return classRow(ctx, c, "help_requests",
		"id, request, status, is_private, assignee, help_queues(name), profiles!help_requests_created_by_fkey(name)",
		"Help request", classID, requestID)
}

// acceptsReplies refuses a reply to a resolved or closed request, whose
// chat the web app makes read-only.
func acceptsReplies(hr *jsjson.Object, requestID int64) error {
	if status, _ := hr.String("status"); status == "resolved" || status == "closed" {
		return refused("Help request %d is %s; its chat takes no more replies.", requestID, status)
	}
	return nil
}

// helpWhere names a help request as a TA knows it: its number, the
// student who asked, its queue and the course.
func helpWhere(hr *jsjson.Object, requestID int64, course string) string {
	who := "a student"
	if n, ok := embeddedName(hr).(string); ok && n != "" {
		who = n
	}
	return fmt.Sprintf("Help request #%d from %s, in queue %q of %s", requestID, who, writeQueueName(hr), course)
}

func writeQueueName(row *jsjson.Object) string {
	q, _ := row.Object("help_queues")
	if n, ok := q.String("name"); ok && n != "" {
		return n
	}
	return unknownQueue
}
