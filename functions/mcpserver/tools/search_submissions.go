package tools

import (
	"context"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Limits of search_submissions.
const (
	searchSubmissionsDefault = 25
	searchSubmissionsMax     = 100
)

// Autograder states search_submissions reports and filters on.
const (
	autograderPending = "pending" // no grader result yet
	autograderPassed  = "passed"  // score at least max_score
	autograderFailed  = "failed"  // score below max_score
)

// searchSubmissionsTool is search_submissions, the name Pawtograder's AI
// Help prompts use: an assignment's submissions, filtered by student,
// score, autograder state and regrade requests. Listed only on negotiated
// revisions.
var searchSubmissionsTool = Tool{
	Name:           "search_submissions",
	Title:          "Search an assignment's submissions",
	NegotiatedOnly: true,
	Description: "Returns an assignment's submissions, newest first, each with the student's public profile, the autograder score and state " +
		"(pending, passed, failed) and its regrade requests, filtered by student name or profile id, score range, autograder state " +
		"and whether a regrade request exists; active submissions only unless inactive ones are asked for; null when the assignment is not visible.",
	InputSchema: mustSchema(`{"type":"object","properties":{
		"class_id":{"type":"number","description":"The class ID"},
		"assignment_id":{"type":"number","description":"The assignment ID"},
		"student_name":{"type":"string","description":"Only students whose public profile name contains this text (case-insensitive)"},
		"student_profile_id":{"type":"string","description":"Only this student's submissions (public profile ID)"},
		"min_score":{"type":"number","description":"Only autograder scores at least this"},
		"max_score":{"type":"number","description":"Only autograder scores at most this"},
		"autograder_status":{"type":"string","enum":["pending","passed","failed"],"description":"pending: no autograder result yet; passed: full marks; failed: below full marks"},
		"has_regrade_request":{"type":"boolean","description":"Only submissions with (true) or without (false) a regrade request"},
		"include_inactive":{"type":"boolean","description":"Also earlier, inactive submissions (default false)","default":false},
		"limit":{"type":"integer","description":"Maximum number of submissions (default 25, at most 100)","default":25,"minimum":1,"maximum":100}},
		"required":["class_id","assignment_id"]}`),
	Scope:   ScopeRead,
	Handler: searchSubmissions,
}

// searchSubmissionsSchema is search_submissions' value.
const searchSubmissionsSchema = `{"anyOf":[{"type":"null"},{"type":"object","required":["class_id","assignment_id","submissions","total_matched","truncated"],
	"properties":{"class_id":{"type":"number"},"assignment_id":{"type":"number"},"total_matched":{"type":"number"},"truncated":{"type":"boolean"},
	"submissions":{"type":"array","items":{"type":"object","required":["id","created_at","ordinal","is_active","student_profile_id","student_name","assignment_group_id","score","max_score","autograder_status","regrade_requests","open_regrade_requests"],
	"properties":{"id":{"type":"number"},"created_at":{"type":"string"},"ordinal":{"type":"number"},"is_active":{"type":"boolean"},
	"student_profile_id":{"$ref":"#/$defs/nstring"},"student_name":{"$ref":"#/$defs/nstring"},"assignment_group_id":{"$ref":"#/$defs/nnumber"},
	"score":{"$ref":"#/$defs/nnumber"},"max_score":{"$ref":"#/$defs/nnumber"},"autograder_status":{"enum":["pending","passed","failed"]},
	"regrade_requests":{"type":"number"},"open_regrade_requests":{"type":"number"}},"additionalProperties":false}}},"additionalProperties":false}]}`

// openRegradeStatus reports whether a regrade request still waits on
// staff: opened or escalated, as Pawtograder's dashboard counts them.
func openRegradeStatus(status string) bool { return status == "opened" || status == "escalated" }

// searchSubmissions reads at most maxRows submissions of the assignment
// (with their grader result embedded), the assignment's regrade requests
// and the authors' public profiles, then filters and cuts in memory, so
// every filter applies to the same rows and the order is created_at then
// id, both descending. Drafts of regrade requests (not yet sent) do not
// count. Group submissions have no student, so a student filter never
// matches them.
func searchSubmissions(ctx context.Context, c *Call) (any, error) {
	cid, aid := arg(c.Args, "class_id"), arg(c.Args, "assignment_id")
	var (
		assignment any
		subs       []*jsjson.Object
		regrades   []*jsjson.Object
		onlyID     string
		onlyOK     = true
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		assignment = c.assignmentRecord(gctx, aid, cid)
		return nil
	})
	g.Go(func() error {
		q := c.DB.From("submissions").
			Select("id,created_at,ordinal,is_active,profile_id,assignment_group_id,grader_results!grader_results_submission_id_fkey(score,max_score)").
			Eq("class_id", cid).Eq("assignment_id", aid)
		if !isTrue(c.Args, "include_inactive") {
			q = q.Eq("is_active", "true")
		}
		raw, err := q.Order("created_at", false).Order("id", false).Limit(maxRows + 1).Rows(gctx)
		subs, _ = c.pgRows(gctx, raw, err)
		return nil
	})
	g.Go(func() error {
		raw, err := c.DB.From("submission_regrade_requests").Select("submission_id,status").
			Eq("class_id", cid).Eq("assignment_id", aid).Neq("status", "draft").
			Order("id", true).Limit(maxRows).Rows(gctx)
		regrades, _ = c.pgRows(gctx, raw, err)
		return nil
	})
	if pub, ok := c.Args.String("student_profile_id"); ok {
		g.Go(func() error {
			onlyID, onlyOK = c.privateProfileID(gctx, cid, pub)
			return nil
		})
	}
	_ = g.Wait()
	if assignment == nil {
		return nil, nil
	}
	truncated := len(subs) > maxRows
	if truncated {
		subs = subs[:maxRows]
	}
	total, open := map[string]int{}, map[string]int{}
	for _, r := range regrades {
		k := jsString(r.Value("submission_id"), true)
		total[k]++
		if s, _ := r.String("status"); openRegradeStatus(s) {
			open[k]++
		}
	}
	ids := make([]string, 0, len(subs))
	for _, s := range subs {
		if p, _ := s.String("profile_id"); p != "" {
			ids = append(ids, p)
		}
	}
	profiles := c.publicProfiles(ctx, cid, ids)

	name, byName := c.Args.String("student_name")
	name = strings.ToLower(name)
	_, byID := c.Args.String("student_profile_id")
	minScore, hasMin := c.Args.Number("min_score")
	maxScore, hasMax := c.Args.Number("max_score")
	status, byStatus := c.Args.String("autograder_status")
	wantRegrade, byRegrade := c.Args.Value("has_regrade_request").(bool)
	limit := boundedLimit(c, "limit", searchSubmissionsDefault, searchSubmissionsMax)

	out := make([]any, 0, min(limit, len(subs)))
	matched := 0
	for _, s := range subs {
		profileID, _ := s.String("profile_id")
		p, known := profiles[profileID]
		if byID && (!onlyOK || profileID == "" || profileID != onlyID) {
			continue
		}
		if byName {
			n, _ := p.Name.(string)
			if !known || !strings.Contains(strings.ToLower(n), name) {
				continue
			}
		}
		var score, maxPts any
		state := autograderPending
		if gr := embedRows(s, "grader_results"); len(gr) > 0 {
			score, maxPts = gr[0].Value("score"), gr[0].Value("max_score")
			state = autograderFailed
			if testPassed(score, maxPts) {
				state = autograderPassed
			}
		}
		if byStatus && state != status {
			continue
		}
		if hasMin || hasMax {
			f, ok := jsNumber(score)
			if score == nil || !ok || (hasMin && f < minScore) || (hasMax && f > maxScore) {
				continue
			}
		}
		k := jsString(s.Value("id"), true)
		if byRegrade && (total[k] > 0) != wantRegrade {
			continue
		}
		matched++
		if len(out) == limit {
			continue
		}
		var studentID, studentName any
		if known {
			studentID, studentName = orNull(p.ID), orNull(p.Name)
		}
		out = append(out, jsjson.NewObject(12).
			Set("id", s.Value("id")).
			Set("created_at", s.Value("created_at")).
			Set("ordinal", s.Value("ordinal")).
			Set("is_active", s.Value("is_active")).
			Set("student_profile_id", studentID).
			Set("student_name", studentName).
			Set("assignment_group_id", s.Value("assignment_group_id")).
			Set("score", score).
			Set("max_score", maxPts).
			Set("autograder_status", state).
			Set("regrade_requests", float64(total[k])).
			Set("open_regrade_requests", float64(open[k])))
	}
	return jsjson.NewObject(5).
		Set("class_id", c.Args.Value("class_id")).
		Set("assignment_id", c.Args.Value("assignment_id")).
		Set("submissions", out).
		Set("total_matched", float64(matched)).
		Set("truncated", truncated), nil
}
