package tools

// The grading write tool decide_regrade_request (docs/writes.md): what the
// web app's Resolve and Close buttons do on a regrade request
// (components/ui/regrade-request-wrapper.tsx in pawtograder/platform),
// proposed here and made on approval by update_regrade_request_status,
// the platform's own function, with the reason posted first as a comment
// in the request's conversation. The rules are the platform's: graders
// and instructors resolve an opened request, instructors close an opened,
// resolved or escalated one, and only the submission's students escalate.

import (
	"context"
	"fmt"
	"math"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

var decideRegradeRequestTool = writeTool(Tool{
	Name:  "decide_regrade_request",
	Title: "Decide regrade request",
	Summary: "Proposes a decision on a regrade request, made as you once you approve it on the page whose link the result gives; nothing is written before. " +
		"resolve (graders and instructors, on an opened request) or close (instructors, on an opened, resolved or escalated request) sets the disputed rubric check's points to points; " +
		"the reason is posted in the request's conversation and the students are notified. Only students escalate. Call again with only action_id to learn its state.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID of the regrade request"},
			"regrade_request_id": {"type": "number", "description": "The regrade request to decide"},
			"decision": {"type": "string", "enum": ["resolve", "escalate", "close"], "description": "resolve or close (escalate is the student's step and is refused)"},
			"points": {"type": "number", "description": "The disputed rubric check's points after the decision (0 or more), as the regrade dialog's final score"},
			"reason": {"type": "string", "description": "Why: posted as you in the request's conversation"},
			"file_id": {"type": "number", "description": "Only for a request about an annotation check that has no comment yet: the submission file the new comment goes on"},
			"line": {"type": "number", "description": "With file_id: the line (from 1)"},
			"action_id": {"type": "string", "description": "Instead of proposing: the action_id of an earlier proposal, to learn its state"}
		}
	}`),
	Handler: decideRegradeRequest,
})

// regradeDecisions maps the tool's decisions to regrade_status values.
var regradeDecisions = map[string]string{"resolve": "resolved", "escalate": "escalated", "close": "closed"}

// maxRegradePoints bounds points: far above any rubric check, well inside
// what PostgreSQL's numeric and a JSON number both keep exactly.
const maxRegradePoints = 100000

// regradeDecisionColumns is what a decision reads of the request.
const regradeDecisionColumns = regradeTargetColumns + ", rubric_check_id, submission_review_id, assignment_id," +
	" resolved_at, escalated_at, submission_comment_id, submission_file_comment_id, submission_artifact_comment_id"

// decisionArgs are decide_regrade_request's arguments, read in this order
// (the first failure is the answer).
type decisionArgs struct {
	classID, requestID int64
	decision, status   string
	points             float64
	reason             string
	fileID, line       int64 // 0 when absent
	me                 *staffMember
}

func readDecisionArgs(ctx context.Context, c *Call, tool string) (decisionArgs, error) {
	var a decisionArgs
	var err error
	if a.classID, err = idArg(c.Args, tool, "class_id"); err != nil {
		return a, err
	}
	if a.requestID, err = idArg(c.Args, tool, "regrade_request_id"); err != nil {
		return a, err
	}
	var ok bool
	if a.decision, ok = c.Args.String("decision"); !ok {
		return a, missingArg(tool, "decision")
	}
	if a.status, ok = regradeDecisions[a.decision]; !ok {
		return a, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument 'decision' of tool %s must be one of resolve, escalate, close", tool)}
	}
	if a.decision != "escalate" {
		if a.points, ok = c.Args.Number("points"); !ok {
			return a, missingArg(tool, "points")
		}
		if a.points < 0 || a.points > maxRegradePoints || math.IsNaN(a.points) {
			return a, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument 'points' of tool %s must be from 0 to %d (Pawtograder's regrade dialog refuses a negative score)", tool, maxRegradePoints)}
		}
	}
	if a.reason, err = textArg(c.Args, tool, "reason"); err != nil {
		return a, err
	}
	if a.fileID, a.line, err = fileLineArgs(c.Args, tool); err != nil {
		return a, err
	}
	a.me, err = requireStaff(ctx, c, tool, a.classID)
	return a, err
}

// fileLineArgs reads the optional file_id and line, which go together.
func fileLineArgs(args *jsjson.Object, tool string) (fileID, line int64, err error) {
	_, hasFile := args.Get("file_id")
	_, hasLine := args.Get("line")
	if hasFile != hasLine {
		return 0, 0, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: arguments 'file_id' and 'line' of tool %s go together", tool)}
	}
	if !hasFile {
		return 0, 0, nil
	}
	if fileID, err = idArg(args, tool, "file_id"); err != nil {
		return 0, 0, err
	}
	line, err = idArg(args, tool, "line")
	return fileID, line, err
}

func decideRegradeRequest(ctx context.Context, c *Call) (any, error) {
	const tool = "decide_regrade_request"
	if v, ok, err := actionState(ctx, c, tool); ok {
		return v, err
	}
	a, err := readDecisionArgs(ctx, c, tool)
	if err != nil {
		return nil, err
	}
	if err := decisionAllowed(a); err != nil {
		return nil, err
	}
	rr, err := regradeTarget(ctx, c, regradeDecisionColumns, a.classID, a.requestID)
	if err != nil {
		return nil, err
	}
	status, _ := rr.String("status")
	if err := decisionFits(a, status); err != nil {
		return nil, err
	}
	location, err := decisionLocation(ctx, c, a, rr)
	if err != nil {
		return nil, err
	}
	score, err := decisionScore(ctx, c, a, rr)
	if err != nil {
		return nil, err
	}
	conversation, err := regradeConversation(ctx, c, a.classID, a.requestID)
	if err != nil {
		return nil, err
	}
	return propose(ctx, c, tool, a.classID, decisionCallArgs(a), decisionPreview(a, rr, status, location, score, conversation))
}

// decisionAllowed applies the platform's rule of who takes which decision,
// before anything is read: the web app offers Escalate only to the
// submission's students, and Close only to instructors (the SQL function
// refuses anyone else).
func decisionAllowed(a decisionArgs) error {
	instructor := a.me.role == "instructor"
	switch {
	case a.decision == "escalate" && instructor:
		return refused("%s As an instructor you can resolve an opened request or close one.", onlyStudentsEscalate)
	case a.decision == "escalate":
		return refused("%s As a grader you can resolve an opened request.", onlyStudentsEscalate)
	case a.decision == "close" && !instructor:
		return refused("Only instructors close regrade requests in Pawtograder; as a grader you can resolve an opened one.")
	}
	return nil
}

const onlyStudentsEscalate = "Only the submission's students escalate a regrade request in Pawtograder (a resolved one, to an instructor)."

// decisionFits checks the request's status allows the decision, as
// update_regrade_request_status does.
func decisionFits(a decisionArgs, status string) error {
	switch {
	case status == "draft":
		return refused("Regrade request %d is a draft the student has not sent; it can be decided once they send it.", a.requestID)
	case a.decision == "resolve" && status != "opened":
		return refused("Regrade request %d is %s; only an opened request is resolved.", a.requestID, status)
	case a.decision == "close" && status == "closed":
		return refused("Regrade request %d is already closed.", a.requestID)
	}
	return nil
}

// decisionCallArgs are the call's arguments as the proposal records them.
func decisionCallArgs(a decisionArgs) map[string]any {
	args := map[string]any{"class_id": a.classID, "regrade_request_id": a.requestID, "decision": a.decision,
		"points": a.points, "reason": a.reason}
	if a.fileID != 0 {
		args["file_id"], args["line"] = a.fileID, a.line
	}
	return args
}

// decisionPreview is what the person approves: the request, the points
// and score before and after, the conversation, the reason, and the one
// write.
func decisionPreview(a decisionArgs, rr *jsjson.Object, status, location string, score reviewChange, conversation []approval.PreviewField) approval.Preview {
	verb := map[string]string{"resolve": "Resolve", "close": "Close"}[a.decision]
	change := fmt.Sprintf("Rubric check points: %s → %s", pointsText(score.checkBefore), pointsText(a.points))
	if location != "" {
		change += "; " + location
	}
	fields := append(conversation,
		approval.PreviewField{Label: "The decision", Text: change},
		approval.PreviewField{Label: "The submission's score", Text: score.text()},
		approval.PreviewField{Label: "Your reason (posted in the conversation)", Text: a.reason})
	values := decisionValues{RequestID: a.requestID, ClassID: a.classID, Author: a.me.privateProfileID,
		NewStatus: a.status, Points: a.points, Reason: a.reason}
	if a.fileID != 0 {
		values.FileID, values.Line = &a.fileID, &a.line
	}
	return approval.Preview{
		Action:     fmt.Sprintf("%s regrade request #%d with %s", verb, a.requestID, pointsText(a.points)),
		As:         a.me.as(),
		Where:      regradeWhere(rr, a.requestID, a.me.course),
		Visibility: score.visibility(jsjson.String(rr.Value("submission_id")), a.me.course),
		Fields:     fields,
		Written:    "regrade request",
		Write: approval.WritePlan{Values: values,
			Expect: decisionExpect{Status: status, ResolvedAt: rr.Value("resolved_at"), EscalatedAt: rr.Value("escalated_at")}},
	}
}

// decisionLocation checks file_id and line against the request. A request
// about a check with no comment yet gets one when it is decided
// (_materialize_bare_check_regrade_comment): an annotation check's on a
// line of a file the caller names, any other check's on the submission.
// It returns where that comment goes ("" when the request disputes an
// existing comment).
func decisionLocation(ctx context.Context, c *Call, a decisionArgs, rr *jsjson.Object) (string, error) {
	if !isBareCheck(rr) {
		if a.fileID != 0 {
			return "", refused("Regrade request %d disputes a comment already on the submission; file_id and line are only for a request about a rubric check with no comment yet.", a.requestID)
		}
		return "", nil
	}
	check, err := readOne(ctx, c, "rubric_checks", "id, name, is_annotation, annotation_target, file", jsjson.String(rr.Value("rubric_check_id")))
	if err != nil {
		return "", err
	}
	if check == nil {
		return "", refused("The rubric check of regrade request %d could not be read.", a.requestID)
	}
	name, _ := check.String("name")
	annotation, _ := check.Value("is_annotation").(bool)
	target, _ := check.String("annotation_target")
	switch {
	case !annotation && a.fileID != 0:
		return "", refused("Rubric check %q is not an annotation, so the comment Pawtograder adds for it takes no file_id or line.", name)
	case !annotation:
		return fmt.Sprintf("Pawtograder adds the check %q to the review as a released comment with these points", name), nil
	case target == "artifact":
		return "", refused("Regrade request %d is about rubric check %q, which annotates an artifact and is not on the submission yet; decide it in Pawtograder, where you pick the artifact.", a.requestID, name)
	case a.fileID == 0:
		return "", refused("Regrade request %d is about annotation check %q, which is not on the submission yet: give file_id and line for the comment Pawtograder adds (list_submission_files lists the files).", a.requestID, name)
	}
	return annotationLine(ctx, c, a, rr, check)
}

// annotationLine checks the file is the submission's and the one the
// check names, if it names one.
func annotationLine(ctx context.Context, c *Call, a decisionArgs, rr, check *jsjson.Object) (string, error) {
	raw, err := c.DB.From("submission_files").Select("id, name").
		Eq("id", writeIDString(a.fileID)).
		Eq("submission_id", jsjson.String(rr.Value("submission_id"))).
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return "", errReadFailed
	}
	if len(rows) == 0 {
		return "", refused("File %d is not a file of submission #%s.", a.fileID, jsjson.String(rr.Value("submission_id")))
	}
	file, _ := rows[0].String("name")
	name, _ := check.String("name")
	if want, ok := check.String("file"); ok && want != "" && want != file {
		return "", refused("Rubric check %q goes on %s; file %d is %s.", name, want, a.fileID, file)
	}
	return fmt.Sprintf("Pawtograder adds the check %q as a released comment with these points on %s, line %d", name, file, a.line), nil
}

// decisionValues and decisionExpect are decide_regrade_request's plan, as
// mcp_write_decide_regrade_request reads it.
type decisionValues struct {
	RequestID int64   `json:"regrade_request_id"`
	ClassID   int64   `json:"class_id"`
	Author    string  `json:"author"`
	NewStatus string  `json:"new_status"`
	Points    float64 `json:"points"`
	Reason    string  `json:"reason"`
	FileID    *int64  `json:"submission_file_id,omitempty"`
	Line      *int64  `json:"line,omitempty"`
}

type decisionExpect struct {
	Status      string `json:"status"`
	ResolvedAt  any    `json:"resolved_at"`  // a timestamp, or null
	EscalatedAt any    `json:"escalated_at"` // a timestamp, or null
}
