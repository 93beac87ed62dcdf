package tools

import (
	"context"
	"sort"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Limits of get_student_overview: the latest help requests and posts listed.
const (
	studentOverviewDefault = 5
	studentOverviewMax     = 20
)

// getStudentOverviewTool is get_student_overview.
var getStudentOverviewTool = staffTool(getStudentOverview, Tool{
	Name:  "get_student_overview",
	Title: "Get one student's overview",
	Description: "Returns one student's activity in a class: per assignment the number of submissions (their own and their group's) and the latest " +
		"with its autograder score and state; their help requests and discussion posts with counts and the latest items; " +
		"null when the public profile id is not a member the caller may see.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"student_profile_id":{"type":"string","description":"The public profile ID of the student"},
		"limit":{"type":"integer","description":"How many of the latest help requests and posts to list (default 5, at most 20)","default":5,"minimum":1,"maximum":20}},
		"required":["class_id","student_profile_id"]}`),
	Result:  studentOverviewSchema,
	Example: `{"class_id":1,"student_profile_id":"30000001-0000-4000-8000-000000000003"}`,
})

// studentOverviewSchema is get_student_overview's value.
const studentOverviewSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["class_id","student_profile_id","student_name","assignments","help_requests","discussion_posts","truncated"],
	"properties":{"class_id":{"type":"number"},"student_profile_id":{"type":"string"},"student_name":{"$ref":"#/$defs/nstring"},"truncated":{"type":"boolean"},
	"assignments":{"type":"array","items":{"type":"object","required":["assignment_id","title","due_date","submissions","latest"],
	"properties":{"assignment_id":{"type":"number"},"title":{"$ref":"#/$defs/nstring"},"due_date":{"$ref":"#/$defs/nstring"},"submissions":{"type":"number"},
	"latest":{"type":"object","required":["id","created_at","ordinal","is_active","assignment_group_id","score","max_score","autograder_status"],
	"properties":{"id":{"type":"number"},"created_at":{"type":"string"},"ordinal":{"type":"number"},"is_active":{"type":"boolean"},"assignment_group_id":{"$ref":"#/$defs/nnumber"},
	"score":{"$ref":"#/$defs/nnumber"},"max_score":{"$ref":"#/$defs/nnumber"},"autograder_status":{"enum":["pending","passed","failed"]}},"additionalProperties":false}},"additionalProperties":false}},
	"help_requests":{"type":"object","required":["total","by_status","latest"],"properties":{"total":{"type":"number"},
	"by_status":{"type":"object","additionalProperties":{"type":"number"}},
	"latest":{"type":"array","items":{"type":"object","required":["id","status","request","created_at","help_queue_id"],
	"properties":{"id":{"type":"number"},"status":{"type":"string"},"request":{"type":"string"},"created_at":{"type":"string"},"help_queue_id":{"type":"number"}},"additionalProperties":false}}},"additionalProperties":false},
	"discussion_posts":{"type":"object","required":["total","questions","latest"],"properties":{"total":{"type":"number"},"questions":{"type":"number"},
	"latest":{"type":"array","items":{"type":"object","required":["id","subject","created_at","is_question","root","topic_id"],
	"properties":{"id":{"type":"number"},"subject":{"type":"string"},"created_at":{"type":"string"},"is_question":{"type":"boolean"},"root":{"$ref":"#/$defs/nnumber"},"topic_id":{"type":"number"}},"additionalProperties":false}}},"additionalProperties":false}},"additionalProperties":false}]}`

// studentOverviewResult is get_student_overview's answer (null when the
// public profile id is not a member the caller may see).
type studentOverviewResult struct {
	ClassID          float64              `json:"class_id"`
	StudentProfileID string               `json:"student_profile_id"`
	StudentName      *string              `json:"student_name"`
	Assignments      []assignmentActivity `json:"assignments"`
	HelpRequests     helpActivity         `json:"help_requests"`
	DiscussionPosts  postActivity         `json:"discussion_posts"`
	Truncated        bool                 `json:"truncated"`
}

// assignmentActivity is the student's submissions to one assignment.
type assignmentActivity struct {
	AssignmentID float64          `json:"assignment_id"`
	Title        *string          `json:"title"`
	DueDate      *string          `json:"due_date"`
	Submissions  int              `json:"submissions"`
	Latest       latestSubmission `json:"latest"`
}

// latestSubmission is the newest submission to an assignment.
type latestSubmission struct {
	ID                float64         `json:"id"`
	CreatedAt         string          `json:"created_at"`
	Ordinal           float64         `json:"ordinal"`
	IsActive          bool            `json:"is_active"`
	AssignmentGroupID *float64        `json:"assignment_group_id"`
	Score             *float64        `json:"score"`
	MaxScore          *float64        `json:"max_score"`
	AutograderStatus  autograderState `json:"autograder_status"`
}

// helpActivity is the student's help requests.
type helpActivity struct {
	Total    int               `json:"total"`
	ByStatus helpStatusCounts  `json:"by_status"`
	Latest   []helpRequestItem `json:"latest"`
}

// helpStatusCounts counts the help requests by status, in the order the
// answer lists them.
type helpStatusCounts struct {
	Open       int `json:"open"`
	InProgress int `json:"in_progress"`
	Resolved   int `json:"resolved"`
	Closed     int `json:"closed"`
}

// helpRequestItem is one of the latest help requests.
type helpRequestItem struct {
	ID          float64 `json:"id"`
	Status      string  `json:"status"`
	Request     string  `json:"request"`
	CreatedAt   string  `json:"created_at"`
	HelpQueueID float64 `json:"help_queue_id"`
}

// postActivity is the student's discussion posts.
type postActivity struct {
	Total     int        `json:"total"`
	Questions int        `json:"questions"`
	Latest    []postItem `json:"latest"`
}

// postItem is one of the latest posts.
type postItem struct {
	ID         float64  `json:"id"`
	Subject    string   `json:"subject"`
	CreatedAt  string   `json:"created_at"`
	IsQuestion bool     `json:"is_question"`
	Root       *float64 `json:"root"`
	TopicID    float64  `json:"topic_id"`
}

// studentActivity is what get_student_overview read of one student: the
// class's assignments and, each newest first, the student's (and their
// groups') submissions, help requests and posts; truncated says a list
// was longer than maxRows.
type studentActivity struct {
	assignments, subs, helps, posts []*jsjson.Object
	truncated                       bool
}

// getStudentOverview translates the public profile to the private one
// (docs/contract/tools.md §1.3), then reads the student's groups,
// submissions, help requests and posts under the caller's row-level
// security. Posts count only those made under the private profile: one
// under the pseudonym (or anonymously, which Pawtograder stores the same
// way) is not tied to the student. Each list is read up to maxRows rows;
// truncated says one was longer.
//
// Every list hangs off the private profile id (and the submissions off the
// groups too), which embedding cannot say: the reads are one call of the
// SQL function mcp_student_overview, which runs as the caller (SECURITY
// INVOKER, so row-level security applies as to the REST reads) and
// returns each read's rows as PostgREST would, in one row (none when the
// profile is not a member the caller may see).
func getStudentOverview(ctx context.Context, c *Call) (*studentOverviewResult, error) {
	publicID := arg(c.Args, "student_profile_id")
	raw, err := c.DB.ReadRPC(ctx, "mcp_student_overview", map[string]any{
		"p_class_id":           c.Args.Value("class_id"),
		"p_student_profile_id": c.Args.Value("student_profile_id"),
	})
	rows, _ := c.pgRows(ctx, raw, err)
	if len(rows) == 0 {
		return nil, nil // not a member the caller may see (or a failed read, noted)
	}
	found, _ := rows[0].Object("overview")
	read := studentActivityOf(found)
	limit := boundedLimit(c, "limit", studentOverviewDefault, studentOverviewMax)
	return &studentOverviewResult{
		ClassID:          numberOf(c.Args.Value("class_id")),
		StudentProfileID: publicID,
		StudentName:      nullableString(orNull(found.Value("name"))),
		Assignments:      assignmentActivities(read.subs, read.assignments),
		HelpRequests:     helpActivityOf(read.helps, limit),
		DiscussionPosts:  postActivityOf(read.posts, limit),
		Truncated:        read.truncated,
	}, nil
}

// studentActivityOf reads mcp_student_overview's lists: each up to
// maxRows rows, noting a longer one (the function reads one row more).
func studentActivityOf(found *jsjson.Object) studentActivity {
	var read studentActivity
	newest := func(key string) []*jsjson.Object {
		rows := embedRows(found, key)
		if len(rows) > maxRows {
			rows, read.truncated = rows[:maxRows], true
		}
		return rows
	}
	read.assignments = embedRows(found, "assignments")
	read.subs = newest("submissions")
	read.helps = newest("help_requests")
	read.posts = newest("posts")
	return read
}

// assignmentActivities groups the submissions (newest first, so the first
// per assignment is the latest) by assignment, in assignment id order.
func assignmentActivities(subs, assignments []*jsjson.Object) []assignmentActivity {
	type perAssignment struct {
		count  int
		latest *jsjson.Object
	}
	byAssignment := map[string]*perAssignment{}
	for _, s := range subs {
		k := rowKey(s, "assignment_id")
		pa, ok := byAssignment[k]
		if !ok {
			pa = &perAssignment{latest: s}
			byAssignment[k] = pa
		}
		pa.count++
	}
	titles := map[string]*jsjson.Object{}
	for _, a := range assignments {
		titles[rowKey(a, "id")] = a
	}
	keys := make([]string, 0, len(byAssignment))
	for k := range byAssignment {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := jsNumber(byAssignment[keys[i]].latest.Value("assignment_id"))
		b, _ := jsNumber(byAssignment[keys[j]].latest.Value("assignment_id"))
		return a < b
	})
	out := make([]assignmentActivity, 0, len(keys))
	for _, k := range keys {
		s, a := byAssignment[k].latest, titles[k]
		score, maxPts, state := autograderScore(s)
		out = append(out, assignmentActivity{
			AssignmentID: numberOf(s.Value("assignment_id")),
			Title:        nullableString(a.Value("title")), DueDate: nullableString(a.Value("due_date")),
			Submissions: byAssignment[k].count,
			Latest: latestSubmission{
				ID: numberOf(s.Value("id")), CreatedAt: stringOf(s.Value("created_at")), Ordinal: numberOf(s.Value("ordinal")),
				IsActive: boolOf(s.Value("is_active")), AssignmentGroupID: nullableNumber(s.Value("assignment_group_id")),
				Score: nullableNumber(score), MaxScore: nullableNumber(maxPts), AutograderStatus: state,
			},
		})
	}
	return out
}

// helpActivityOf counts the help requests the embed shows (row-level
// security on help_requests) by status and lists the latest limit, newest
// first by creation, then id.
func helpActivityOf(helps []*jsjson.Object, limit int) helpActivity {
	var reqs []*jsjson.Object
	for _, h := range helps {
		if r := embedRows(h, "help_requests"); len(r) > 0 {
			reqs = append(reqs, r[0])
		}
	}
	sort.SliceStable(reqs, func(i, j int) bool {
		ci, _ := reqs[i].String("created_at")
		cj, _ := reqs[j].String("created_at")
		if ci != cj {
			return ci > cj
		}
		a, _ := jsNumber(reqs[i].Value("id"))
		b, _ := jsNumber(reqs[j].Value("id"))
		return a > b
	})
	out := helpActivity{Total: len(reqs), Latest: make([]helpRequestItem, 0, min(limit, len(reqs)))}
	counts := map[string]*int{"open": &out.ByStatus.Open, "in_progress": &out.ByStatus.InProgress,
		"resolved": &out.ByStatus.Resolved, "closed": &out.ByStatus.Closed}
	for _, r := range reqs {
		if n, ok := counts[stringOf(r.Value("status"))]; ok {
			*n++
		}
	}
	for _, r := range reqs[:min(limit, len(reqs))] {
		out.Latest = append(out.Latest, helpRequestItem{
			ID: numberOf(r.Value("id")), Status: stringOf(r.Value("status")), Request: stringOf(r.Value("request")),
			CreatedAt: stringOf(r.Value("created_at")), HelpQueueID: numberOf(r.Value("help_queue")),
		})
	}
	return out
}

// postActivityOf counts the posts and questions and lists the latest
// limit.
func postActivityOf(posts []*jsjson.Object, limit int) postActivity {
	out := postActivity{Total: len(posts), Latest: make([]postItem, 0, min(limit, len(posts)))}
	for _, p := range posts {
		if p.Value("is_question") == true {
			out.Questions++
		}
	}
	for _, p := range posts[:min(limit, len(posts))] {
		out.Latest = append(out.Latest, postItem{
			ID: numberOf(p.Value("id")), Subject: stringOf(p.Value("subject")), CreatedAt: stringOf(p.Value("created_at")),
			IsQuestion: boolOf(p.Value("is_question")), Root: nullableNumber(p.Value("root")), TopicID: numberOf(p.Value("topic_id")),
		})
	}
	return out
}
