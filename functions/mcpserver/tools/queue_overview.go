package tools

import (
	"context"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Limits of get_help_queue_overview: requests listed per queue.
const (
	queueOverviewDefault = 20
	queueOverviewMax     = 100
)

// getHelpQueueOverviewTool is get_help_queue_overview.
var getHelpQueueOverviewTool = staffTool(getHelpQueueOverview, Tool{
	Name:  "get_help_queue_overview",
	Title: "Get the help queues at a glance",
	Description: "Returns a class's help queues (or one), each with its open and in-progress requests, oldest first: " +
		"age, assignee (public profile; assignee_is_caller when it is the caller), the assignment of the linked submission and how many students each request has, " +
		"plus per queue the counts and how many distinct students wait in open requests; only what the caller may read.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"help_queue_id":{"type":"number","description":"Only this queue (default: every queue of the class)"},
		"limit":{"type":"integer","description":"Maximum number of requests listed per queue (default 20, at most 100); the counts cover every request","default":20,"minimum":1,"maximum":100}},
		"required":["class_id"]}`),
	Result:  queueOverviewSchema,
	Example: `{"class_id":1}`,
})

// queueOverviewSchema is get_help_queue_overview's value.
const queueOverviewSchema = `{"type":"object","required":["class_id","queues","truncated"],"properties":{"class_id":{"type":"number"},"truncated":{"type":"boolean"},
	"queues":{"type":"array","items":{"type":"object","required":["id","name","description","queue_type","available","open","in_progress","students_waiting","requests"],
	"properties":{"id":{"type":"number"},"name":{"type":"string"},"description":{"type":"string"},"queue_type":{"type":"string"},"available":{"type":"boolean"},
	"open":{"type":"number"},"in_progress":{"type":"number"},"students_waiting":{"type":"number"},
	"requests":{"type":"array","items":{"type":"object","required":["id","status","request","is_private","created_at","age_seconds","assignee_profile_id","assignee_name","assignee_is_caller","assignment","students"],
	"properties":{"id":{"type":"number"},"status":{"enum":["open","in_progress"]},"request":{"type":"string"},"is_private":{"type":"boolean"},"created_at":{"type":"string"},
	"age_seconds":{"$ref":"#/$defs/nnumber"},"assignee_profile_id":{"$ref":"#/$defs/nstring"},"assignee_name":{"$ref":"#/$defs/nstring"},"assignee_is_caller":{"type":"boolean"},
	"assignment":{"anyOf":[{"type":"null"},{"type":"object","required":["id","title"],"properties":{"id":{"type":"number"},"title":{"type":"string"}},"additionalProperties":false}]},
	"students":{"type":"number"}},"additionalProperties":false}}},"additionalProperties":false}}},"additionalProperties":false}`

// queueOverviewResult is get_help_queue_overview's answer.
type queueOverviewResult struct {
	ClassID   float64        `json:"class_id"`
	Queues    []queueSummary `json:"queues"`
	Truncated bool           `json:"truncated"`
}

// queueSummary is one queue with its counts and listed requests.
type queueSummary struct {
	ID              float64        `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	QueueType       string         `json:"queue_type"`
	Available       bool           `json:"available"`
	Open            int            `json:"open"`
	InProgress      int            `json:"in_progress"`
	StudentsWaiting int            `json:"students_waiting"`
	Requests        []queueRequest `json:"requests"`
}

// queueRequest is one open or in-progress request of a queue.
type queueRequest struct {
	ID                float64        `json:"id"`
	Status            string         `json:"status"`
	Request           string         `json:"request"`
	IsPrivate         bool           `json:"is_private"`
	CreatedAt         string         `json:"created_at"`
	AgeSeconds        *float64       `json:"age_seconds"`
	AssigneeProfileID *string        `json:"assignee_profile_id"`
	AssigneeName      *string        `json:"assignee_name"`
	AssigneeIsCaller  bool           `json:"assignee_is_caller"`
	Assignment        *assignmentRef `json:"assignment"`
	Students          int            `json:"students"`
}

// assignmentRef is the assignment of a request's linked submission.
type assignmentRef struct {
	ID    float64 `json:"id"`
	Title string  `json:"title"`
}

// queueState is one queue's tally: its counts, the students waiting in its
// open requests and the requests listed.
type queueState struct {
	open, inProgress int
	waiting          map[string]bool
	listed           []queueRequest
}

// getHelpQueueOverview reads the queues (by ordinal, then id) and every
// open or in-progress request of them (up to maxRows, oldest first, then
// by id), under the caller's row-level security, and groups them.
func getHelpQueueOverview(ctx context.Context, c *Call) (queueOverviewResult, error) {
	queues, requests, mine, profiles := c.readHelpQueues(ctx)
	truncated := len(requests) > maxRows
	if truncated {
		requests = requests[:maxRows]
	}
	limit := boundedLimit(c, "limit", queueOverviewDefault, queueOverviewMax)
	states := tallyQueues(queues, requests, limit, profiles, mine, c.now())
	out := make([]queueSummary, 0, len(queues))
	for _, q := range queues {
		st := states[rowKey(q, "id")]
		out = append(out, queueSummary{
			ID: numberOf(q.Value("id")), Name: stringOf(q.Value("name")), Description: stringOf(q.Value("description")),
			QueueType: stringOf(q.Value("queue_type")), Available: boolOf(q.Value("available")),
			Open: st.open, InProgress: st.inProgress, StudentsWaiting: len(st.waiting), Requests: st.listed,
		})
	}
	return queueOverviewResult{ClassID: numberOf(c.Args.Value("class_id")), Queues: out, Truncated: truncated}, nil
}

// readHelpQueues reads the queues, their open and in-progress requests
// (up to maxRows + 1), the caller's own profile ids and the assignees'
// public profiles in one call of the SQL function mcp_help_queue_overview,
// which runs as the caller (SECURITY INVOKER, so row-level security
// applies as to the REST reads it replaces).
func (c *Call) readHelpQueues(ctx context.Context) (queues, requests []*jsjson.Object, mine map[string]bool, profiles map[string]publicProfile) {
	found := c.readFunctionRow(ctx, "mcp_help_queue_overview", "found", map[string]any{
		"p_class_id":      c.Args.Value("class_id"),
		"p_help_queue_id": c.Args.Value("help_queue_id"),
	})
	_, mine = callerRolesOf(embedRows(found, "caller"))
	return embedRows(found, "queues"), embedRows(found, "requests"), mine, profilesOfRows(embedRows(found, "profiles"))
}

// tallyQueues counts each queue's requests and lists up to limit of them,
// keyed by the queue id's text; requests of a queue not read are skipped.
func tallyQueues(queues, requests []*jsjson.Object, limit int, profiles map[string]publicProfile, mine map[string]bool, now time.Time) map[string]*queueState {
	states := map[string]*queueState{}
	for _, q := range queues {
		states[rowKey(q, "id")] = &queueState{waiting: map[string]bool{}, listed: []queueRequest{}}
	}
	for _, r := range requests {
		st, ok := states[rowKey(r, "help_queue")]
		if !ok {
			continue
		}
		students := embedRows(r, "help_request_students")
		if status, _ := r.String("status"); status == "open" {
			st.open++
			for _, s := range students {
				if p, ok := s.String("profile_id"); ok {
					st.waiting[p] = true
				}
			}
		} else {
			st.inProgress++
		}
		if len(st.listed) < limit {
			st.listed = append(st.listed, queueRequestOf(r, len(students), profiles, mine, now))
		}
	}
	return states
}

// queueRequestOf is one request row as listed; mine are the caller's own
// profile ids.
func queueRequestOf(r *jsjson.Object, students int, profiles map[string]publicProfile, mine map[string]bool, now time.Time) queueRequest {
	req := queueRequest{
		ID: numberOf(r.Value("id")), Status: stringOf(r.Value("status")), Request: stringOf(r.Value("request")),
		IsPrivate: boolOf(r.Value("is_private")), CreatedAt: stringOf(r.Value("created_at")),
		AgeSeconds: ageSeconds(r.Value("created_at"), now), Students: students,
	}
	req.AssigneeProfileID, req.AssigneeName = profileRef(profiles, r.Value("assignee"))
	assignee, _ := r.String("assignee")
	req.AssigneeIsCaller = assignee != "" && mine[assignee]
	if sub := embedRows(r, "submissions"); len(sub) > 0 {
		if a := embedRows(sub[0], "assignments"); len(a) > 0 {
			req.Assignment = &assignmentRef{ID: numberOf(a[0].Value("id")), Title: stringOf(a[0].Value("title"))}
		}
	}
	return req
}
