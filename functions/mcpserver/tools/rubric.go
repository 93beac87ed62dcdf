package tools

import (
	"context"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// rubricRowLimit bounds each of get_rubric's four queries; a rubric
// larger than that is answered in part, with truncated set.
const rubricRowLimit = 500

// Select lists of get_rubric, one per level; the keys of each answer
// object follow them (less the parent ids).
const (
	rubricColumns    = "id,name,description,review_round,is_private"
	partColumns      = "id,rubric_id,name,description,ordinal"
	criterionColumns = "id,rubric_part_id,name,description,ordinal,total_points,is_additive,is_deduction_only,min_checks_per_submission,max_checks_per_submission"
	checkColumns     = "id,rubric_criteria_id,name,description,group,ordinal,points,is_annotation,max_annotations,file,artifact,is_required,is_comment_required,student_visibility"
)

// getRubricTool is get_rubric: every rubric of an assignment the caller
// may read (grading, self-review, meta-grading), each with its parts,
// criteria and checks. Listed only on negotiated revisions.
var getRubricTool = Tool{
	Name:           "get_rubric",
	Title:          "Get assignment rubric",
	NegotiatedOnly: true,
	Description: "Returns an assignment's rubrics (grading, self-review, meta-grading) with their parts, criteria and checks, " +
		"points and descriptions, in the order the Pawtograder web app shows them; null when the assignment is not visible.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"assignment_id":{"type":"number","description":"The assignment ID"}},
		"required":["class_id","assignment_id"]}`),
	Scope:   ScopeRead,
	Handler: getRubric,
}

// getRubric reads the four levels concurrently, each ordered as the web
// app sorts it (ordinal, then id for equal ordinals; rubrics by id), and
// nests them. Row-level security decides every level on its own: a
// student sees no private rubric and only the checks shown to students.
func getRubric(ctx context.Context, c *Call) (any, error) {
	cid, aid := arg(c.Args, "class_id"), arg(c.Args, "assignment_id")
	var assignment any
	levels := [4][]*jsjson.Object{}
	truncated := false
	queries := [4]struct{ table, columns string }{
		{"rubrics", rubricColumns}, {"rubric_parts", partColumns},
		{"rubric_criteria", criterionColumns}, {"rubric_checks", checkColumns},
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		assignment = c.assignmentRecord(gctx, aid, cid)
		return nil
	})
	var over [4]bool
	for i, q := range queries {
		g.Go(func() error {
			pq := c.DB.From(q.table).Select(q.columns).Eq("assignment_id", aid).Eq("class_id", cid)
			if i > 0 {
				pq = pq.Order("ordinal", true)
			}
			raw, err := pq.Order("id", true).Limit(rubricRowLimit + 1).Rows(gctx)
			rows, _ := c.pgRows(gctx, raw, err)
			if len(rows) > rubricRowLimit {
				rows, over[i] = rows[:rubricRowLimit], true
			}
			levels[i] = rows
			return nil
		})
	}
	_ = g.Wait()
	if assignment == nil {
		return nil, nil
	}
	for _, o := range over {
		truncated = truncated || o
	}

	checks := groupBy(levels[3], "rubric_criteria_id", checkColumns, "checks", nil)
	criteria := groupBy(levels[2], "rubric_part_id", criterionColumns, "checks", checks)
	parts := groupBy(levels[1], "rubric_id", partColumns, "criteria", criteria)
	rubrics := make([]any, 0, len(levels[0]))
	for _, r := range levels[0] {
		rubrics = append(rubrics, rubricObject(r, rubricColumns, "", "parts", parts))
	}
	return jsjson.NewObject(4).
		Set("assignment_id", c.Args.Value("assignment_id")).
		Set("class_id", c.Args.Value("class_id")).
		Set("rubrics", rubrics).
		Set("truncated", truncated), nil
}

// groupBy turns rows into answer objects (rubricObject) grouped by the value of
// their parent key, keeping the rows' order within each group.
func groupBy(rows []*jsjson.Object, parentKey, columns, childKey string, children map[string][]any) map[string][]any {
	out := map[string][]any{}
	for _, r := range rows {
		k := jsString(r.Value(parentKey), true)
		out[k] = append(out[k], rubricObject(r, columns, parentKey, childKey, children))
	}
	return out
}

// rubricObject copies the columns of row, except skip, in select-list
// order; when children is not nil it adds childKey, the children grouped
// under the row's id (an empty list when there are none).
func rubricObject(row *jsjson.Object, columns, skip, childKey string, children map[string][]any) *jsjson.Object {
	keys := strings.Split(columns, ",")
	o := jsjson.NewObject(len(keys) + 1)
	for _, k := range keys {
		if k != skip {
			o.Set(k, row.Value(k))
		}
	}
	if children != nil {
		kids := children[jsString(row.Value("id"), true)]
		if kids == nil {
			kids = []any{}
		}
		o.Set(childKey, kids)
	}
	return o
}
