package tools

// The write tools' shared parts (docs/writes.md, "Adding a write tool").
// Each write tool is its own file (help_reply.go, help_status.go,
// thread_reply.go, regrade_comment.go, regrade_decision.go,
// rubric_comment.go) and only proposes: a call validates its arguments,
// checks as the caller (reading only, under row-level security) that the
// target exists and that the caller is staff of the class, builds the
// exact preview and its typed plan, the one write an approval performs,
// and stores a pending action through Approvals (package approval) with
// propose. The answer is the preview and the approval link; the person
// approves on the gateway's page, which performs the write as them. The
// same tool called with action_id reports the action's state
// (actionState).
//
// What each write sets is what Pawtograder's web app sets for the same
// action (pawtograder/platform), authored by the caller's private profile
// in the class (the web app's default; its anonymous mode, the public
// profile, is not offered).

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// Bounds of the texts a write carries.
const (
	maxMessageRunes = 8000
	maxActionIDLen  = 64
)

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

// writeIDString is an id argument as PostgREST filters it.
func writeIDString(v int64) string { return strconv.FormatInt(v, 10) }

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

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
