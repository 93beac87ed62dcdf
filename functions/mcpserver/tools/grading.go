package tools

// Grading tools for course staff: list_regrade_requests and
// get_grading_progress (docs/contract/tools.md §6). Both answer only a
// caller who is an active instructor or grader of the class: Pawtograder's
// read policy on submission_regrade_requests lets staff of any class read
// every class's requests (its staff test compares a column with itself),
// so row-level security alone would show a grader of one class the
// requests of another.

import (
	"context"
	"sort"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Limits of list_regrade_requests.
const (
	listRegradeRequestsDefault = 25
	listRegradeRequestsMax     = 100
)

// callerRolesOf reads the caller's own user_roles rows in a class (role,
// disabled, private_profile_id, public_profile_id): whether one is an
// enabled instructor or grader role (staff of the class), and the caller's
// private and public profile ids there, which mark the caller's own rows
// of an answer.
func callerRolesOf(rows []*jsjson.Object) (staff bool, mine map[string]bool) {
	mine = map[string]bool{}
	for _, r := range rows {
		staff = staff || (isStaffRole(r) && r.Value("disabled") == false)
		for _, col := range []string{"private_profile_id", "public_profile_id"} {
			if id, ok := r.String(col); ok && id != "" {
				mine[id] = true
			}
		}
	}
	return staff, mine
}

// now is the registry's clock.
func (c *Call) now() time.Time { return c.reg.now() }

// ageSeconds is the whole seconds from the timestamp v (PostgREST's text
// form) to now, or nil when v is not a timestamp.
func ageSeconds(v any, now time.Time) *float64 {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	age := float64(int64(now.Sub(t) / time.Second))
	return &age
}

// profileRef is a private profile id as its public id and name, both null
// when the id does not translate.
func profileRef(profiles map[string]publicProfile, privateID any) (id, name *string) {
	s, _ := privateID.(string)
	if p, ok := profiles[s]; ok && s != "" {
		return nullableString(orNull(p.ID)), nullableString(orNull(p.Name))
	}
	return nil, nil
}

// listRegradeRequestsTool is list_regrade_requests.
var listRegradeRequestsTool = staffTool(listRegradeRequests, Tool{
	Name:  "list_regrade_requests",
	Title: "List regrade requests",
	Description: "Returns a class's regrade requests, newest first, each with its status, age, the student and assignee (public profiles), " +
		"the rubric check it disputes and the points before and after; open ones (opened or escalated) by default; " +
		"an empty list unless the caller is an instructor or grader of the class.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"assignment_id":{"type":"number","description":"Only this assignment's requests (default: every assignment)"},
		"status":{"type":"string","enum":["open","opened","escalated","resolved","closed","all"],"description":"open (the default): opened or escalated; all: every sent request"},
		"limit":{"type":"integer","description":"Maximum number of requests (default 25, at most 100)","default":25,"minimum":1,"maximum":100}},
		"required":["class_id"]}`),
	Result:  listRegradeRequestsSchema,
	Example: `{"class_id":1}`,
})

// listRegradeRequestsSchema is list_regrade_requests' value.
const listRegradeRequestsSchema = `{"type":"array","items":{"type":"object","required":["id","status","created_at","opened_at","age_seconds","assignment_id","submission_id","student_profile_id","student_name","assignee_profile_id","assignee_name","rubric_check","initial_points","resolved_points","closed_points","resolved_at","closed_at","last_commented_at"],
	"properties":{"id":{"type":"number"},"status":{"enum":["opened","resolved","escalated","closed"]},"created_at":{"type":"string"},"opened_at":{"$ref":"#/$defs/nstring"},
	"age_seconds":{"$ref":"#/$defs/nnumber"},"assignment_id":{"type":"number"},"submission_id":{"type":"number"},
	"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},"assignee_profile_id":{"$ref":"#/$defs/nstring"},"assignee_name":{"$ref":"#/$defs/nstring"},
	"rubric_check":{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","points"],"properties":{"id":{"type":"number"},"name":{"type":"string"},"points":{"type":"number"}},"additionalProperties":false}]},
	"initial_points":{"$ref":"#/$defs/nnumber"},"resolved_points":{"$ref":"#/$defs/nnumber"},"closed_points":{"$ref":"#/$defs/nnumber"},
	"resolved_at":{"$ref":"#/$defs/nstring"},"closed_at":{"$ref":"#/$defs/nstring"},"last_commented_at":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}}`

// regradeRequest is one request of list_regrade_requests' answer.
type regradeRequest struct {
	ID                float64         `json:"id"`
	Status            string          `json:"status"`
	CreatedAt         string          `json:"created_at"`
	OpenedAt          *string         `json:"opened_at"`
	AgeSeconds        *float64        `json:"age_seconds"`
	AssignmentID      float64         `json:"assignment_id"`
	SubmissionID      float64         `json:"submission_id"`
	StudentProfileID  *string         `json:"student_profile_id"`
	StudentName       *string         `json:"student_name"`
	AssigneeProfileID *string         `json:"assignee_profile_id"`
	AssigneeName      *string         `json:"assignee_name"`
	RubricCheck       *rubricCheckRef `json:"rubric_check"`
	InitialPoints     *float64        `json:"initial_points"`
	ResolvedPoints    *float64        `json:"resolved_points"`
	ClosedPoints      *float64        `json:"closed_points"`
	ResolvedAt        *string         `json:"resolved_at"`
	ClosedAt          *string         `json:"closed_at"`
	LastCommentedAt   *string         `json:"last_commented_at"`
}

// rubricCheckRef is the rubric check a regrade request disputes.
type rubricCheckRef struct {
	ID     float64 `json:"id"`
	Name   string  `json:"name"`
	Points float64 `json:"points"`
}

// listRegradeRequests orders by created_at then id, both descending.
// The caller's staff check, the requests and their people's public
// profiles are one call of the SQL function mcp_list_regrade_requests,
// which runs as the caller (SECURITY INVOKER, so row-level security
// applies as to the REST reads it replaces) and answers no row unless the
// caller is an enabled instructor or grader of the class.
func listRegradeRequests(ctx context.Context, c *Call) ([]regradeRequest, error) {
	status, _ := c.Args.String("status")
	found := c.readFunctionRow(ctx, "mcp_list_regrade_requests", "found", map[string]any{
		"p_class_id":      c.Args.Value("class_id"),
		"p_assignment_id": c.Args.Value("assignment_id"), // null: every assignment
		"p_status":        status,
		"p_limit":         boundedLimit(c, "limit", listRegradeRequestsDefault, listRegradeRequestsMax),
	})
	rows := embedRows(found, "requests")
	profiles := profilesOfRows(embedRows(found, "profiles"))
	now := c.now()
	out := make([]regradeRequest, 0, len(rows))
	for _, r := range rows {
		out = append(out, regradeRequestOf(r, profiles, now))
	}
	return out, nil
}

// regradeRequestOf is one request row as answered, its student and
// assignee translated to public profiles.
func regradeRequestOf(r *jsjson.Object, profiles map[string]publicProfile, now time.Time) regradeRequest {
	req := regradeRequest{
		ID: numberOf(r.Value("id")), Status: stringOf(r.Value("status")),
		CreatedAt: stringOf(r.Value("created_at")), OpenedAt: nullableString(r.Value("opened_at")),
		AgeSeconds:   ageSeconds(r.Value("created_at"), now),
		AssignmentID: numberOf(r.Value("assignment_id")), SubmissionID: numberOf(r.Value("submission_id")),
		InitialPoints: nullableNumber(r.Value("initial_points")), ResolvedPoints: nullableNumber(r.Value("resolved_points")),
		ClosedPoints: nullableNumber(r.Value("closed_points")),
		ResolvedAt:   nullableString(r.Value("resolved_at")), ClosedAt: nullableString(r.Value("closed_at")),
		LastCommentedAt: nullableString(r.Value("last_commented_at")),
	}
	req.StudentProfileID, req.StudentName = profileRef(profiles, r.Value("created_by"))
	req.AssigneeProfileID, req.AssigneeName = profileRef(profiles, r.Value("assignee"))
	if k := embedRows(r, "rubric_checks"); len(k) > 0 {
		req.RubricCheck = &rubricCheckRef{ID: numberOf(k[0].Value("id")), Name: stringOf(k[0].Value("name")), Points: numberOf(k[0].Value("points"))}
	}
	return req
}

// getGradingProgressTool is get_grading_progress.
var getGradingProgressTool = staffTool(getGradingProgress, Tool{
	Name:  "get_grading_progress",
	Title: "Get grading progress",
	Description: "Returns an assignment's grading progress: active submissions and how many have a completed and a released grading review, " +
		"review assignments in all and per grader (assigned, completed, pending, earliest pending due date; is_caller marks the caller), " +
		"and regrade requests by status; null unless the caller is an instructor or grader of the class and the assignment is visible. " +
		"A grader sees only their own review assignments.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"assignment_id":{"type":"number","description":"The assignment ID"}},
		"required":["class_id","assignment_id"]}`),
	Result:  gradingProgressSchema,
	Example: `{"class_id":1,"assignment_id":1}`,
})

// gradingProgressSchema is get_grading_progress' value.
const gradingProgressSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["class_id","assignment_id","submissions","review_assignments","graders","regrade_requests","truncated"],
	"properties":{"class_id":{"type":"number"},"assignment_id":{"type":"number"},"truncated":{"type":"boolean"},
	"submissions":{"type":"object","required":["active","graded","ungraded","released"],"properties":{"active":{"type":"number"},"graded":{"type":"number"},"ungraded":{"type":"number"},"released":{"type":"number"}},"additionalProperties":false},
	"review_assignments":{"type":"object","required":["total","completed","pending"],"properties":{"total":{"type":"number"},"completed":{"type":"number"},"pending":{"type":"number"}},"additionalProperties":false},
	"graders":{"type":"array","items":{"type":"object","required":["profile_id","name","is_caller","assigned","completed","pending","earliest_pending_due_date"],
	"properties":{"profile_id":{"$ref":"#/$defs/nstring"},"name":{"$ref":"#/$defs/nstring"},"is_caller":{"type":"boolean"},"assigned":{"type":"number"},"completed":{"type":"number"},"pending":{"type":"number"},"earliest_pending_due_date":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}},
	"regrade_requests":{"type":"object","required":["open","resolved_or_closed","opened","escalated","resolved","closed"],
	"properties":{"open":{"type":"number"},"resolved_or_closed":{"type":"number"},"opened":{"type":"number"},"escalated":{"type":"number"},"resolved":{"type":"number"},"closed":{"type":"number"}},"additionalProperties":false}},"additionalProperties":false}]}`

// gradingProgressResult is get_grading_progress' answer (null unless the
// caller is staff of the class and the assignment is visible).
type gradingProgressResult struct {
	ClassID           float64               `json:"class_id"`
	AssignmentID      float64               `json:"assignment_id"`
	Submissions       gradingSubmissions    `json:"submissions"`
	ReviewAssignments reviewAssignmentCount `json:"review_assignments"`
	Graders           []graderRow           `json:"graders"`
	RegradeRequests   regradeStatusCount    `json:"regrade_requests"`
	Truncated         bool                  `json:"truncated"`
}

// gradingSubmissions counts the active submissions by grading state.
type gradingSubmissions struct {
	Active   int `json:"active"`
	Graded   int `json:"graded"`
	Ungraded int `json:"ungraded"`
	Released int `json:"released"`
}

// reviewAssignmentCount counts the review assignments.
type reviewAssignmentCount struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Pending   int `json:"pending"`
}

// graderRow is one grader's review assignments, as answered.
type graderRow struct {
	ProfileID              *string `json:"profile_id"`
	Name                   *string `json:"name"`
	IsCaller               bool    `json:"is_caller"`
	Assigned               int     `json:"assigned"`
	Completed              int     `json:"completed"`
	Pending                int     `json:"pending"`
	EarliestPendingDueDate *string `json:"earliest_pending_due_date"`
}

// regradeStatusCount counts the sent regrade requests by status.
type regradeStatusCount struct {
	Open             int `json:"open"`
	ResolvedOrClosed int `json:"resolved_or_closed"`
	Opened           int `json:"opened"`
	Escalated        int `json:"escalated"`
	Resolved         int `json:"resolved"`
	Closed           int `json:"closed"`
}

// gradingRead is what get_grading_progress read; truncated says a list
// was longer than maxRows.
type gradingRead struct {
	staff                                bool
	mine                                 map[string]bool
	assignment                           *jsjson.Object
	subs, reviews, regrades, graderRoles []*jsjson.Object
	truncated                            bool
}

// graderProgress is one grader's review assignments.
type graderProgress struct {
	privateID           string
	assigned, completed int
	earliestDue         string
}

// getGradingProgress counts what Pawtograder's grading dashboards show,
// under the caller's row-level security: a submission is graded when its
// grading review (the review under the assignment's grading rubric) has
// been completed, by someone, and released when that review is; a review
// assignment is complete when completed_at is set. Graders are the
// class's enabled graders plus anyone holding a review assignment, ordered
// by public name (unnamed last) and then public profile id. Each list is
// read up to maxRows rows; truncated says one was longer.
func getGradingProgress(ctx context.Context, c *Call) (*gradingProgressResult, error) {
	read, profiles := c.readGradingProgress(ctx)
	if !read.staff || read.assignment == nil {
		return nil, nil
	}
	graded, released := gradedSubmissions(read.subs, read.assignment.Value("grading_rubric_id"))
	order, byGrader, completed := tallyReviews(read.graderRoles, read.reviews)
	return &gradingProgressResult{
		ClassID:      numberOf(c.Args.Value("class_id")),
		AssignmentID: numberOf(c.Args.Value("assignment_id")),
		Submissions: gradingSubmissions{
			Active: len(read.subs), Graded: graded, Ungraded: len(read.subs) - graded, Released: released,
		},
		ReviewAssignments: reviewAssignmentCount{
			Total: len(read.reviews), Completed: completed, Pending: len(read.reviews) - completed,
		},
		Graders:         graderRows(order, byGrader, profiles, read.mine),
		RegradeRequests: regradeStatusCountOf(read.regrades),
		Truncated:       read.truncated,
	}, nil
}

// readGradingProgress reads, in one call of the SQL function
// mcp_grading_progress (SECURITY INVOKER, so row-level security applies as
// to the REST reads it replaces), whether the caller is staff, the
// assignment, its active submissions with their reviews, its review
// assignments, its sent regrade requests, the class's enabled graders and
// the graders' and assignees' public profiles. The function answers no row
// unless the caller is staff and the assignment visible.
func (c *Call) readGradingProgress(ctx context.Context) (gradingRead, map[string]publicProfile) {
	found := c.readFunctionRow(ctx, "mcp_grading_progress", "found", map[string]any{
		"p_class_id":      c.Args.Value("class_id"),
		"p_assignment_id": c.Args.Value("assignment_id"),
	})
	var read gradingRead
	if found == nil {
		return read, nil
	}
	read.staff, read.mine = callerRolesOf(embedRows(found, "caller"))
	read.assignment, _ = found.Object("assignment")
	list := func(key string) []*jsjson.Object {
		rows := embedRows(found, key)
		if len(rows) > maxRows {
			rows, read.truncated = rows[:maxRows], true
		}
		return rows
	}
	read.subs, read.reviews, read.regrades, read.graderRoles = list("submissions"), list("reviews"), list("regrades"), list("graders")
	return read, profilesOfRows(embedRows(found, "profiles"))
}

// gradedSubmissions counts the submissions whose review under the grading
// rubric is completed (graded) and released.
func gradedSubmissions(subs []*jsjson.Object, gradingRubric any) (graded, released int) {
	for _, s := range subs {
		for _, r := range embedRows(s, "submission_reviews") {
			if gradingRubric == nil || r.Value("rubric_id") != gradingRubric {
				continue
			}
			if r.Value("completed_at") != nil && r.Value("completed_by") != nil {
				graded++
			}
			if r.Value("released") == true {
				released++
			}
		}
	}
	return graded, released
}

// tallyReviews counts each grader's review assignments: the enabled
// graders first, then every other assignee, in first-seen order.
// completed counts the completed review assignments of all.
func tallyReviews(graderRoles, reviews []*jsjson.Object) (order []string, byGrader map[string]*graderProgress, completed int) {
	byGrader = map[string]*graderProgress{}
	grader := func(id string) *graderProgress {
		if p, ok := byGrader[id]; ok {
			return p
		}
		p := &graderProgress{privateID: id}
		byGrader[id] = p
		order = append(order, id)
		return p
	}
	for _, r := range graderRoles {
		if id, ok := r.String("private_profile_id"); ok {
			grader(id)
		}
	}
	for _, r := range reviews {
		id, _ := r.String("assignee_profile_id")
		p := grader(id)
		p.assigned++
		if r.Value("completed_at") != nil {
			p.completed++
			completed++
			continue
		}
		if due, ok := r.String("due_date"); ok && (p.earliestDue == "" || due < p.earliestDue) {
			p.earliestDue = due
		}
	}
	return order, byGrader, completed
}

// graderRows answers the graders' tallies under their public profiles,
// ordered by name (unnamed last), then public profile id; mine are the
// caller's own profile ids.
func graderRows(order []string, byGrader map[string]*graderProgress, profiles map[string]publicProfile, mine map[string]bool) []graderRow {
	graders := make([]graderRow, 0, len(order))
	for _, id := range order {
		p := byGrader[id]
		row := graderRow{IsCaller: mine[id], Assigned: p.assigned, Completed: p.completed, Pending: p.assigned - p.completed}
		row.ProfileID, row.Name = profileRef(profiles, id)
		if p.earliestDue != "" {
			row.EarliestPendingDueDate = &p.earliestDue
		}
		graders = append(graders, row)
	}
	sort.SliceStable(graders, func(i, j int) bool {
		ni, nj := graders[i].Name, graders[j].Name
		if (ni != nil) != (nj != nil) {
			return ni != nil
		}
		if ni != nil && *ni != *nj {
			return *ni < *nj
		}
		return derefString(graders[i].ProfileID) < derefString(graders[j].ProfileID)
	})
	return graders
}

// derefString is *s, or "" for nil.
func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// regradeStatusCountOf counts the regrade requests by status.
func regradeStatusCountOf(regrades []*jsjson.Object) regradeStatusCount {
	counts := map[string]int{}
	for _, r := range regrades {
		s, _ := r.String("status")
		counts[s]++
	}
	return regradeStatusCount{
		Open:             counts["opened"] + counts["escalated"],
		ResolvedOrClosed: counts["resolved"] + counts["closed"],
		Opened:           counts["opened"], Escalated: counts["escalated"],
		Resolved: counts["resolved"], Closed: counts["closed"],
	}
}
