package tools

// The grading write tool add_rubric_comment (docs/writes.md): a rubric
// check applied to a submission as a grader applies it in the web app,
// on the submission (components/ui/rubric-sidebar.tsx) or, for an
// annotation check, on a line of a file
// (components/ui/line-comments-form.tsx), with the check's points or one
// of its options', released when the review is. It only proposes; the
// approval writes it through mcp_write_add_rubric_comment.

import (
	"context"
	"fmt"
	"math"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

var addRubricCommentTool = writeTool(Tool{
	Name:  "add_rubric_comment",
	Title: "Add rubric comment",
	Summary: "Proposes applying a rubric check to a submission's review with a comment, as you, made once you approve it on the page whose link the result gives; nothing is written before. " +
		"points defaults to the check's; a check with options takes one of its options' points, any other from 0 to the check's points. An annotation check needs file_id and line. " +
		"On a released review the students see it and the new score at once. Call again with only action_id to learn its state.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID of the submission"},
			"submission_id": {"type": "number", "description": "The submission to comment on"},
			"rubric_check_id": {"type": "number", "description": "The rubric check to apply (get_rubric lists them)"},
			"comment": {"type": "string", "description": "The comment, as you"},
			"points": {"type": "number", "description": "The comment's points (default: the check's)"},
			"file_id": {"type": "number", "description": "For an annotation check: the submission file (list_submission_files lists them)"},
			"line": {"type": "number", "description": "With file_id: the line (from 1)"},
			"action_id": {"type": "string", "description": "Instead of proposing: the action_id of an earlier proposal, to learn its state"}
		}
	}`),
	Handler: addRubricComment,
})

// rubricCommentArgs are add_rubric_comment's arguments, read in this
// order (the first failure is the answer).
type rubricCommentArgs struct {
	classID, submissionID, checkID int64
	comment                        string
	points                         float64
	hasPoints                      bool
	fileID, line                   int64
	me                             *staffMember
}

func readRubricCommentArgs(ctx context.Context, c *Call, tool string) (rubricCommentArgs, error) {
	var a rubricCommentArgs
	var err error
	if a.classID, err = idArg(c.Args, tool, "class_id"); err != nil {
		return a, err
	}
	if a.submissionID, err = idArg(c.Args, tool, "submission_id"); err != nil {
		return a, err
	}
	if a.checkID, err = idArg(c.Args, tool, "rubric_check_id"); err != nil {
		return a, err
	}
	if a.comment, err = textArg(c.Args, tool, "comment"); err != nil {
		return a, err
	}
	if _, present := c.Args.Get("points"); present {
		a.points, a.hasPoints = c.Args.Number("points")
		if !a.hasPoints || math.Abs(a.points) > maxRegradePoints {
			return a, &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument 'points' of tool %s must be a number from -%d to %d", tool, maxRegradePoints, maxRegradePoints)}
		}
	}
	if a.fileID, a.line, err = fileLineArgs(c.Args, tool); err != nil {
		return a, err
	}
	a.me, err = requireStaff(ctx, c, tool, a.classID)
	return a, err
}

func addRubricComment(ctx context.Context, c *Call) (any, error) {
	const tool = "add_rubric_comment"
	if v, ok, err := actionState(ctx, c, tool); ok {
		return v, err
	}
	a, err := readRubricCommentArgs(ctx, c, tool)
	if err != nil {
		return nil, err
	}
	sub, err := readSubmission(ctx, c, a)
	if err != nil {
		return nil, err
	}
	check, err := readCheck(ctx, c, a)
	if err != nil {
		return nil, err
	}
	review, err := checkReview(ctx, c, a, check)
	if err != nil {
		return nil, err
	}
	if a.points, err = checkPoints(a, check); err != nil {
		return nil, err
	}
	place, err := commentPlace(ctx, c, a, check)
	if err != nil {
		return nil, err
	}
	score, err := commentScore(ctx, c, a, check, review)
	if err != nil {
		return nil, err
	}
	args := map[string]any{"class_id": a.classID, "submission_id": a.submissionID, "rubric_check_id": a.checkID,
		"comment": a.comment, "points": a.points}
	if a.fileID != 0 {
		args["file_id"], args["line"] = a.fileID, a.line
	}
	return propose(ctx, c, tool, a.classID, args, rubricCommentPreview(a, sub, check, review, place, score))
}

// readSubmission reads the submission as the caller, with its student or
// group and assignment.
func readSubmission(ctx context.Context, c *Call, a rubricCommentArgs) (*jsjson.Object, error) {
	return classRow(ctx, c, "submissions",
		"id, profiles!submissio_user_id_fkey1(name), assignment_groups!submissions_assignment_group_id_fkey(name), assignments!submissio_assignment_id_fkey(title)",
		"Submission", a.classID, a.submissionID)
}

// readCheck reads the rubric check with its criterion and part.
func readCheck(ctx context.Context, c *Call, a rubricCommentArgs) (*jsjson.Object, error) {
	return classRow(ctx, c, "rubric_checks",
		"id, name, description, points, data, file, is_annotation, annotation_target, rubric_id,"+
			" rubric_criteria!rubric_checks_rubric_criteria_id_fkey(name, total_points, is_additive, is_deduction_only,"+
			" rubric_parts!rubric_criteria_rubric_part_id_fkey(is_individual_grading, is_assign_to_student))",
		"Rubric check", a.classID, a.checkID)
}

// checkReview is the submission's review under the check's rubric.
func checkReview(ctx context.Context, c *Call, a rubricCommentArgs, check *jsjson.Object) (*jsjson.Object, error) {
	raw, err := c.DB.From("submission_reviews").
		Select("id, name, released, total_score, total_autograde_score, tweak, rubric_id, rubrics(cap_score_to_assignment_points), submissions!submission_reviews_submission_id_fkey(assignments!submissio_assignment_id_fkey(total_points))").
		Eq("submission_id", writeIDString(a.submissionID)).
		Eq("rubric_id", jsjson.String(check.Value("rubric_id"))).
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, errReadFailed
	}
	if len(rows) == 0 {
		name, _ := check.String("name")
		return nil, refused("Rubric check %q is not on a rubric of submission %d's reviews (get_rubric lists the checks of the assignment's rubrics).", name, a.submissionID)
	}
	part := checkPart(check)
	if ind, _ := part.Value("is_individual_grading").(bool); ind {
		return nil, refused("Rubric check %q is graded per student of the group; apply it in Pawtograder, where you choose the student.", checkName(check))
	}
	if per, _ := part.Value("is_assign_to_student").(bool); per {
		return nil, refused("Rubric check %q belongs to a part assigned to one student of the group; apply it in Pawtograder.", checkName(check))
	}
	return rows[0], nil
}

func checkName(check *jsjson.Object) string {
	n, _ := check.String("name")
	return n
}

func checkCriterion(check *jsjson.Object) *jsjson.Object {
	cr, _ := check.Object("rubric_criteria")
	return cr
}

func checkPart(check *jsjson.Object) *jsjson.Object {
	p, _ := checkCriterion(check).Object("rubric_parts")
	return p
}

// checkOptions are the points of a check's options, when it has some.
func checkOptions(check *jsjson.Object) []float64 {
	data, _ := check.Object("data")
	opts, _ := data.Value("options").([]any)
	var points []float64
	for _, o := range opts {
		if obj, ok := o.(*jsjson.Object); ok {
			if p, ok := obj.Number("points"); ok {
				points = append(points, p)
			}
		}
	}
	return points
}

// checkPoints applies the check's limits to the comment's points: one of
// its options' points, or from 0 to its points; the check's own points
// when none are given and it has no options.
func checkPoints(a rubricCommentArgs, check *jsjson.Object) (float64, error) {
	max := number(check.Value("points"))
	if opts := checkOptions(check); len(opts) > 0 {
		for _, p := range opts {
			if a.hasPoints && p == a.points {
				return p, nil
			}
		}
		return 0, refused("Rubric check %q has options; points must be one of their points: %s.", checkName(check), pointsList(opts))
	}
	if !a.hasPoints {
		return max, nil
	}
	if a.points < math.Min(0, max) || a.points > math.Max(0, max) {
		return 0, refused("Rubric check %q carries %s; points must be from %s to %s.", checkName(check), pointsText(max),
			jsjson.String(math.Min(0, max)), jsjson.String(math.Max(0, max)))
	}
	return a.points, nil
}

func pointsList(ps []float64) string {
	out := ""
	for i, p := range ps {
		if i > 0 {
			out += ", "
		}
		out += jsjson.String(p)
	}
	return out
}

// commentPlace checks file_id and line against the check: an annotation
// check goes on a line of one of the submission's files (the one the
// check names, if it names one), any other on the submission.
func commentPlace(ctx context.Context, c *Call, a rubricCommentArgs, check *jsjson.Object) (string, error) {
	annotation, _ := check.Value("is_annotation").(bool)
	target, _ := check.String("annotation_target")
	switch {
	case !annotation && a.fileID != 0:
		return "", refused("Rubric check %q is not an annotation; it applies to the whole submission and takes no file_id or line.", checkName(check))
	case !annotation:
		return "on the submission", nil
	case target == "artifact":
		return "", refused("Rubric check %q annotates an artifact; apply it in Pawtograder, where you pick the artifact.", checkName(check))
	case a.fileID == 0:
		return "", refused("Rubric check %q is an annotation: give file_id and line (list_submission_files lists the files).", checkName(check))
	}
	raw, err := c.DB.From("submission_files").Select("id, name").
		Eq("id", writeIDString(a.fileID)).Eq("submission_id", writeIDString(a.submissionID)).
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return "", errReadFailed
	}
	if len(rows) == 0 {
		return "", refused("File %d is not a file of submission #%d.", a.fileID, a.submissionID)
	}
	file, _ := rows[0].String("name")
	if want, ok := check.String("file"); ok && want != "" && want != file {
		return "", refused("Rubric check %q goes on %s; file %d is %s.", checkName(check), want, a.fileID, file)
	}
	return fmt.Sprintf("on %s, line %d", file, a.line), nil
}

// commentScore is the review's total before and after the comment.
func commentScore(ctx context.Context, c *Call, a rubricCommentArgs, check, review *jsjson.Object) (reviewChange, error) {
	change := reviewChange{checkBefore: nil, totalBefore: number(review.Value("total_score"))}
	change.reviewName, _ = review.String("name")
	change.released, _ = review.Value("released").(bool)
	criteria, err := rubricCriteria(ctx, c, jsjson.String(review.Value("rubric_id")))
	if err != nil {
		return change, err
	}
	points, err := reviewCommentPoints(ctx, c, jsjson.String(review.Value("id")), jsjson.NewObject(0), 0)
	if err != nil {
		return change, err
	}
	points[jsjson.String(check.Value("id"))] += a.points
	rubric, _ := review.Object("rubrics")
	var limit any
	if capped, _ := rubric.Value("cap_score_to_assignment_points").(bool); capped {
		s, _ := review.Object("submissions")
		as, _ := s.Object("assignments")
		limit = as.Value("total_points")
	}
	change.totalAfter = reviewTotal(criteria, points, number(review.Value("total_autograde_score")), number(review.Value("tweak")), limit)
	return change, nil
}

// rubricCommentPreview is what the person approves.
func rubricCommentPreview(a rubricCommentArgs, sub, check, review *jsjson.Object, place string, score reviewChange) approval.Preview {
	who := "a student"
	if n, ok := embeddedName(sub).(string); ok && n != "" {
		who = n
	} else if g, _ := sub.Object("assignment_groups"); g != nil {
		if n, ok := g.String("name"); ok && n != "" {
			who = "group " + n
		}
	}
	assignment := "an assignment"
	if as, _ := sub.Object("assignments"); as != nil {
		if t, ok := as.String("title"); ok && t != "" {
			assignment = fmt.Sprintf("%q", t)
		}
	}
	cr := checkCriterion(check)
	crName, _ := cr.String("name")
	kind := "additive"
	if d, _ := cr.Value("is_deduction_only").(bool); d {
		kind = "deductions only"
	} else if add, _ := cr.Value("is_additive").(bool); !add {
		kind = "starts full, points deducted"
	}
	checkText := fmt.Sprintf("%q (%s), in criterion %q (%s, at most %s)", checkName(check), pointsText(check.Value("points")),
		crName, kind, pointsText(cr.Value("total_points")))
	if d, ok := check.String("description"); ok && d != "" {
		checkText += ": " + excerpt(d, 300)
	}
	values := rubricCommentValues{ClassID: a.classID, SubmissionID: a.submissionID, CheckID: a.checkID,
		ReviewID: review.Value("id"), Author: a.me.privateProfileID, Comment: a.comment, Points: a.points}
	if a.fileID != 0 {
		values.FileID, values.Line = &a.fileID, &a.line
	}
	seen := "The review is not released: the submission's students see this comment and the new score when it is"
	if score.released {
		seen = "The review is released: the submission's students see this comment and the new score at once"
	}
	return approval.Preview{
		Action:     fmt.Sprintf("Apply rubric check %q to submission #%d with %s, %s", checkName(check), a.submissionID, pointsText(a.points), place),
		As:         a.me.as(),
		Where:      fmt.Sprintf("Submission #%d from %s on %s, review %q, in %s", a.submissionID, who, assignment, score.reviewName, a.me.course),
		Visibility: seen + "; every instructor and grader of " + a.me.course + " can read it",
		Fields: []approval.PreviewField{
			{Label: "The rubric check", Text: checkText},
			{Label: "The submission's score", Text: score.text()},
			{Label: "Your comment", Text: a.comment},
		},
		Written: "rubric comment",
		Write:   approval.WritePlan{Values: values, Expect: rubricCommentExpect{Released: score.released}},
	}
}

// rubricCommentValues and rubricCommentExpect are add_rubric_comment's
// plan, as mcp_write_add_rubric_comment reads it.
type rubricCommentValues struct {
	ClassID      int64   `json:"class_id"`
	SubmissionID int64   `json:"submission_id"`
	CheckID      int64   `json:"rubric_check_id"`
	ReviewID     any     `json:"submission_review_id"` // the review's id, as read
	Author       string  `json:"author"`
	Comment      string  `json:"comment"`
	Points       float64 `json:"points"`
	FileID       *int64  `json:"submission_file_id,omitempty"`
	Line         *int64  `json:"line,omitempty"`
}

type rubricCommentExpect struct {
	Released bool `json:"released"`
}
