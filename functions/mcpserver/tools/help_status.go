package tools

// set_help_request_status (docs/writes.md): the queue buttons' status
// changes of components/help-queue/help-request-chat.tsx in
// pawtograder/platform, proposed here and made by
// mcp_write_set_help_request_status once the person approves it.

import (
	"context"
	"fmt"
	"strings"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
)

// helpStatuses are the statuses set_help_request_status may set.
var helpStatuses = []string{"in_progress", "resolved", "closed"}

// resolutionStatuses are help_request_resolution_status's values.
var resolutionStatuses = []string{"self_solved", "staff_helped", "peer_helped", "no_time", "other"}

var setHelpRequestStatusTool = writeTool(Tool{
	Name:    "set_help_request_status",
	Title:   "Set help request status",
	Summary: "Proposes a help request status change (in_progress assigns the request to you; resolved and closed record you as resolver), made once you approve it on the page whose link the result gives; nothing is changed before. Call again with only action_id to learn its state.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID of the help request"},
			"help_request_id": {"type": "number", "description": "The help request to change"},
			"status": {"type": "string", "enum": ["in_progress", "resolved", "closed"], "description": "The new status"},
			"resolution": {"type": "string", "enum": ["self_solved", "staff_helped", "peer_helped", "no_time", "other"], "description": "How it was resolved (only with resolved or closed)"},
			"action_id": {"type": "string", "description": "Instead of proposing: the action_id of an earlier proposal, to learn its state"}
		}
	}`),
	Handler: setHelpRequestStatus,
})

func setHelpRequestStatus(ctx context.Context, c *Call) (any, error) {
	const tool = "set_help_request_status"
	if v, ok, err := actionState(ctx, c, tool); ok {
		return v, err
	}
	classID, err := idArg(c.Args, tool, "class_id")
	if err != nil {
		return nil, err
	}
	requestID, err := idArg(c.Args, tool, "help_request_id")
	if err != nil {
		return nil, err
	}
	status, ok := c.Args.String("status")
	if !ok {
		return nil, missingArg(tool, "status")
	}
	if !contains(helpStatuses, status) {
		return nil, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument 'status' of tool %s must be one of %s", tool, strings.Join(helpStatuses, ", "))}
	}
	resolution, hasResolution := c.Args.String("resolution")
	if v, present := c.Args.Get("resolution"); present && v != nil && !hasResolution || hasResolution && !contains(resolutionStatuses, resolution) {
		return nil, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument 'resolution' of tool %s must be one of %s", tool, strings.Join(resolutionStatuses, ", "))}
	}
	if hasResolution && status == "in_progress" {
		return nil, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument 'resolution' of tool %s goes only with status resolved or closed", tool)}
	}
	me, err := requireStaff(ctx, c, tool, classID)
	if err != nil {
		return nil, err
	}
	hr, err := helpTarget(ctx, c, classID, requestID)
	if err != nil {
		return nil, err
	}
	current, _ := hr.String("status")
	if current == status {
		return nil, refused("Help request %d is already %s.", requestID, strings.ReplaceAll(status, "_", " "))
	}
	if current != "open" && current != "in_progress" {
		return nil, refused("Help request %d is %s; the queue's status changes apply only to open and in-progress requests.", requestID, current)
	}
	assignee := hr.Value("assignee")
	request, _ := hr.String("request")
	values := helpStatusValues{Status: status}
	var now []string
	change := fmt.Sprintf("Status %s → %s", current, status)
	switch status {
	case "in_progress":
		values.Assignee = &me.privateProfileID
		change += "; assigned to you"
	default:
		values.ResolvedBy = &me.privateProfileID
		now = []string{"resolved_at"}
		change += "; you are recorded as resolving it, at the time you approve"
		if hasResolution {
			values.ResolutionStatus = &resolution
			change += "; resolution " + resolution
		}
	}
	pv := approval.Preview{
		Action:     fmt.Sprintf("Change the status of help request #%d to %s", requestID, status),
		As:         me.as(),
		Where:      helpWhere(hr, requestID, me.course),
		Visibility: "Everyone who can see this help request sees its status in the queue",
		Fields: []approval.PreviewField{
			{Label: "The student's request", Text: excerpt(request, 500), StudentAuthored: true},
			{Label: "The change", Text: change},
		},
		Written: "help request",
		Write: approval.WritePlan{Match: helpStatusMatch{ID: writeIDString(requestID), ClassID: writeIDString(classID)},
			Values: values, Now: now, Expect: helpStatusExpect{Status: current, Assignee: assignee}},
	}
	args := map[string]any{"class_id": classID, "help_request_id": requestID, "status": status}
	if hasResolution {
		args["resolution"] = resolution
	}
	return propose(ctx, c, tool, classID, args, pv)
}

// helpStatusValues, helpStatusMatch and helpStatusExpect are
// set_help_request_status's plan, as mcp_write_set_help_request_status
// reads it: a column it does not set is absent, not null.
type helpStatusValues struct {
	Status           string  `json:"status"`
	Assignee         *string `json:"assignee,omitempty"`
	ResolvedBy       *string `json:"resolved_by,omitempty"`
	ResolutionStatus *string `json:"resolution_status,omitempty"`
}

type helpStatusMatch struct {
	ID      string `json:"id"`
	ClassID string `json:"class_id"`
}

type helpStatusExpect struct {
	Status   string `json:"status"`
	Assignee any    `json:"assignee"` // a profile id, or null
}
