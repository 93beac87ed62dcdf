package tools

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Limits of get_help_queue_overview: requests listed per queue.
const (
	queueOverviewDefault = 20
	queueOverviewMax     = 100
)

// getHelpQueueOverviewTool is get_help_queue_overview.
var getHelpQueueOverviewTool = Tool{
	Name:           "get_help_queue_overview",
	Title:          "Get the help queues at a glance",
	NegotiatedOnly: true,
	Description: "Returns a class's help queues (or one), each with its open and in-progress requests, oldest first: " +
		"age, assignee (public profile), the assignment of the linked submission and how many students each request has, " +
		"plus per queue the counts and how many distinct students wait in open requests; only what the caller may read.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"help_queue_id":{"type":"number","description":"Only this queue (default: every queue of the class)"},
		"limit":{"type":"integer","description":"Maximum number of requests listed per queue (default 20, at most 100); the counts cover every request","default":20,"minimum":1,"maximum":100}},
		"required":["class_id"]}`),
	Scope:   ScopeRead,
	Handler: getHelpQueueOverview,
}

// queueOverviewSchema is get_help_queue_overview's value.
const queueOverviewSchema = `{"type":"object","required":["class_id","queues","truncated"],"properties":{"class_id":{"type":"number"},"truncated":{"type":"boolean"},
	"queues":{"type":"array","items":{"type":"object","required":["id","name","description","queue_type","available","open","in_progress","students_waiting","requests"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"type":"string"},"queue_type":{"type":"string"},"available":{"type":"boolean"},
	"open":{"type":"number"},"in_progress":{"type":"number"},"students_waiting":{"type":"number"},
	"requests":{"type":"array","items":{"type":"object","required":["id","status","request","is_private","created_at","age_seconds","assignee_profile_id","assignee_name","assignment","students"],
	"properties":{"id":{"type":"number"},"status":{"enum":["open","in_progress"]},"request":{"type":"string"},"is_private":{"type":"boolean"},"created_at":{"type":"string"},
	"age_seconds":{"$ref":"#/$defs/nnumber"},"assignee_profile_id":{"$ref":"#/$defs/nstring"},"assignee_name":{"$ref":"#/$defs/nstring"},
	"assignment":{"anyOf":[{"type":"null"},{"type":"object","required":["id","title"],"properties":{"id":{"type":"number"},"title":{"type":"string"}},"additionalProperties":false}]},
	"students":{"type":"number"}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}`

// queueRequestColumns is the help request row of the overview, with its
// students and the linked submission's assignment embedded.
const queueRequestColumns = "id,help_queue,request,status,is_private,created_at,assignee," +
	"help_request_students!help_request_students_help_request_id_fkey(profile_id)," +
	"submissions!help_requests_referenced_submission_id_fkey(assignment_id,assignments!submissio_assignment_id_fkey(id,title))"

// getHelpQueueOverview reads the queues (by ordinal, then id) and every
// open or in-progress request of them (up to maxRows, oldest first, then
// by id), under the caller's row-level security, and groups them.
func getHelpQueueOverview(ctx context.Context, c *Call) (any, error) {
	cid := arg(c.Args, "class_id")
	oneQueue := c.Args.Value("help_queue_id") != nil
	var queues, requests []*jsjson.Object
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		q := c.DB.From("help_queues").Select("id,name,description,queue_type,available").Eq("class_id", cid)
		if oneQueue {
			q = q.Eq("id", arg(c.Args, "help_queue_id"))
		}
		raw, err := q.Order("ordinal", true).Order("id", true).Limit(maxRows).Rows(gctx)
		queues, _ = c.pgRows(gctx, raw, err)
		return nil
	})
	g.Go(func() error {
		q := c.DB.From("help_requests").Select(queueRequestColumns).Eq("class_id", cid).In("status", []string{"open", "in_progress"})
		if oneQueue {
			q = q.Eq("help_queue", arg(c.Args, "help_queue_id"))
		}
		raw, err := q.Order("created_at", true).Order("id", true).Limit(maxRows + 1).Rows(gctx)
		requests, _ = c.pgRows(gctx, raw, err)
		return nil
	})
	_ = g.Wait()
	truncated := len(requests) > maxRows
	if truncated {
		requests = requests[:maxRows]
	}
	var assignees []string
	for _, r := range requests {
		if a, ok := r.String("assignee"); ok {
			assignees = append(assignees, a)
		}
	}
	profiles := c.publicProfiles(ctx, cid, assignees)
	limit := boundedLimit(c, "limit", queueOverviewDefault, queueOverviewMax)
	now := c.now()

	type queueState struct {
		open, inProgress int
		waiting          map[string]bool
		listed           []any
	}
	states := map[string]*queueState{}
	for _, q := range queues {
		states[jsString(q.Value("id"), true)] = &queueState{waiting: map[string]bool{}, listed: []any{}}
	}
	for _, r := range requests {
		st, ok := states[jsString(r.Value("help_queue"), true)]
		if !ok {
			continue
		}
		students := embedRows(r, "help_request_students")
		status, _ := r.String("status")
		if status == "open" {
			st.open++
			for _, s := range students {
				if p, ok := s.String("profile_id"); ok {
					st.waiting[p] = true
				}
			}
		} else {
			st.inProgress++
		}
		if len(st.listed) == limit {
			continue
		}
		var assignment any
		if sub := embedRows(r, "submissions"); len(sub) > 0 {
			if a := embedRows(sub[0], "assignments"); len(a) > 0 {
				assignment = jsjson.NewObject(2).Set("id", a[0].Value("id")).Set("title", a[0].Value("title"))
			}
		}
		assigneeID, assigneeName := profileRef(profiles, r.Value("assignee"))
		st.listed = append(st.listed, jsjson.NewObject(10).
			Set("id", r.Value("id")).
			Set("status", r.Value("status")).
			Set("request", r.Value("request")).
			Set("is_private", r.Value("is_private")).
			Set("created_at", r.Value("created_at")).
			Set("age_seconds", ageSeconds(r.Value("created_at"), now)).
			Set("assignee_profile_id", assigneeID).
			Set("assignee_name", assigneeName).
			Set("assignment", assignment).
			Set("students", float64(len(students))))
	}
	out := make([]any, 0, len(queues))
	for _, q := range queues {
		st := states[jsString(q.Value("id"), true)]
		out = append(out, jsjson.NewObject(9).
			Set("id", q.Value("id")).
			Set("name", q.Value("name")).
			Set("description", q.Value("description")).
			Set("queue_type", q.Value("queue_type")).
			Set("available", q.Value("available")).
			Set("open", float64(st.open)).
			Set("in_progress", float64(st.inProgress)).
			Set("students_waiting", float64(len(st.waiting))).
			Set("requests", st.listed))
	}
	return jsjson.NewObject(3).
		Set("class_id", c.Args.Value("class_id")).
		Set("queues", out).
		Set("truncated", truncated), nil
}
