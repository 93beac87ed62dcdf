package tools

// What a regrade decision does to the submission's score, for its preview.
// Pawtograder recomputes a review's total whenever a rubric comment's
// points change (_submission_review_recompute_scores, migration
// 20260604000000 of pawtograder/platform); reviewTotal is that formula, so
// the preview shows the total the platform will show after the approval.
// The tests hold the two to each other on the seed and on the real schema.

import (
	"context"
	"fmt"
	"math"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// reviewChange is a decision's effect on the disputed check and on the
// review's total.
type reviewChange struct {
	checkBefore any // the check's points as the request records them (number or nil)
	reviewName  string
	released    bool
	// totalBefore is the total Pawtograder shows now; totalAfter the one
	// it will compute. Both are NaN when the request names no review.
	totalBefore, totalAfter float64
}

func (r reviewChange) text() string {
	if math.IsNaN(r.totalAfter) {
		return "The request names no review, so the score it changes could not be shown."
	}
	state := "not yet released to the student"
	if r.released {
		state = "released: the student sees it"
	}
	return fmt.Sprintf("%s → %s, the total of the review %q (%s)", pointsText(r.totalBefore), pointsText(r.totalAfter), r.reviewName, state)
}

func (r reviewChange) visibility(submissionID, course string) string {
	seen := "they see the new points when the review is released"
	if r.released {
		seen = "the review is released, so they see the new points and score at once"
	}
	return fmt.Sprintf("The students of submission #%s are notified and read your reason in the regrade request at once; %s; every instructor and grader of %s can read both", submissionID, seen, course)
}

// commentTables are the rubric comments a review's total sums.
var commentTables = []string{"submission_comments", "submission_file_comments", "submission_artifact_comments"}

// requestCommentColumns names, per comment table, the request's column
// holding the comment it disputes.
var requestCommentColumns = map[string]string{
	"submission_comments":          "submission_comment_id",
	"submission_file_comments":     "submission_file_comment_id",
	"submission_artifact_comments": "submission_artifact_comment_id",
}

// criterion is a rubric criterion as the total counts it.
type criterion struct {
	total                float64
	additive, deductOnly bool
	checks               []string // rubric_checks ids
}

// decisionScore reads, as the caller, what the review's total depends on
// and computes it before and after the decision's points.
func decisionScore(ctx context.Context, c *Call, a decisionArgs, rr *jsjson.Object) (reviewChange, error) {
	change := reviewChange{checkBefore: rr.Value("initial_points"), totalBefore: math.NaN(), totalAfter: math.NaN()}
	if v := rr.Value("resolved_points"); v != nil {
		change.checkBefore = v
	}
	reviewID := jsjson.String(rr.Value("submission_review_id"))
	if rr.Value("submission_review_id") == nil {
		return change, nil
	}
	review, err := readOne(ctx, c, "submission_reviews",
		"id, name, total_score, total_autograde_score, tweak, released, rubric_id, rubrics(cap_score_to_assignment_points)", reviewID)
	if err != nil || review == nil {
		return change, err
	}
	assignment, err := readOne(ctx, c, "assignments", "id, total_points", jsjson.String(rr.Value("assignment_id")))
	if err != nil {
		return change, err
	}
	criteria, err := rubricCriteria(ctx, c, jsjson.String(review.Value("rubric_id")))
	if err != nil {
		return change, err
	}
	points, err := reviewCommentPoints(ctx, c, reviewID, rr, a.points)
	if err != nil {
		return change, err
	}
	change.reviewName, _ = review.String("name")
	change.released, _ = review.Value("released").(bool)
	change.totalBefore = number(review.Value("total_score"))
	rubric, _ := review.Object("rubrics")
	capped, _ := rubric.Value("cap_score_to_assignment_points").(bool)
	var limit any
	if capped && assignment != nil {
		limit = assignment.Value("total_points")
	}
	change.totalAfter = reviewTotal(criteria, points, number(review.Value("total_autograde_score")), number(review.Value("tweak")), limit)
	return change, nil
}

// reviewTotal is _submission_review_recompute_scores' total: per
// criterion, deduction-only criteria take off at most their total,
// additive ones add at most theirs, the others start from their total and
// lose the points down to zero; then the autograder's score and the tweak
// are added, the sum capped at the assignment's points where the rubric
// says so (limit non-nil), and floored at zero.
func reviewTotal(criteria []criterion, points map[string]float64, autograde, tweak float64, limit any) float64 {
	total := 0.0
	for _, cr := range criteria {
		sum := 0.0
		for _, id := range cr.checks {
			sum += points[id]
		}
		switch {
		case cr.deductOnly:
			total += math.Max(-sum, -cr.total)
		case cr.additive:
			total += math.Min(sum, cr.total)
		default:
			total += math.Max(cr.total-sum, 0)
		}
	}
	total += autograde + tweak
	if limit != nil {
		total = math.Min(total, number(limit))
	}
	return math.Max(total, 0)
}

// reviewCommentPoints sums the review's rubric comments' points per
// rubric check, as they will be after the decision: the comment the
// request disputes takes the new points, or, for a request about a check
// with no comment yet, a comment with them is added.
func reviewCommentPoints(ctx context.Context, c *Call, reviewID string, rr *jsjson.Object, newPoints float64) (map[string]float64, error) {
	sums := map[string]float64{}
	disputed := false
	for _, table := range commentTables {
		raw, err := c.DB.From(table).Select("id, rubric_check_id, points").
			Eq("submission_review_id", reviewID).Is("deleted_at", "null").Filter("points", "not.is", "null").
			Rows(ctx)
		rows, ok := c.pgRows(ctx, raw, err)
		if !ok {
			return nil, errReadFailed
		}
		backing := rr.Value(requestCommentColumns[table])
		for _, r := range rows {
			p := number(r.Value("points"))
			if backing != nil && jsjson.String(r.Value("id")) == jsjson.String(backing) {
				p, disputed = newPoints, true
			}
			sums[jsjson.String(r.Value("rubric_check_id"))] += p
		}
	}
	if !disputed && isBareCheck(rr) {
		sums[jsjson.String(rr.Value("rubric_check_id"))] += newPoints
	}
	return sums, nil
}

// isBareCheck: the request is about a rubric check no comment applies yet
// (the platform adds one when the request is decided).
func isBareCheck(rr *jsjson.Object) bool {
	for _, col := range requestCommentColumns {
		if rr.Value(col) != nil {
			return false
		}
	}
	return rr.Value("rubric_check_id") != nil
}

// rubricCriteria reads the rubric's criteria with their checks.
func rubricCriteria(ctx context.Context, c *Call, rubricID string) ([]criterion, error) {
	raw, err := c.DB.From("rubric_criteria").
		Select("id, total_points, is_additive, is_deduction_only, rubric_checks!rubric_checks_rubric_criteria_id_fkey(id)").
		Eq("rubric_id", rubricID).
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, errReadFailed
	}
	out := make([]criterion, 0, len(rows))
	for _, r := range rows {
		cr := criterion{total: number(r.Value("total_points"))}
		cr.additive, _ = r.Value("is_additive").(bool)
		cr.deductOnly, _ = r.Value("is_deduction_only").(bool)
		checks, _ := r.Value("rubric_checks").([]any)
		for _, ch := range checks {
			if o, ok := ch.(*jsjson.Object); ok {
				cr.checks = append(cr.checks, jsjson.String(o.Value("id")))
			}
		}
		out = append(out, cr)
	}
	return out, nil
}

// readOne reads the row of table with id as the caller; nil when there is
// none (or the caller may not see it).
func readOne(ctx context.Context, c *Call, table, columns, id string) (*jsjson.Object, error) {
	raw, err := c.DB.From(table).Select(columns).Eq("id", id).Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, errReadFailed
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return rows[0], nil
}

// number is a JSON number's value; 0 for anything else (PostgreSQL's
// numeric arrives as a JSON number).
func number(v any) float64 {
	f, _ := v.(float64)
	return f
}
