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

	"golang.org/x/sync/errgroup"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// Limits of list_regrade_requests.
const (
	listRegradeRequestsDefault = 25
	listRegradeRequestsMax     = 100
)

// staffInClass reports whether the caller holds an enabled instructor or
// grader role in the class, read from the caller's own user_roles row.
func (c *Call) staffInClass(ctx context.Context, classID string) bool {
	raw, err := c.DB.From("user_roles").Select("role").
		Eq("user_id", c.DB.UserID()).
		Eq("class_id", classID).
		Eq("disabled", "false").
		In("role", []string{"instructor", "grader"}).
		Limit(1).
		Rows(ctx)
	rows, _ := c.pgRows(ctx, raw, err)
	return len(rows) > 0
}

// now is the registry's clock.
func (c *Call) now() time.Time { return c.reg.now() }

// ageSeconds is the whole seconds from the timestamp v (PostgREST's text
// form) to now, or nil when v is not a timestamp.
func ageSeconds(v any, now time.Time) any {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return float64(int64(now.Sub(t) / time.Second))
}

// profileRef is a private profile id as its public id and name, both null
// when the id does not translate.
func profileRef(profiles map[string]publicProfile, privateID any) (id, name any) {
	s, _ := privateID.(string)
	if p, ok := profiles[s]; ok && s != "" {
		return orNull(p.ID), orNull(p.Name)
	}
	return nil, nil
}

// listRegradeRequestsTool is list_regrade_requests.
var listRegradeRequestsTool = Tool{
	Name:           "list_regrade_requests",
	Title:          "List regrade requests",
	NegotiatedOnly: true,
	Description: "Returns a class's regrade requests, newest first, each with its status, age, the student and assignee (public profiles), " +
		"the rubric check it disputes and the points before and after; open ones (opened or escalated) by default; " +
		"an empty list unless the caller is an instructor or grader of the class.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"assignment_id":{"type":"number","description":"Only this assignment's requests (default: every assignment)"},
		"status":{"type":"string","enum":["open","opened","escalated","resolved","closed","all"],"description":"open (the default): opened or escalated; all: every sent request"},
		"limit":{"type":"integer","description":"Maximum number of requests (default 25, at most 100)","default":25,"minimum":1,"maximum":100}},
		"required":["class_id"]}`),
	Scope:   ScopeRead,
	Handler: listRegradeRequests,
}

// listRegradeRequestsSchema is list_regrade_requests' value.
const listRegradeRequestsSchema = `{"type":"array","items":{"type":"object","required":["id","status","created_at","opened_at","age_seconds","assignment_id","submission_id","student_profile_id","student_name","assignee_profile_id","assignee_name","rubric_check","initial_points","resolved_points","closed_points","resolved_at","closed_at","last_commented_at"],
	"properties":{"id":{"type":"number"},"status":{"enum":["opened","resolved","escalated","closed"]},"created_at":{"type":"string"},"opened_at":{"$ref":"#/$defs/nstring"},
	"age_seconds":{"$ref":"#/$defs/nnumber"},"assignment_id":{"type":"number"},"submission_id":{"type":"number"},
	"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},"assignee_profile_id":{"$ref":"#/$defs/nstring"},"assignee_name":{"$ref":"#/$defs/nstring"},
	"rubric_check":{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","points"],"properties":{"id":{"type":"number"},"name":{"type":"string"},"points":{"type":"number"}},"additionalProperties":false}]},
	"initial_points":{"$ref":"#/$defs/nnumber"},"resolved_points":{"$ref":"#/$defs/nnumber"},"closed_points":{"$ref":"#/$defs/nnumber"},
	"resolved_at":{"$ref":"#/$defs/nstring"},"closed_at":{"$ref":"#/$defs/nstring"},"last_commented_at":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}}`

// regradeColumns is list_regrade_requests' select list, with the disputed
// rubric check embedded.
const regradeColumns = "id,status,created_at,opened_at,assignment_id,submission_id,created_by,assignee,initial_points,resolved_points,closed_points,resolved_at,closed_at,last_commented_at," +
	"rubric_checks!submission_regrade_requests_rubric_check_id_fkey(id,name,points)"

// listRegradeRequests orders by created_at then id, both descending.
func listRegradeRequests(ctx context.Context, c *Call) (any, error) {
	cid := arg(c.Args, "class_id")
	var (
		staff bool
		rows  []*jsjson.Object
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		staff = c.staffInClass(gctx, cid)
		return nil
	})
	g.Go(func() error {
		q := c.DB.From("submission_regrade_requests").Select(regradeColumns).Eq("class_id", cid)
		if c.Args.Value("assignment_id") != nil {
			q = q.Eq("assignment_id", arg(c.Args, "assignment_id"))
		}
		switch status, _ := c.Args.String("status"); status {
		case "", "open":
			q = q.In("status", []string{"opened", "escalated"})
		case "all":
			q = q.Neq("status", "draft")
		default:
			q = q.Eq("status", status)
		}
		raw, err := q.Order("created_at", false).Order("id", false).
			Limit(boundedLimit(c, "limit", listRegradeRequestsDefault, listRegradeRequestsMax)).Rows(gctx)
		rows, _ = c.pgRows(gctx, raw, err)
		return nil
	})
	_ = g.Wait()
	out := make([]any, 0, len(rows))
	if !staff {
		return out, nil
	}
	ids := make([]string, 0, 2*len(rows))
	for _, r := range rows {
		for _, k := range []string{"created_by", "assignee"} {
			if s, ok := r.String(k); ok {
				ids = append(ids, s)
			}
		}
	}
	profiles := c.publicProfiles(ctx, cid, ids)
	now := c.now()
	for _, r := range rows {
		studentID, studentName := profileRef(profiles, r.Value("created_by"))
		assigneeID, assigneeName := profileRef(profiles, r.Value("assignee"))
		var check any
		if k := embedRows(r, "rubric_checks"); len(k) > 0 {
			check = jsjson.NewObject(3).Set("id", k[0].Value("id")).Set("name", k[0].Value("name")).Set("points", k[0].Value("points"))
		}
		out = append(out, jsjson.NewObject(18).
			Set("id", r.Value("id")).
			Set("status", r.Value("status")).
			Set("created_at", r.Value("created_at")).
			Set("opened_at", r.Value("opened_at")).
			Set("age_seconds", ageSeconds(r.Value("created_at"), now)).
			Set("assignment_id", r.Value("assignment_id")).
			Set("submission_id", r.Value("submission_id")).
			Set("student_profile_id", studentID).
			Set("student_name", studentName).
			Set("assignee_profile_id", assigneeID).
			Set("assignee_name", assigneeName).
			Set("rubric_check", check).
			Set("initial_points", r.Value("initial_points")).
			Set("resolved_points", r.Value("resolved_points")).
			Set("closed_points", r.Value("closed_points")).
			Set("resolved_at", r.Value("resolved_at")).
			Set("closed_at", r.Value("closed_at")).
			Set("last_commented_at", r.Value("last_commented_at")))
	}
	return out, nil
}

// getGradingProgressTool is get_grading_progress.
var getGradingProgressTool = Tool{
	Name:           "get_grading_progress",
	Title:          "Get grading progress",
	NegotiatedOnly: true,
	Description: "Returns an assignment's grading progress: active submissions and how many have a completed and a released grading review, " +
		"review assignments in all and per grader (assigned, completed, pending, earliest pending due date), " +
		"and regrade requests by status; null unless the caller is an instructor or grader of the class and the assignment is visible. " +
		"A grader sees only their own review assignments.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"assignment_id":{"type":"number","description":"The assignment ID"}},
		"required":["class_id","assignment_id"]}`),
	Scope:   ScopeRead,
	Handler: getGradingProgress,
}

// gradingProgressSchema is get_grading_progress' value.
const gradingProgressSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["class_id","assignment_id","submissions","review_assignments","graders","regrade_requests","truncated"],
	"properties":{"class_id":{"type":"number"},"assignment_id":{"type":"number"},"truncated":{"type":"boolean"},
	"submissions":{"type":"object","required":["active","graded","ungraded","released"],"properties":{"active":{"type":"number"},"graded":{"type":"number"},"ungraded":{"type":"number"},"released":{"type":"number"}},"additionalProperties":false},
	"review_assignments":{"type":"object","required":["total","completed","pending"],"properties":{"total":{"type":"number"},"completed":{"type":"number"},"pending":{"type":"number"}},"additionalProperties":false},
	"graders":{"type":"array","items":{"type":"object","required":["profile_id","name","assigned","completed","pending","earliest_pending_due_date"],
	"properties":{"profile_id":{"$ref":"#/$defs/nstring"},"name":{"$ref":"#/$defs/nstring"},"assigned":{"type":"number"},"completed":{"type":"number"},"pending":{"type":"number"},"earliest_pending_due_date":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}},
	"regrade_requests":{"type":"object","required":["open","resolved_or_closed","opened","escalated","resolved","closed"],
	"properties":{"open":{"type":"number"},"resolved_or_closed":{"type":"number"},"opened":{"type":"number"},"escalated":{"type":"number"},"resolved":{"type":"number"},"closed":{"type":"number"}},"additionalProperties":false}},"additionalProperties":false}]}`

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
func getGradingProgress(ctx context.Context, c *Call) (any, error) {
	cid, aid := arg(c.Args, "class_id"), arg(c.Args, "assignment_id")
	var (
		staff                      bool
		assignment                 *jsjson.Object
		subs, reviews, regrades    []*jsjson.Object
		graderRoles                []*jsjson.Object
		over1, over2, over3, over4 bool
	)
	list := func(ctx context.Context, table, columns string, build func(q *postgrest.Query) *postgrest.Query, dst *[]*jsjson.Object, over *bool) {
		raw, err := build(c.DB.From(table).Select(columns)).Limit(maxRows + 1).Rows(ctx)
		rows, _ := c.pgRows(ctx, raw, err)
		if len(rows) > maxRows {
			rows, *over = rows[:maxRows], true
		}
		*dst = rows
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		staff = c.staffInClass(gctx, cid)
		return nil
	})
	g.Go(func() error {
		raw, err := c.DB.From("assignments").Select("id,grading_rubric_id").Eq("id", aid).Eq("class_id", cid).MaybeSingle(gctx)
		assignment = c.pgObject(gctx, raw, err)
		return nil
	})
	g.Go(func() error {
		list(gctx, "submissions", "id,submission_reviews!submission_reviews_submission_id_fkey(rubric_id,completed_at,completed_by,released)",
			func(q *postgrest.Query) *postgrest.Query {
				return q.Eq("class_id", cid).Eq("assignment_id", aid).Eq("is_active", "true").Order("id", true)
			}, &subs, &over1)
		return nil
	})
	g.Go(func() error {
		list(gctx, "review_assignments", "id,assignee_profile_id,due_date,completed_at",
			func(q *postgrest.Query) *postgrest.Query {
				return q.Eq("class_id", cid).Eq("assignment_id", aid).Order("id", true)
			}, &reviews, &over2)
		return nil
	})
	g.Go(func() error {
		list(gctx, "submission_regrade_requests", "status",
			func(q *postgrest.Query) *postgrest.Query {
				return q.Eq("class_id", cid).Eq("assignment_id", aid).Neq("status", "draft").Order("id", true)
			}, &regrades, &over3)
		return nil
	})
	g.Go(func() error {
		list(gctx, "user_roles", "private_profile_id",
			func(q *postgrest.Query) *postgrest.Query {
				return q.Eq("class_id", cid).Eq("role", "grader").Eq("disabled", "false").Order("id", true)
			}, &graderRoles, &over4)
		return nil
	})
	_ = g.Wait()
	if !staff || assignment == nil {
		return nil, nil
	}

	gradingRubric := assignment.Value("grading_rubric_id")
	var graded, released int
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

	byGrader := map[string]*graderProgress{}
	var order []string
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
	completed := 0
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
	profiles := c.publicProfiles(ctx, cid, order)
	graders := make([]*jsjson.Object, 0, len(order))
	for _, id := range order {
		p := byGrader[id]
		pid, name := profileRef(profiles, id)
		var due any
		if p.earliestDue != "" {
			due = p.earliestDue
		}
		graders = append(graders, jsjson.NewObject(6).
			Set("profile_id", pid).
			Set("name", name).
			Set("assigned", float64(p.assigned)).
			Set("completed", float64(p.completed)).
			Set("pending", float64(p.assigned-p.completed)).
			Set("earliest_pending_due_date", due))
	}
	sort.SliceStable(graders, func(i, j int) bool {
		ni, iok := graders[i].Value("name").(string)
		nj, jok := graders[j].Value("name").(string)
		if iok != jok {
			return iok
		}
		if ni != nj {
			return ni < nj
		}
		pi, _ := graders[i].Value("profile_id").(string)
		pj, _ := graders[j].Value("profile_id").(string)
		return pi < pj
	})
	graderList := make([]any, len(graders))
	for i, o := range graders {
		graderList[i] = o
	}

	counts := map[string]int{}
	for _, r := range regrades {
		s, _ := r.String("status")
		counts[s]++
	}
	rr := jsjson.NewObject(6).
		Set("open", float64(counts["opened"]+counts["escalated"])).
		Set("resolved_or_closed", float64(counts["resolved"]+counts["closed"]))
	for _, s := range []string{"opened", "escalated", "resolved", "closed"} {
		rr.Set(s, float64(counts[s]))
	}

	return jsjson.NewObject(7).
		Set("class_id", c.Args.Value("class_id")).
		Set("assignment_id", c.Args.Value("assignment_id")).
		Set("submissions", jsjson.NewObject(4).
			Set("active", float64(len(subs))).
			Set("graded", float64(graded)).
			Set("ungraded", float64(len(subs)-graded)).
			Set("released", float64(released))).
		Set("review_assignments", jsjson.NewObject(3).
			Set("total", float64(len(reviews))).
			Set("completed", float64(completed)).
			Set("pending", float64(len(reviews)-completed))).
		Set("graders", graderList).
		Set("regrade_requests", rr).
		Set("truncated", over1 || over2 || over3 || over4), nil
}
