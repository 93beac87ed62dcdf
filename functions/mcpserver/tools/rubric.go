package tools

import (
	"context"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// rubricRowLimit bounds each of get_rubric's four levels; a rubric
// larger than that is answered in part, with truncated set.
const rubricRowLimit = 500

// getRubricTool is get_rubric: every rubric of an assignment the caller
// may read (grading, self-review, meta-grading), each with its parts,
// criteria and checks. Listed only on negotiated revisions.
var getRubricTool = staffTool(getRubric, Tool{
	Name:  "get_rubric",
	Title: "Get assignment rubric",
	Description: "Returns an assignment's rubrics (grading, self-review, meta-grading) with their parts, criteria and checks, " +
		"points and descriptions, in the order the Pawtograder web app shows them; null when the assignment is not visible.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"assignment_id":{"type":"number","description":"The assignment ID"}},
		"required":["class_id","assignment_id"]}`),
	Result:  rubricSchema,
	Example: `{"class_id":1,"assignment_id":1}`,
})

// rubricSchema is get_rubric's value.
const rubricSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["assignment_id","class_id","rubrics","truncated"],
	"properties":{"assignment_id":{"type":"number"},"class_id":{"type":"number"},"truncated":{"type":"boolean"},
	"rubrics":{"type":"array","items":{"type":"object","required":["id","name","description","review_round","is_private","parts"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"review_round":{"$ref":"#/$defs/nstring"},"is_private":{"type":"boolean"},
	"parts":{"type":"array","items":{"type":"object","required":["id","name","description","ordinal","criteria"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"ordinal":{"type":"number"},
	"criteria":{"type":"array","items":{"type":"object","required":["id","name","description","ordinal","total_points","is_additive","is_deduction_only","min_checks_per_submission","max_checks_per_submission","checks"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"ordinal":{"type":"number"},"total_points":{"type":"number"},
	"is_additive":{"type":"boolean"},"is_deduction_only":{"type":"boolean"},"min_checks_per_submission":{"$ref":"#/$defs/nnumber"},"max_checks_per_submission":{"$ref":"#/$defs/nnumber"},
	"checks":{"type":"array","items":{"type":"object","required":["id","name","description","group","ordinal","points","is_annotation","max_annotations","file","artifact","is_required","is_comment_required","student_visibility"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"group":{"$ref":"#/$defs/nstring"},"ordinal":{"type":"number"},"points":{"type":"number"},
	"is_annotation":{"type":"boolean"},"max_annotations":{"$ref":"#/$defs/nnumber"},"file":{"$ref":"#/$defs/nstring"},"artifact":{"$ref":"#/$defs/nstring"},
	"is_required":{"type":"boolean"},"is_comment_required":{"type":"boolean"},"student_visibility":{"type":"string"}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}]}`

// rubricResult is get_rubric's answer (null when the assignment is not
// visible): the assignment's rubrics, each with its parts, criteria and
// checks.
type rubricResult struct {
	AssignmentID float64      `json:"assignment_id"`
	ClassID      float64      `json:"class_id"`
	Rubrics      []rubricItem `json:"rubrics"`
	Truncated    bool         `json:"truncated"`
}

// rubricItem is one rubric.
type rubricItem struct {
	ID          float64      `json:"id"`
	Name        string       `json:"name"`
	Description *string      `json:"description"`
	ReviewRound *string      `json:"review_round"`
	IsPrivate   bool         `json:"is_private"`
	Parts       []rubricPart `json:"parts"`
}

// rubricPart is one part of a rubric.
type rubricPart struct {
	ID          float64           `json:"id"`
	Name        string            `json:"name"`
	Description *string           `json:"description"`
	Ordinal     float64           `json:"ordinal"`
	Criteria    []rubricCriterion `json:"criteria"`
}

// rubricCriterion is one criterion of a part.
type rubricCriterion struct {
	ID                     float64       `json:"id"`
	Name                   string        `json:"name"`
	Description            *string       `json:"description"`
	Ordinal                float64       `json:"ordinal"`
	TotalPoints            float64       `json:"total_points"`
	IsAdditive             bool          `json:"is_additive"`
	IsDeductionOnly        bool          `json:"is_deduction_only"`
	MinChecksPerSubmission *float64      `json:"min_checks_per_submission"`
	MaxChecksPerSubmission *float64      `json:"max_checks_per_submission"`
	Checks                 []rubricCheck `json:"checks"`
}

// rubricCheck is one check of a criterion.
type rubricCheck struct {
	ID                float64  `json:"id"`
	Name              string   `json:"name"`
	Description       *string  `json:"description"`
	Group             *string  `json:"group"`
	Ordinal           float64  `json:"ordinal"`
	Points            float64  `json:"points"`
	IsAnnotation      bool     `json:"is_annotation"`
	MaxAnnotations    *float64 `json:"max_annotations"`
	File              *string  `json:"file"`
	Artifact          *string  `json:"artifact"`
	IsRequired        bool     `json:"is_required"`
	IsCommentRequired bool     `json:"is_comment_required"`
	StudentVisibility string   `json:"student_visibility"`
}

// getRubric reads the four levels, each ordered as the web
// app sorts it (ordinal, then id for equal ordinals; rubrics by id), and
// nests them. Row-level security decides every level on its own: a
// student sees no private rubric and only the checks shown to students.
func getRubric(ctx context.Context, c *Call) (*rubricResult, error) {
	found, levels, truncated := c.readRubric(ctx)
	if !found {
		return nil, nil
	}
	return &rubricResult{
		AssignmentID: numberOf(c.Args.Value("assignment_id")),
		ClassID:      numberOf(c.Args.Value("class_id")),
		Rubrics:      nestRubric(levels),
		Truncated:    truncated,
	}, nil
}

// rubricLevels are the keys of mcp_rubric's levels, rubrics to checks.
var rubricLevels = [4]string{"rubrics", "parts", "criteria", "checks"}

// readRubric reads the assignment record and the four levels (rubrics,
// parts, criteria, checks) in one call of the SQL function mcp_rubric,
// which runs as the caller (SECURITY INVOKER) and reads each level on its
// own, under its own row-level security, as the five REST reads did, each
// up to rubricRowLimit rows and one more; truncated says one level was
// longer. found is false when the assignment is not one row the caller may
// see (or the read failed, noted).
func (c *Call) readRubric(ctx context.Context) (found bool, levels [4][]*jsjson.Object, truncated bool) {
	read := c.readFunctionRow(ctx, "mcp_rubric", "levels", map[string]any{
		"p_class_id":      c.Args.Value("class_id"),
		"p_assignment_id": c.Args.Value("assignment_id"),
	})
	if read == nil {
		return false, levels, false
	}
	for i, key := range rubricLevels {
		rows := embedRows(read, key)
		if len(rows) > rubricRowLimit {
			rows, truncated = rows[:rubricRowLimit], true
		}
		levels[i] = rows
	}
	return true, levels, truncated
}

// nestRubric nests the four levels' rows: each row under its parent, in
// the rows' order, with an empty list where a row has no children.
func nestRubric(levels [4][]*jsjson.Object) []rubricItem {
	checks := groupRows(levels[3], "rubric_criteria_id", func(r *jsjson.Object) rubricCheck {
		return rubricCheck{
			ID: numberOf(r.Value("id")), Name: stringOf(r.Value("name")), Description: nullableString(r.Value("description")),
			Group: nullableString(r.Value("group")), Ordinal: numberOf(r.Value("ordinal")), Points: numberOf(r.Value("points")),
			IsAnnotation: boolOf(r.Value("is_annotation")), MaxAnnotations: nullableNumber(r.Value("max_annotations")),
			File: nullableString(r.Value("file")), Artifact: nullableString(r.Value("artifact")),
			IsRequired: boolOf(r.Value("is_required")), IsCommentRequired: boolOf(r.Value("is_comment_required")),
			StudentVisibility: stringOf(r.Value("student_visibility")),
		}
	})
	criteria := groupRows(levels[2], "rubric_part_id", func(r *jsjson.Object) rubricCriterion {
		return rubricCriterion{
			ID: numberOf(r.Value("id")), Name: stringOf(r.Value("name")), Description: nullableString(r.Value("description")),
			Ordinal: numberOf(r.Value("ordinal")), TotalPoints: numberOf(r.Value("total_points")),
			IsAdditive: boolOf(r.Value("is_additive")), IsDeductionOnly: boolOf(r.Value("is_deduction_only")),
			MinChecksPerSubmission: nullableNumber(r.Value("min_checks_per_submission")),
			MaxChecksPerSubmission: nullableNumber(r.Value("max_checks_per_submission")),
			Checks:                 checks[rowKey(r, "id")],
		}
	})
	parts := groupRows(levels[1], "rubric_id", func(r *jsjson.Object) rubricPart {
		return rubricPart{
			ID: numberOf(r.Value("id")), Name: stringOf(r.Value("name")), Description: nullableString(r.Value("description")),
			Ordinal: numberOf(r.Value("ordinal")), Criteria: criteria[rowKey(r, "id")],
		}
	})
	rubrics := make([]rubricItem, 0, len(levels[0]))
	for _, r := range levels[0] {
		rubrics = append(rubrics, rubricItem{
			ID: numberOf(r.Value("id")), Name: stringOf(r.Value("name")), Description: nullableString(r.Value("description")),
			ReviewRound: nullableString(r.Value("review_round")), IsPrivate: boolOf(r.Value("is_private")),
			Parts: parts[rowKey(r, "id")],
		})
	}
	return rubrics
}

// rowKey is the text of row's key, the form groupRows indexes by.
func rowKey(row *jsjson.Object, key string) string { return jsString(row.Value(key), true) }

// groupRows builds each row with build and groups the results by the text
// of the row's parentKey, keeping the rows' order within each group.
func groupRows[T any](rows []*jsjson.Object, parentKey string, build func(*jsjson.Object) T) map[string][]T {
	out := map[string][]T{}
	for _, r := range rows {
		k := rowKey(r, parentKey)
		out[k] = append(out[k], build(r))
	}
	return out
}
