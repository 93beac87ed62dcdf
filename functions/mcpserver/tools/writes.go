package tools

// The write tools (docs/writes.md): reply_to_help_request,
// set_help_request_status and reply_to_discussion_thread (here), and
// comment_on_regrade_request (grading_writes.go). None of them
// writes. A call validates its arguments, checks as the caller (reading
// only, under row-level security) that the target exists and that the
// caller is staff of the class, builds the exact preview and the one write
// an approval will perform, and stores a pending action through
// Approvals (package approval). The answer is the preview and the approval link; the person
// approves on the gateway's page, which performs the write as them. The
// same tool called with action_id reports the action's state.
//
// What each write sets is what Pawtograder's web app sets for the same
// action (pawtograder/platform): a help request message as
// hooks/useRealtimeChat.tsx creates it, the queue buttons' status changes
// of components/help-queue/help-request-chat.tsx, and a thread reply as
// app/course/[course_id]/discussion/discussion_thread.tsx creates it, each
// authored by the caller's private profile in the class (the web app's
// default; its anonymous mode, the public profile, is not offered).

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"

	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// Bounds of the texts a write carries.
const (
	maxMessageRunes = 8000
	maxActionIDLen  = 64
)

// helpStatuses are the statuses set_help_request_status may set.
var helpStatuses = []string{"in_progress", "resolved", "closed"}

// resolutionStatuses are help_request_resolution_status's values.
var resolutionStatuses = []string{"self_solved", "staff_helped", "peer_helped", "no_time", "other"}

// writeResultSchema is the value every write tool returns.
const writeResultSchema = `{
	"type": "object",
	"properties": {
		"action_id": {"type": "string"},
		"state": {"type": "string", "enum": ["pending", "approved", "rejected", "expired", "failed"]},
		"approval_url": {"type": "string"},
		"expires_at": {"type": "string"},
		"written_row_id": {"type": "string"},
		"failure": {"type": "string"},
		"preview": {"type": "object"},
		"next_step": {"type": "string"}
	},
	"required": ["action_id", "state", "next_step"]
}`

func writeSchemas() (output, value *jsjson.Object) {
	return jsjson.NewObject(3).
			Set("type", "object").
			Set("properties", jsjson.NewObject(1).Set("result", mustSchema(writeResultSchema))).
			Set("required", []any{"result"}),
		mustSchema(writeResultSchema)
}

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

// writeCatalogue lists the write tools in tools/list order, after the
// catalogue's: listed only from revision 2025-06-18 and only with
// Options.Approvals (GATEWAY_WRITE_TOOLS=on).
func writeCatalogue() []*Tool {
	return []*Tool{&replyToHelpRequestTool, &setHelpRequestStatusTool, &replyToDiscussionThreadTool, &commentOnRegradeRequestTool, &decideRegradeRequestTool, &addRubricCommentTool}
}

// WriteNames lists the write tools' names, for bounded metric labels.
func WriteNames() []string {
	all := writeCatalogue()
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name
	}
	return names
}

// writeTool completes a write tool's declaration.
func writeTool(t Tool) Tool {
	t.Description = t.Summary
	t.Scope = ScopeWrite
	t.Write = true
	t.NegotiatedOnly = true
	t.OutputSchema, t.ValueSchema = writeSchemas()
	return t
}

// errReadFailed is the answer when a check could not read Pawtograder.
var errReadFailed = &approval.RefusedError{Message: "Pawtograder could not be read just now; nothing was proposed. Try again.", Fault: true}

func refused(format string, a ...any) error {
	return &approval.RefusedError{Message: fmt.Sprintf(format, a...)}
}

func missingArg(tool, name string) error {
	return &InvalidParamsError{Message: fmt.Sprintf("Invalid params: missing required argument '%s' for tool %s", name, tool)}
}

// idArg reads a positive whole-number id argument.
func idArg(args *jsjson.Object, tool, name string) (int64, error) {
	v, ok := args.Number(name)
	if !ok {
		return 0, missingArg(tool, name)
	}
	if v < 1 || v > 1<<53 || v != math.Trunc(v) {
		return 0, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument '%s' of tool %s must be a positive whole number", name, tool)}
	}
	return int64(v), nil
}

// textArg reads a required, non-blank, bounded text argument.
func textArg(args *jsjson.Object, tool, name string) (string, error) {
	s, ok := args.String(name)
	if !ok {
		return "", missingArg(tool, name)
	}
	if strings.TrimSpace(s) == "" {
		return "", &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument '%s' of tool %s must not be empty", name, tool)}
	}
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxMessageRunes {
		return "", &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument '%s' of tool %s must be at most %d characters", name, tool, maxMessageRunes)}
	}
	return s, nil
}

func boolArg(args *jsjson.Object, name string) bool {
	v, _ := args.Get(name)
	b, _ := v.(bool)
	return b
}

// staffMember is the caller's enrolment in the class, when staff.
type staffMember struct {
	privateProfileID string
	name             string
	role             string
	course           string // the class's name, as the web app shows it
}

// as is who a write is made as, in a preview.
func (m *staffMember) as() string { return fmt.Sprintf("%s (%s in %s)", m.name, m.role, m.course) }

// courseName is the embedded class's name, or "class N" when it has none.
func courseName(row *jsjson.Object, classID int64) string {
	c, _ := row.Object("classes")
	if n, ok := c.String("name"); ok && strings.TrimSpace(n) != "" {
		return n
	}
	return fmt.Sprintf("class %d", classID)
}

// staffOnlyVisibility is who sees a staff-only message or reply.
func staffOnlyVisibility(course string) string {
	return "Visible to staff only: the instructors and graders of " + course
}

// requireStaff returns the caller's staff enrolment in classID, read as
// the caller, or the refusal for a student or a non-member.
func requireStaff(ctx context.Context, c *Call, tool string, classID int64) (*staffMember, error) {
	raw, err := c.DB.From("user_roles").
		Select("role, private_profile_id, profiles!user_roles_private_profile_id_fkey(name), classes(name)").
		Eq("user_id", c.DB.UserID()).
		Eq("class_id", writeIDString(classID)).
		Eq("disabled", "false").
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, errReadFailed
	}
	student := false
	for _, r := range rows {
		role, _ := r.String("role")
		switch role {
		case "instructor", "grader":
			priv, _ := r.String("private_profile_id")
			name, _ := embeddedName(r).(string)
			if name == "" {
				name = "your profile"
			}
			return &staffMember{privateProfileID: priv, name: name, role: role, course: courseName(r, classID)}, nil
		case "student":
			student = true
		}
	}
	if student {
		return nil, refused("%s is for instructors and graders; you are a student in class %d, so nothing can be written there for you.", tool, classID)
	}
	return nil, refused("You are not an instructor or grader in class %d, so nothing can be written there for you.", classID)
}

// writeCaller returns the call's caller; a transport that sets none is a
// wiring fault.
func writeCaller(ctx context.Context) (Caller, error) {
	cl, ok := CallerFrom(ctx)
	if !ok {
		return Caller{}, fmt.Errorf("tools: write tool called without a caller")
	}
	return cl, nil
}

// actionState answers a call with action_id: the state of the caller's
// own earlier proposal of this tool.
func actionState(ctx context.Context, c *Call, tool string) (any, bool, error) {
	v, present := c.Args.Get("action_id")
	if !present || v == nil {
		return nil, false, nil
	}
	id, ok := v.(string)
	if !ok || id == "" || len(id) > maxActionIDLen {
		return nil, true, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument 'action_id' of tool %s must be the action_id an earlier call returned", tool)}
	}
	cl, err := writeCaller(ctx)
	if err != nil {
		return nil, true, err
	}
	st, err := c.reg.approvals.State(ctx, cl.UserID, id)
	if err != nil {
		return nil, true, err
	}
	if st.Tool != tool {
		return nil, true, approval.ErrNoAction
	}
	return StateValue(st), true, nil
}

// propose stores the proposal and returns the tool's answer.
func propose(ctx context.Context, c *Call, tool string, classID int64, args map[string]any, pv approval.Preview) (any, error) {
	cl, err := writeCaller(ctx)
	if err != nil {
		return nil, err
	}
	canon, digest, err := canonicalArguments(args)
	if err != nil {
		return nil, err
	}
	st, err := c.reg.approvals.Propose(ctx, approval.Proposal{UserID: cl.UserID, TokenID: cl.TokenID, ClientID: cl.ClientID, ClassID: classID, Tool: tool, Arguments: canon, Digest: digest, Preview: pv})
	if err != nil {
		return nil, err
	}
	return &Proposed{Value: stateValue(st, slices.Contains(c.scopes, ScopeRead)), URL: st.ApprovalURL, RequestState: st.RequestState,
		Message: "Review and approve or reject: " + pv.Action}, nil
}

// Proposed is a write tool's answer to a new proposal: Value is the
// result, and URL and RequestState let a 2026-07-28 client that supports
// URL-mode elicitation be asked to open the approval page instead
// (input_required).
type Proposed struct {
	Value        *jsjson.Object
	URL          string
	Message      string
	RequestState string
}

// StateValue is a write tool's result for st: the state, the link while
// pending, the written row's id once approved, the preview (its
// student-authored text with hidden characters marked by hiddentext.Mark)
// when just proposed, and what the model should do next.
func StateValue(st *approval.ActionState) *jsjson.Object { return stateValue(st, true) }

// stateValue is StateValue; withStudentText false leaves the preview's
// student-written fields out (a caller without mcp:read).
func stateValue(st *approval.ActionState, withStudentText bool) *jsjson.Object {
	o := jsjson.NewObject(8).Set("action_id", st.ActionID).Set("state", st.State)
	if st.State == approval.StatePending && st.ApprovalURL != "" {
		o.Set("approval_url", st.ApprovalURL)
	}
	if !st.ExpiresAt.IsZero() {
		o.Set("expires_at", st.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if st.RowID != "" {
		o.Set("written_row_id", st.RowID)
	}
	if st.Failure != "" {
		o.Set("failure", st.Failure)
	}
	if st.Preview != nil {
		o.Set("preview", previewValue(st.Preview, withStudentText))
	}
	var next string
	switch st.State {
	case approval.StatePending:
		next = "Nothing has been written. Give the person approval_url: they sign in there, review this preview and approve or reject it (within 10 minutes). Then call " + st.Tool + " with only action_id to learn the outcome."
	case approval.StateApproved:
		next = "The person approved it and it was written (row " + st.RowID + ")."
	case approval.StateRejected:
		next = "The person rejected it; nothing was written. Do not propose it again unless they ask."
	case approval.StateExpired:
		next = "Nobody approved it within 10 minutes; nothing was written. Propose it again if the person still wants it."
	default:
		next = "Nothing was written. Tell the person why (failure); propose it again only if it still applies and they ask."
	}
	return o.Set("next_step", next)
}

// previewValue is a preview as a tool result shows it; withStudentText
// false leaves out the fields a student wrote.
func previewValue(p *approval.Preview, withStudentText bool) *jsjson.Object {
	fields := make([]any, 0, len(p.Fields))
	for _, f := range p.Fields {
		if f.StudentAuthored && !withStudentText {
			continue
		}
		text := f.Text
		if f.StudentAuthored {
			text = hiddentext.Mark(text)
		}
		fields = append(fields, jsjson.NewObject(3).Set("label", f.Label).Set("text", text).Set("student_authored", f.StudentAuthored))
	}
	return jsjson.NewObject(5).
		Set("action", p.Action).
		Set("as", p.As).
		Set("where", p.Where).
		Set("visibility", p.Visibility).
		Set("fields", fields)
}

// excerpt shortens student-written text for a preview's context line.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// helpTarget reads the help request as the caller.
func helpTarget(ctx context.Context, c *Call, classID, requestID int64) (*jsjson.Object, error) {
	return classRow(ctx, c, "help_requests",
		"id, request, status, is_private, assignee, help_queues(name), profiles!help_requests_created_by_fkey(name)",
		"Help request", classID, requestID)
}

// classRow reads, as the caller, the row of table with id in classID: a
// write's target. One the caller cannot see is "<what> <id> was not found
// in class <classID>."; a failed read is errReadFailed.
func classRow(ctx context.Context, c *Call, table, columns, what string, classID, id int64) (*jsjson.Object, error) {
	raw, err := c.DB.From(table).
		Select(columns).
		Eq("id", writeIDString(id)).
		Eq("class_id", writeIDString(classID)).
		MaybeSingle(ctx)
	if err != nil && !postgrest.IsNoRows(err) {
		c.logQueryFailure(ctx, err)
		return nil, errReadFailed
	}
	row := c.pgObject(ctx, raw, err)
	if row == nil {
		return nil, refused("%s %d was not found in class %d.", what, id, classID)
	}
	return row, nil
}

// acceptsReplies refuses a reply to a resolved or closed request, whose
// chat the web app makes read-only.
func acceptsReplies(hr *jsjson.Object, requestID int64) error {
	if status, _ := hr.String("status"); status == "resolved" || status == "closed" {
		return refused("Help request %d is %s; its chat takes no more replies.", requestID, status)
	}
	return nil
}

// writeIDString is an id argument as PostgREST filters it.
func writeIDString(v int64) string { return strconv.FormatInt(v, 10) }

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

// replyArgs are what the reply tools and comment_on_regrade_request read,
// in this order (the first failure is the answer): the class, the target's
// id, the text, staff_only, then the caller's staff role in the class.
type replyArgs struct {
	classID, targetID int64
	text              string
	staffOnly         bool
	me                *staffMember
}

func readReplyArgs(ctx context.Context, c *Call, tool, targetName, textName string) (replyArgs, error) {
	var a replyArgs
	var err error
	if a.classID, err = idArg(c.Args, tool, "class_id"); err != nil {
		return a, err
	}
	if a.targetID, err = idArg(c.Args, tool, targetName); err != nil {
		return a, err
	}
	if a.text, err = textArg(c.Args, tool, textName); err != nil {
		return a, err
	}
	a.staffOnly = boolArg(c.Args, "staff_only")
	a.me, err = requireStaff(ctx, c, tool, a.classID)
	return a, err
}

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
		Write: approval.WritePlan{Values: helpReplyValues{HelpRequestID: requestID, ClassID: classID,
			Author: me.privateProfileID, Message: message, InstructorsOnly: staffOnly}},
	}
	args := map[string]any{"class_id": classID, "help_request_id": requestID, "message": message, "staff_only": staffOnly}
	return propose(ctx, c, tool, classID, args, pv)
}

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
		Write: approval.WritePlan{Match: helpStatusMatch{ID: writeIDString(requestID), ClassID: writeIDString(classID)},
			Values: values, Now: now, Expect: helpStatusExpect{Status: current, Assignee: assignee}},
	}
	args := map[string]any{"class_id": classID, "help_request_id": requestID, "status": status}
	if hasResolution {
		args["resolution"] = resolution
	}
	return propose(ctx, c, tool, classID, args, pv)
}

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
		Write: approval.WritePlan{Values: threadReplyValues{Subject: "Re: " + subject, Parent: threadID, Root: root, TopicID: topic,
			InstructorsOnly: instructorsOnly, ClassID: classID, Author: me.privateProfileID, Body: body}},
	}
	args := map[string]any{"class_id": classID, "thread_id": threadID, "body": body, "staff_only": staffOnly}
	return propose(ctx, c, tool, classID, args, pv)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
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
