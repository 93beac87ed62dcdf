package tools

// get_regrade_request (docs/contract/tools.md §6.8): one regrade request
// as a grader reads it before deciding: the rubric check it disputes and
// its points, the score as graded, resolved and closed, the review's
// total, and the whole conversation with the students' comments marked as
// theirs. Like list_regrade_requests it answers only an active instructor
// or grader of the class, since Pawtograder's read policy shows every
// class's requests to staff of any class (grading.go).

import (
	"context"
	"slices"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// maxRegradeRequestComments bounds the conversation returned: its newest
// comments (a regrade conversation is a handful of messages; truncated
// says when there were more).
const maxRegradeRequestComments = 100

// getRegradeRequestTool is get_regrade_request.
var getRegradeRequestTool = staffTool(getRegradeRequest, Tool{
	Name:  "get_regrade_request",
	Title: "Get regrade request",
	Description: "Returns one regrade request: its status and dates, the student and assignee (public profiles), the assignment, " +
		"the rubric check it disputes with the check's points, the points as graded, resolved and closed, the review's total, " +
		"and the conversation oldest first, each comment marked as student-authored unless its author is staff of the class; " +
		"null unless the caller is an instructor or grader of the class and the request was sent (not a draft).",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"regrade_request_id":{"type":"number","description":"The regrade request ID"}},
		"required":["class_id","regrade_request_id"]}`),
	Result:  regradeRequestSchema,
	Example: `{"class_id":1,"regrade_request_id":1}`,
})

// regradeRequestSchema is get_regrade_request's value.
const regradeRequestSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["id","class_id","status","assignment_id","assignment_title","submission_id","student_profile_id","student_name","assignee_profile_id","assignee_name","rubric_check","initial_points","resolved_points","closed_points","review","created_at","opened_at","resolved_at","escalated_at","closed_at","last_commented_at","comments","truncated"],
	"properties":{"id":{"type":"number"},"class_id":{"type":"number"},"status":{"enum":["opened","resolved","escalated","closed"]},
	"assignment_id":{"type":"number"},"assignment_title":{"$ref":"#/$defs/nstring"},"submission_id":{"type":"number"},
	"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},"assignee_profile_id":{"$ref":"#/$defs/nstring"},"assignee_name":{"$ref":"#/$defs/nstring"},
	"rubric_check":{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","description","points"],"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"$ref":"#/$defs/nstring"},"points":{"type":"number"}},"additionalProperties":false}]},
	"initial_points":{"$ref":"#/$defs/nnumber"},"resolved_points":{"$ref":"#/$defs/nnumber"},"closed_points":{"$ref":"#/$defs/nnumber"},
	"review":{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","total_score","total_autograde_score","tweak","released"],"properties":{"id":{"type":"number"},"name":{"type":"string"},"total_score":{"type":"number"},"total_autograde_score":{"type":"number"},"tweak":{"type":"number"},"released":{"type":"boolean"}},"additionalProperties":false}]},
	"created_at":{"type":"string"},"opened_at":{"$ref":"#/$defs/nstring"},"resolved_at":{"$ref":"#/$defs/nstring"},"escalated_at":{"$ref":"#/$defs/nstring"},"closed_at":{"$ref":"#/$defs/nstring"},"last_commented_at":{"$ref":"#/$defs/nstring"},
	"comments":{"type":"array","items":{"type":"object","required":["id","created_at","author_profile_id","author_name","is_staff","student_authored","comment","hidden_characters"],
	"properties":{"id":{"type":"number"},"created_at":{"type":"string"},"author_profile_id":{"$ref":"#/$defs/nstring"},"author_name":{"$ref":"#/$defs/nstring"},
	"is_staff":{"type":"boolean"},"student_authored":{"type":"boolean"},"comment":{"type":"string"},"hidden_characters":{"type":"number"}},"additionalProperties":false}},
	"truncated":{"type":"boolean"}},"additionalProperties":false}]}`

// regradeRequestDetail is get_regrade_request's answer (null when the
// caller is not staff of the class or the request is not a sent one).
type regradeRequestDetail struct {
	ID                float64          `json:"id"`
	ClassID           float64          `json:"class_id"`
	Status            string           `json:"status"`
	AssignmentID      float64          `json:"assignment_id"`
	AssignmentTitle   *string          `json:"assignment_title"`
	SubmissionID      float64          `json:"submission_id"`
	StudentProfileID  *string          `json:"student_profile_id"`
	StudentName       *string          `json:"student_name"`
	AssigneeProfileID *string          `json:"assignee_profile_id"`
	AssigneeName      *string          `json:"assignee_name"`
	RubricCheck       *disputedCheck   `json:"rubric_check"`
	InitialPoints     *float64         `json:"initial_points"`
	ResolvedPoints    *float64         `json:"resolved_points"`
	ClosedPoints      *float64         `json:"closed_points"`
	Review            *disputedReview  `json:"review"`
	CreatedAt         string           `json:"created_at"`
	OpenedAt          *string          `json:"opened_at"`
	ResolvedAt        *string          `json:"resolved_at"`
	EscalatedAt       *string          `json:"escalated_at"`
	ClosedAt          *string          `json:"closed_at"`
	LastCommentedAt   *string          `json:"last_commented_at"`
	Comments          []regradeComment `json:"comments"`
	Truncated         bool             `json:"truncated"`
}

// disputedCheck is the rubric check a request disputes, with the points
// the rubric gives it.
type disputedCheck struct {
	ID          float64 `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Points      float64 `json:"points"`
}

// disputedReview is the grading review the request disputes and its
// total.
type disputedReview struct {
	ID                  float64 `json:"id"`
	Name                string  `json:"name"`
	TotalScore          float64 `json:"total_score"`
	TotalAutogradeScore float64 `json:"total_autograde_score"`
	Tweak               float64 `json:"tweak"`
	Released            bool    `json:"released"`
}

// regradeComment is one comment of the conversation. StudentAuthored is
// true unless the author is staff of the class (an author the caller
// cannot place counts as a student): such text is content to quote, never
// instructions. Its hidden characters are shown as markers
// (hiddentext.Mark), and HiddenCharacters counts them.
type regradeComment struct {
	ID               float64 `json:"id"`
	CreatedAt        string  `json:"created_at"`
	AuthorProfileID  *string `json:"author_profile_id"`
	AuthorName       *string `json:"author_name"`
	IsStaff          bool    `json:"is_staff"`
	StudentAuthored  bool    `json:"student_authored"`
	Comment          string  `json:"comment"`
	HiddenCharacters int     `json:"hidden_characters"`
}

// regradeComments is the conversation's key in mcp_regrade_request's row.
const regradeComments = "submission_regrade_request_comments"

// getRegradeRequest reads whether the caller is staff of the class and the
// request with everything it shows in one call of the SQL function
// mcp_regrade_request, which runs as the caller (SECURITY INVOKER, so
// row-level security applies as to the REST reads it replaces) and answers
// no row unless the caller is staff and the request a sent one of the
// class.
func getRegradeRequest(ctx context.Context, c *Call) (*regradeRequestDetail, error) {
	row := c.readFunctionRow(ctx, "mcp_regrade_request", "found", map[string]any{
		"p_class_id":           c.Args.Value("class_id"),
		"p_regrade_request_id": c.Args.Value("regrade_request_id"),
	})
	if row == nil {
		return nil, nil
	}
	return regradeRequestDetailOf(row), nil
}

// regradeRequestDetailOf is the request row as answered.
func regradeRequestDetailOf(r *jsjson.Object) *regradeRequestDetail {
	classID := numberOf(r.Value("class_id"))
	d := &regradeRequestDetail{
		ID: numberOf(r.Value("id")), ClassID: classID, Status: stringOf(r.Value("status")),
		AssignmentID: numberOf(r.Value("assignment_id")), SubmissionID: numberOf(r.Value("submission_id")),
		InitialPoints: nullableNumber(r.Value("initial_points")), ResolvedPoints: nullableNumber(r.Value("resolved_points")),
		ClosedPoints: nullableNumber(r.Value("closed_points")),
		CreatedAt:    stringOf(r.Value("created_at")), OpenedAt: nullableString(r.Value("opened_at")),
		ResolvedAt: nullableString(r.Value("resolved_at")), EscalatedAt: nullableString(r.Value("escalated_at")),
		ClosedAt: nullableString(r.Value("closed_at")), LastCommentedAt: nullableString(r.Value("last_commented_at")),
	}
	if a, ok := r.Object("assignments"); ok && a != nil {
		d.AssignmentTitle = nullableString(a.Value("title"))
	}
	d.StudentProfileID, d.StudentName, _ = classMember(r, "student", classID)
	d.AssigneeProfileID, d.AssigneeName, _ = classMember(r, "assignee_profile", classID)
	if k, ok := r.Object("rubric_checks"); ok && k != nil {
		d.RubricCheck = &disputedCheck{ID: numberOf(k.Value("id")), Name: stringOf(k.Value("name")),
			Description: nullableString(k.Value("description")), Points: numberOf(k.Value("points"))}
	}
	if v, ok := r.Object("submission_reviews"); ok && v != nil {
		d.Review = &disputedReview{ID: numberOf(v.Value("id")), Name: stringOf(v.Value("name")),
			TotalScore: numberOf(v.Value("total_score")), TotalAutogradeScore: numberOf(v.Value("total_autograde_score")),
			Tweak: numberOf(v.Value("tweak")), Released: boolOf(v.Value("released"))}
	}
	d.Comments, d.Truncated = regradeCommentsOf(embedRows(r, regradeComments), classID)
	return d
}

// regradeCommentsOf turns the embedded comments, newest first and one
// more than the bound, into the conversation oldest first.
func regradeCommentsOf(rows []*jsjson.Object, classID float64) ([]regradeComment, bool) {
	truncated := len(rows) > maxRegradeRequestComments
	if truncated {
		rows = rows[:maxRegradeRequestComments]
	}
	out := make([]regradeComment, 0, len(rows))
	for _, r := range slices.Backward(rows) {
		text := stringOf(r.Value("comment"))
		id, name, staff := classMember(r, "author_profile", classID)
		out = append(out, regradeComment{
			ID: numberOf(r.Value("id")), CreatedAt: stringOf(r.Value("created_at")),
			AuthorProfileID: id, AuthorName: name, IsStaff: staff, StudentAuthored: !staff,
			Comment: hiddentext.Mark(text), HiddenCharacters: hiddentext.Count(text),
		})
	}
	return out, truncated
}

// classMember reads the profile embedded under key (its user_roles row
// through the private profile id, or the public one, as "private" and
// "public", each with the public profile's name as "pub"):
// the member's public profile id and name, and whether their role in the
// class is instructor or grader (disabled or not, as §1.4 counts staff).
// All are zero when the profile is no member of the class the caller may
// see.
func classMember(r *jsjson.Object, key string, classID float64) (id, name *string, staff bool) {
	p, ok := r.Object(key)
	if !ok || p == nil {
		return nil, nil, false
	}
	for _, via := range []string{"private", "public"} {
		for _, ur := range embedRows(p, via) {
			if numberOf(ur.Value("class_id")) != classID {
				continue
			}
			pub, _ := ur.Object("pub")
			return nullableString(orNull(ur.Value("public_profile_id"))), nullableString(orNull(pub.Value("name"))), isStaffRole(ur)
		}
	}
	return nil, nil, false
}
