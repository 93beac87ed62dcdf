package tools

import (
	"context"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Limits of get_student_overview: the latest help requests and posts listed.
const (
	studentOverviewDefault = 5
	studentOverviewMax     = 20
)

// getStudentOverviewTool is get_student_overview.
var getStudentOverviewTool = Tool{
	Name:           "get_student_overview",
	Title:          "Get one student's overview",
	NegotiatedOnly: true,
	Description: "Returns one student's activity in a class: per assignment the number of submissions (their own and their group's) and the latest " +
		"with its autograder score and state; their help requests and discussion posts with counts and the latest items; " +
		"null when the public profile id is not a member the caller may see.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"student_profile_id":{"type":"string","description":"The public profile ID of the student"},
		"limit":{"type":"integer","description":"How many of the latest help requests and posts to list (default 5, at most 20)","default":5,"minimum":1,"maximum":20}},
		"required":["class_id","student_profile_id"]}`),
	Scope:   ScopeRead,
	Handler: getStudentOverview,
}

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

// getStudentOverview translates the public profile to the private one
// (docs/contract/tools.md §1.3), then reads the student's groups,
// submissions, help requests and posts under the caller's row-level
// security. Posts count only those made under the private profile: one
// under the pseudonym (or anonymously, which Pawtograder stores the same
// way) is not tied to the student. Each list is read up to maxRows rows;
// truncated says one was longer.
func getStudentOverview(ctx context.Context, c *Call) (any, error) {
	cid := arg(c.Args, "class_id")
	publicID := arg(c.Args, "student_profile_id")
	privateID, ok := c.privateProfileID(ctx, cid, publicID)
	if !ok || privateID == "" {
		return nil, nil
	}
	profile := c.publicProfiles(ctx, cid, []string{privateID})[privateID]

	var (
		groups, assignments, subs, helps, posts []*jsjson.Object
		over                                    [3]bool
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		raw, err := c.DB.From("assignment_groups_members").Select("assignment_group_id").
			Eq("class_id", cid).Eq("profile_id", privateID).Order("id", true).Limit(maxRows).Rows(gctx)
		groups, _ = c.pgRows(gctx, raw, err)
		ids := make([]string, 0, len(groups))
		for _, r := range groups {
			ids = append(ids, jsString(r.Value("assignment_group_id"), true))
		}
		owner := "profile_id.eq." + privateID
		if len(ids) > 0 {
			owner += ",assignment_group_id.in.(" + strings.Join(ids, ",") + ")"
		}
		raw, err = c.DB.From("submissions").
			Select("id,assignment_id,created_at,ordinal,is_active,assignment_group_id,grader_results!grader_results_submission_id_fkey(score,max_score)").
			Eq("class_id", cid).Or(owner).
			Order("created_at", false).Order("id", false).Limit(maxRows + 1).Rows(gctx)
		subs, _ = c.pgRows(gctx, raw, err)
		if len(subs) > maxRows {
			subs, over[0] = subs[:maxRows], true
		}
		return nil
	})
	g.Go(func() error {
		raw, err := c.DB.From("assignments").Select("id,title,due_date").Eq("class_id", cid).Order("id", true).Limit(maxRows).Rows(gctx)
		assignments, _ = c.pgRows(gctx, raw, err)
		return nil
	})
	g.Go(func() error {
		raw, err := c.DB.From("help_request_students").
			Select("help_request_id,help_requests!help_request_students_help_request_id_fkey(id,status,request,created_at,help_queue)").
			Eq("class_id", cid).Eq("profile_id", privateID).Order("help_request_id", false).Limit(maxRows + 1).Rows(gctx)
		helps, _ = c.pgRows(gctx, raw, err)
		if len(helps) > maxRows {
			helps, over[1] = helps[:maxRows], true
		}
		return nil
	})
	g.Go(func() error {
		raw, err := c.DB.From("discussion_threads").Select("id,subject,created_at,is_question,root,topic_id").
			Eq("class_id", cid).Eq("author", privateID).Eq("draft", "false").
			Order("created_at", false).Order("id", false).Limit(maxRows + 1).Rows(gctx)
		posts, _ = c.pgRows(gctx, raw, err)
		if len(posts) > maxRows {
			posts, over[2] = posts[:maxRows], true
		}
		return nil
	})
	_ = g.Wait()
	limit := boundedLimit(c, "limit", studentOverviewDefault, studentOverviewMax)

	// Submissions arrive newest first, so the first per assignment is the latest.
	type perAssignment struct {
		count  int
		latest *jsjson.Object
	}
	byAssignment := map[string]*perAssignment{}
	for _, s := range subs {
		k := jsString(s.Value("assignment_id"), true)
		pa, ok := byAssignment[k]
		if !ok {
			pa = &perAssignment{latest: s}
			byAssignment[k] = pa
		}
		pa.count++
	}
	titles := map[string]*jsjson.Object{}
	for _, a := range assignments {
		titles[jsString(a.Value("id"), true)] = a
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
	perA := make([]any, 0, len(keys))
	for _, k := range keys {
		pa := byAssignment[k]
		s := pa.latest
		var score, maxPts any
		state := autograderPending
		if gr := embedRows(s, "grader_results"); len(gr) > 0 {
			score, maxPts = gr[0].Value("score"), gr[0].Value("max_score")
			state = autograderFailed
			if testPassed(score, maxPts) {
				state = autograderPassed
			}
		}
		a := titles[k]
		perA = append(perA, jsjson.NewObject(5).
			Set("assignment_id", s.Value("assignment_id")).
			Set("title", a.Value("title")).
			Set("due_date", a.Value("due_date")).
			Set("submissions", float64(pa.count)).
			Set("latest", jsjson.NewObject(8).
				Set("id", s.Value("id")).
				Set("created_at", s.Value("created_at")).
				Set("ordinal", s.Value("ordinal")).
				Set("is_active", s.Value("is_active")).
				Set("assignment_group_id", s.Value("assignment_group_id")).
				Set("score", score).
				Set("max_score", maxPts).
				Set("autograder_status", state)))
	}

	// Help requests: only those the embed shows (RLS on help_requests),
	// newest first by creation, then id.
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
	byStatus := jsjson.NewObject(4)
	for _, st := range []string{"open", "in_progress", "resolved", "closed"} {
		n := 0
		for _, r := range reqs {
			if s, _ := r.String("status"); s == st {
				n++
			}
		}
		byStatus.Set(st, float64(n))
	}
	latestHelp := make([]any, 0, min(limit, len(reqs)))
	for _, r := range reqs[:min(limit, len(reqs))] {
		latestHelp = append(latestHelp, jsjson.NewObject(5).
			Set("id", r.Value("id")).
			Set("status", r.Value("status")).
			Set("request", r.Value("request")).
			Set("created_at", r.Value("created_at")).
			Set("help_queue_id", r.Value("help_queue")))
	}

	questions := 0
	for _, p := range posts {
		if p.Value("is_question") == true {
			questions++
		}
	}
	latestPosts := make([]any, 0, min(limit, len(posts)))
	for _, p := range posts[:min(limit, len(posts))] {
		latestPosts = append(latestPosts, p)
	}

	return jsjson.NewObject(7).
		Set("class_id", c.Args.Value("class_id")).
		Set("student_profile_id", publicID).
		Set("student_name", orNull(profile.Name)).
		Set("assignments", perA).
		Set("help_requests", jsjson.NewObject(3).
			Set("total", float64(len(reqs))).
			Set("by_status", byStatus).
			Set("latest", latestHelp)).
		Set("discussion_posts", jsjson.NewObject(3).
			Set("total", float64(len(posts))).
			Set("questions", float64(questions)).
			Set("latest", latestPosts)).
		Set("truncated", over[0] || over[1] || over[2]), nil
}
