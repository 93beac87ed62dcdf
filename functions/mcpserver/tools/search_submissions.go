package tools

import (
	"context"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Limits of search_submissions.
const (
	searchSubmissionsDefault = 25
	searchSubmissionsMax     = 100
)

// autograderState is a submission's autograder state, which
// search_submissions reports and filters on.
type autograderState string

// Autograder states.
const (
	autograderPending autograderState = "pending" // no grader result yet
	autograderPassed  autograderState = "passed"  // score at least max_score
	autograderFailed  autograderState = "failed"  // score below max_score
)

// enumValues lists the states, for the test that holds the output schemas'
// enums against the types.
func (autograderState) enumValues() []string {
	return []string{string(autograderPending), string(autograderPassed), string(autograderFailed)}
}

// autograderScore is a submission row's autograder score, maximum and
// state from its embedded grader result: pending (both null) when there is
// none.
func autograderScore(s *jsjson.Object) (score, maxScore any, state autograderState) {
	gr := embedRows(s, "grader_results")
	if len(gr) == 0 {
		return nil, nil, autograderPending
	}
	score, maxScore = gr[0].Value("score"), gr[0].Value("max_score")
	if testPassed(score, maxScore) {
		return score, maxScore, autograderPassed
	}
	return score, maxScore, autograderFailed
}

// searchSubmissionsTool is search_submissions, the name Pawtograder's AI
// Help prompts use: an assignment's submissions, filtered by student,
// score, autograder state and regrade requests. Listed only on negotiated
// revisions.
var searchSubmissionsTool = staffTool(searchSubmissions, Tool{
	Name:  "search_submissions",
	Title: "Search an assignment's submissions",
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
	Result:  searchSubmissionsSchema,
	Example: `{"class_id":1,"assignment_id":1}`,
})

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

// searchSubmissionsResult is search_submissions' answer (null when the
// assignment is not visible).
type searchSubmissionsResult struct {
	ClassID      float64              `json:"class_id"`
	AssignmentID float64              `json:"assignment_id"`
	Submissions  []searchedSubmission `json:"submissions"`
	TotalMatched int                  `json:"total_matched"`
	Truncated    bool                 `json:"truncated"`
}

// searchedSubmission is one submission that matched.
type searchedSubmission struct {
	ID                  float64         `json:"id"`
	CreatedAt           string          `json:"created_at"`
	Ordinal             float64         `json:"ordinal"`
	IsActive            bool            `json:"is_active"`
	StudentProfileID    *string         `json:"student_profile_id"`
	StudentName         *string         `json:"student_name"`
	AssignmentGroupID   *float64        `json:"assignment_group_id"`
	Score               *float64        `json:"score"`
	MaxScore            *float64        `json:"max_score"`
	AutograderStatus    autograderState `json:"autograder_status"`
	RegradeRequests     int             `json:"regrade_requests"`
	OpenRegradeRequests int             `json:"open_regrade_requests"`
}

// submissionSearch is what search_submissions read: whether the
// assignment is visible, the submissions (at most maxRows, truncated when
// there were more), the assignment's sent regrade requests, the
// submitters' public profiles and, with student_profile_id, its private
// profile (onlyOK false when it does not translate).
type submissionSearch struct {
	visible   bool
	subs      []*jsjson.Object
	regrades  []*jsjson.Object
	profiles  map[string]publicProfile
	truncated bool
	onlyID    string
	onlyOK    bool
}

// submissionFilter is search_submissions' filter arguments, with the
// private profile student_profile_id stands for (onlyOK false when it did
// not translate).
type submissionFilter struct {
	name                   string
	byName, byID           bool
	onlyID                 string
	onlyOK                 bool
	minScore, maxScore     float64
	hasMin, hasMax         bool
	status                 autograderState
	byStatus               bool
	wantRegrade, byRegrade bool
}

// searchSubmissions reads at most maxRows submissions of the assignment
// (with their grader result embedded), the assignment's regrade requests
// and the authors' public profiles, then filters and cuts in memory, so
// every filter applies to the same rows and the order is created_at then
// id, both descending. Drafts of regrade requests (not yet sent) do not
// count. Group submissions have no student, so a student filter never
// matches them.
func searchSubmissions(ctx context.Context, c *Call) (*searchSubmissionsResult, error) {
	read := c.readSubmissionSearch(ctx)
	if !read.visible {
		return nil, nil
	}
	total, open := regradeCounts(read.regrades)
	profiles := read.profiles
	f := submissionFilterOf(c.Args)
	f.onlyID, f.onlyOK = read.onlyID, read.onlyOK
	limit := boundedLimit(c, "limit", searchSubmissionsDefault, searchSubmissionsMax)
	out := make([]searchedSubmission, 0, min(limit, len(read.subs)))
	matched := 0
	for _, s := range read.subs {
		item, ok := f.match(s, profiles, total, open)
		if !ok {
			continue
		}
		matched++
		if len(out) < limit {
			out = append(out, item)
		}
	}
	return &searchSubmissionsResult{
		ClassID:      numberOf(c.Args.Value("class_id")),
		AssignmentID: numberOf(c.Args.Value("assignment_id")),
		Submissions:  out,
		TotalMatched: matched,
		Truncated:    read.truncated,
	}, nil
}

// readSubmissionSearch reads the assignment check, the submissions, the
// regrade requests, the student_profile_id translation and the
// submitters' public profiles in one call of the SQL function
// mcp_search_submissions, which runs as the caller (SECURITY INVOKER, so
// row-level security applies as to the REST reads it replaces) and
// answers no row when the assignment is not visible.
func (c *Call) readSubmissionSearch(ctx context.Context) submissionSearch {
	read := submissionSearch{onlyOK: true}
	var student any
	if pub, ok := c.Args.String("student_profile_id"); ok {
		student = pub
	}
	found := c.readFunctionRow(ctx, "mcp_search_submissions", "found", map[string]any{
		"p_class_id":           c.Args.Value("class_id"),
		"p_assignment_id":      c.Args.Value("assignment_id"),
		"p_include_inactive":   isTrue(c.Args, "include_inactive"),
		"p_student_profile_id": student,
	})
	if found == nil {
		return read
	}
	read.visible = true
	read.subs, read.regrades = embedRows(found, "submissions"), embedRows(found, "regrades")
	if student != nil {
		read.onlyID, _ = found.String("only")
		read.onlyOK = read.onlyID != ""
	}
	read.profiles = profilesOfRows(embedRows(found, "profiles"))
	if len(read.subs) > maxRows {
		read.subs, read.truncated = read.subs[:maxRows], true
	}
	return read
}

// regradeCounts counts the regrade requests, and the open ones, per
// submission id.
func regradeCounts(regrades []*jsjson.Object) (total, open map[string]int) {
	total, open = map[string]int{}, map[string]int{}
	for _, r := range regrades {
		k := rowKey(r, "submission_id")
		total[k]++
		if s, _ := r.String("status"); openRegradeStatus(s) {
			open[k]++
		}
	}
	return total, open
}

// submissionFilterOf reads the filter arguments.
func submissionFilterOf(args *jsjson.Object) submissionFilter {
	var f submissionFilter
	f.name, f.byName = args.String("student_name")
	f.name = strings.ToLower(f.name)
	_, f.byID = args.String("student_profile_id")
	f.minScore, f.hasMin = args.Number("min_score")
	f.maxScore, f.hasMax = args.Number("max_score")
	status, byStatus := args.String("autograder_status")
	f.status, f.byStatus = autograderState(status), byStatus
	f.wantRegrade, f.byRegrade = args.Value("has_regrade_request").(bool)
	return f
}

// match applies the filters to one submission row and, when it passes,
// returns its answer; total and open count the regrade requests per
// submission id.
func (f submissionFilter) match(s *jsjson.Object, profiles map[string]publicProfile, total, open map[string]int) (searchedSubmission, bool) {
	profileID, _ := s.String("profile_id")
	p, known := profiles[profileID]
	if f.byID && (!f.onlyOK || profileID == "" || profileID != f.onlyID) {
		return searchedSubmission{}, false
	}
	if f.byName {
		n, _ := p.Name.(string)
		if !known || !strings.Contains(strings.ToLower(n), f.name) {
			return searchedSubmission{}, false
		}
	}
	score, maxPts, state := autograderScore(s)
	if f.byStatus && state != f.status {
		return searchedSubmission{}, false
	}
	if f.hasMin || f.hasMax {
		v, ok := jsNumber(score)
		if score == nil || !ok || (f.hasMin && v < f.minScore) || (f.hasMax && v > f.maxScore) {
			return searchedSubmission{}, false
		}
	}
	k := rowKey(s, "id")
	if f.byRegrade && (total[k] > 0) != f.wantRegrade {
		return searchedSubmission{}, false
	}
	item := searchedSubmission{
		ID: numberOf(s.Value("id")), CreatedAt: stringOf(s.Value("created_at")), Ordinal: numberOf(s.Value("ordinal")),
		IsActive: boolOf(s.Value("is_active")), AssignmentGroupID: nullableNumber(s.Value("assignment_group_id")),
		Score: nullableNumber(score), MaxScore: nullableNumber(maxPts), AutograderStatus: state,
		RegradeRequests: total[k], OpenRegradeRequests: open[k],
	}
	if known {
		item.StudentProfileID, item.StudentName = nullableString(orNull(p.ID)), nullableString(orNull(p.Name))
	}
	return item, true
}
