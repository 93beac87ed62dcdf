package tools

// Help-queue tools: get_help_request (docs/contract/tools.md §2.1) and
// search_help_requests (§2.15).

import (
	"context"
	"math"

	"golang.org/x/sync/errgroup"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// unknownQueue is the queue name reported when the embedded queue has no
// (truthy) name (quirk 15).
const unknownQueue = "Unknown Queue"

// getHelpRequestTool is get_help_request.
var getHelpRequestTool = Tool{
	Name:        "get_help_request",
	Title:       "Get help request",
	Summary:     "Returns one office-hours help request with the student's question, the help queue, the linked assignment (with handout URL), the referenced and latest submissions, and the conversation messages.",
	Description: "Get a help request with full context including the student's question, linked assignment (with handout URL), submission details, and conversation messages.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"help_request_id": {"type": "number", "description": "The ID of the help request to fetch"},
			"class_id": {"type": "number", "description": "The class ID where the help request exists"}
		},
		"required": ["help_request_id", "class_id"]
	}`),
	Result:  getHelpRequestSchema,
	Scope:   ScopeRead,
	Handler: getHelpRequest,
}

// searchHelpRequestsTool is search_help_requests.
var searchHelpRequestsTool = Tool{
	Name:        "search_help_requests",
	Title:       "Search help requests",
	Summary:     "Returns a class's help requests, newest first, optionally only those of one assignment or status.",
	Description: "Search help requests in a class, optionally filtered by assignment or status.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID to search in"},
			"assignment_id": {"type": "number", "description": "Filter by assignment ID"},
			"status": {"type": "string", "description": "Filter by status"},
			"limit": {"type": "number", "description": "Maximum number of results", "default": 20}
		},
		"required": ["class_id"]
	}`),
	Result:  searchHelpRequestsSchema,
	Scope:   ScopeRead,
	Handler: searchHelpRequests,
}

// helpRequestSelect is the original's help request row. search adds the
// referenced submission when filtering by assignment.
const helpRequestSelect = "id, request, status, created_at, updated_at, created_by, referenced_submission_id, help_queues!inner(name)"

// helpMessageSelect is the original's message row; negotiated revisions
// also read instructors_only (docs/compatibility.md S31).
const helpMessageSelect = "id, message, created_at, author"

// getHelpRequest returns the help request with its student, referenced and
// latest submissions, assignment and messages, or nil.
//
// The original runs: request → student profile → (referenced submission ∥
// messages) → (assignment ∥ latest submission) → (message authors' profiles
// ∥ staff), seventeen requests ten deep. Here the request row embeds the
// referenced submission with its assignment, grader result and files, and
// the messages (same rows under the same RLS as the original's queries;
// helpRequestQuery); then the latest submission (which depends on the
// referenced one's assignment) and the one look-up of every profile the
// answer names run at once. Profiles come from the cache when the caller
// read them in the last five minutes, so a call is usually two requests.
//
// At negotiated revisions each message also says whether it is staff-only
// and whether the caller wrote it (S31); the caller's profiles are read
// alongside the request row, and a failure to read them is a
// ReadFailedError, since no message could then be said not to be the
// caller's.
func getHelpRequest(ctx context.Context, c *Call) (any, error) {
	requestID := arg(c.Args, "help_request_id")
	classID := arg(c.Args, "class_id")
	withFields := negotiated(ctx)
	var mine map[string]bool
	var mineErr error
	var g errgroup.Group
	if withFields {
		g.Go(func() error {
			mine, mineErr = c.callerProfileIDs(ctx, classID)
			return nil
		})
	}
	raw, err := c.helpRequestQuery(requestID, classID, withFields).Single(ctx)
	hr := c.pgObject(ctx, raw, err)
	_ = g.Wait()
	if hr == nil {
		return nil, nil
	}
	if mineErr != nil {
		return nil, mineErr
	}

	hc := c.readHelpContext(ctx, hr, classID)
	out := jsjson.NewObject(12).
		Set("id", hr.Value("id")).
		Set("request", hr.Value("request")).
		Set("status", hr.Value("status")).
		Set("created_at", hr.Value("created_at")).
		Set("updated_at", hr.Value("updated_at")).
		Set("assignment", hc.assignment).
		Set("submission", hc.submission).
		Set("latest_submission", hc.latest)
	setProfileFields(out, "student_profile_id", "student_name", hc.student, hc.studentFound)
	return out.
		Set("help_queue_name", queueName(hr)).
		Set("messages", hc.thread.values(withFields, mine)), nil
}

// helpRequestQuery reads the request row with, embedded, the referenced
// submission of the class (submissionSelect, its assignment record too)
// and up to maxRows messages, oldest first. withFields (negotiated
// revisions) also reads each message's instructors_only.
func (c *Call) helpRequestQuery(requestID, classID string, withFields bool) *postgrest.Query {
	msg := helpMessageSelect
	if withFields {
		msg += ", instructors_only"
	}
	q := c.DB.From("help_requests").
		Select(helpRequestSelect+
			", submissions!help_requests_referenced_submission_id_fkey("+submissionSelect(true)+
			", assignments!submissio_assignment_id_fkey("+assignmentColumns+"))"+
			", help_request_messages!help_request_messages_help_request_id_fkey("+msg+")").
		Eq("id", requestID).
		Eq("class_id", classID).
		Eq("submissions.class_id", classID)
	return withSubmissionEmbeds(q, "submissions.", classID).
		OrderIn("help_request_messages", "created_at", true).
		LimitIn("help_request_messages", maxRows)
}

// helpContext is what get_help_request answers besides the request row's
// own fields.
type helpContext struct {
	student                        publicProfile
	studentFound                   bool
	submission, assignment, latest any
	thread                         helpThread
}

// readHelpContext builds the answer's parts from the request row hr and
// runs the two reads that depend on it at once: the latest submission and
// the profiles of the student and the messages' authors (one look-up,
// which also gives the staff flags; the referenced submission embeds its
// student's). Reads never fail: a failed query reads as no rows.
func (c *Call) readHelpContext(ctx context.Context, hr *jsjson.Object, classID string) *helpContext {
	createdBy, _ := hr.String("created_by")
	refID := hr.Value("referenced_submission_id")
	ref, haveRef := hr.Object("submissions")
	haveRef = haveRef && ref != nil && jsjson.Truthy(refID)
	messages := embedRows(hr, "help_request_messages")

	ids := []string{createdBy}
	for _, m := range messages {
		if a, ok := m.String("author"); ok {
			ids = append(ids, a)
		}
	}
	hc := &helpContext{}
	if haveRef {
		// First, so the student's profile it embeds is cached for the
		// look-up below (usually the same person as the request's).
		hc.submission = c.buildSubmission(ref, classID, true, true)
		hc.assignment = embeddedAssignment(ref, c.Args.Value("class_id"))
	}
	var g errgroup.Group
	if aid, ok := ref.Get("assignment_id"); ok && haveRef && createdBy != "" {
		g.Go(func() error {
			hc.latest = c.latestOtherSubmission(ctx, createdBy, jsString(aid, true), classID, refID)
			return nil
		})
	}
	if createdBy == "" {
		ids = ids[1:]
	}
	profiles := c.publicProfiles(ctx, classID, ids)
	_ = g.Wait()
	if createdBy != "" {
		hc.student, hc.studentFound = profiles[createdBy]
	}
	hc.thread = helpThread{authoredRowsOf(messages, profiles)}
	return hc
}

// helpThread is a help request's messages, oldest first, with their
// authors' public profiles and staff flags.
type helpThread struct{ authoredRows }

// values are the thread's messages as the tool returns them. withFields
// (negotiated revisions) adds instructors_only (the row's) and is_caller
// (the author is one of mine, the caller's own profiles in the class).
func (th helpThread) values(withFields bool, mine map[string]bool) []any {
	messages := make([]any, 0, len(th.rows))
	for _, m := range th.rows {
		author, _ := m.String("author")
		msg := jsjson.NewObject(7).
			Set("id", m.Value("id")).
			Set("content", m.Value("message")).
			Set("created_at", m.Value("created_at")).
			Set("author_name", profileName(th.profiles, author)).
			Set("is_staff", author != "" && th.staff[author])
		if withFields {
			staffOnly, _ := m.Value("instructors_only").(bool)
			msg.Set("instructors_only", staffOnly).
				Set("is_caller", author != "" && mine[author])
		}
		messages = append(messages, msg)
	}
	return messages
}

// callerProfileIDs returns the caller's own private and public profile ids
// in the class (every user_roles row of the caller there, whatever its
// role or state), read as the caller. A failed read is a ReadFailedError.
func (c *Call) callerProfileIDs(ctx context.Context, classID string) (map[string]bool, error) {
	raw, err := c.DB.From("user_roles").
		Select("private_profile_id, public_profile_id").
		Eq("user_id", c.DB.UserID()).
		Eq("class_id", classID).
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, &ReadFailedError{What: readWhat("user_roles")}
	}
	mine := make(map[string]bool, 2*len(rows))
	for _, r := range rows {
		for _, col := range []string{"private_profile_id", "public_profile_id"} {
			if id, ok := r.String(col); ok && id != "" {
				mine[id] = true
			}
		}
	}
	return mine, nil
}

// latestOtherSubmission is §1.12 for get_help_request: S of the student's
// newest submission for the assignment, or nil when there is none or it is
// the referenced submission (which the original built and then dropped).
// Its id comes first (latestSubmissionForStudent says why), so a latest
// submission that is the referenced one costs no second request.
func (c *Call) latestOtherSubmission(ctx context.Context, privateProfileID, assignmentID, classID string, referencedID any) any {
	id := c.latestSubmissionID(ctx, privateProfileID, assignmentID, classID)
	if id == nil || jsStrictEqual(id, referencedID) {
		return nil
	}
	return c.submissionContext(ctx, jsString(id, true), classID, true, true)
}

// searchHelpRequests lists a class's help requests, newest first.
//
// Deviation (quirk 12): the original fetched one page and then kept the
// requests whose referenced submission belongs to the assignment, so fewer
// than `limit` could come back while more existed. Here the referenced
// submission is embedded with !inner and filtered in the same query, so the
// limit applies after the filter. The embed reads submissions under the
// caller's RLS without a class filter, exactly like the original's second
// query.
func searchHelpRequests(ctx context.Context, c *Call) (any, error) {
	empty := []any{}
	limit, ok := searchLimit(c.Args)
	if !ok {
		return empty, nil
	}
	classID := arg(c.Args, "class_id")
	assignmentID, _ := c.Args.Get("assignment_id")
	status, _ := c.Args.Get("status")

	sel := helpRequestSelect
	if jsjson.Truthy(assignmentID) {
		sel += ", submissions!help_requests_referenced_submission_id_fkey!inner(assignment_id)"
	}
	q := c.DB.From("help_requests").Select(sel).
		Eq("class_id", classID).
		Order("created_at", false).
		Limit(limit)
	if jsjson.Truthy(status) {
		q = q.Eq("status", arg(c.Args, "status"))
	}
	if jsjson.Truthy(assignmentID) {
		q = q.Eq("submissions.assignment_id", arg(c.Args, "assignment_id"))
	}
	raw, err := q.Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return empty, nil
	}

	creators := make([]string, 0, len(rows))
	for _, r := range rows {
		if id, ok := r.String("created_by"); ok {
			creators = append(creators, id)
		}
	}
	profiles := c.publicProfiles(ctx, classID, creators)

	out := make([]any, 0, len(rows))
	for _, r := range rows {
		creator, _ := r.String("created_by")
		p, found := profiles[creator]
		item := jsjson.NewObject(9).
			Set("id", r.Value("id")).
			Set("request", r.Value("request")).
			Set("status", r.Value("status")).
			Set("created_at", r.Value("created_at")).
			Set("updated_at", r.Value("updated_at"))
		setProfileFields(item, "student_profile_id", "student_name", p, found && creator != "")
		out = append(out, item.
			Set("help_queue_name", queueName(r)).
			Set("has_submission", jsjson.Truthy(r.Value("referenced_submission_id"))))
	}
	return out, nil
}

// queueName is the embedded help queue's name, or "Unknown Queue".
func queueName(row *jsjson.Object) any {
	q, _ := row.Object("help_queues")
	if name := q.Value("name"); jsjson.Truthy(name) {
		return name
	}
	return unknownQueue
}

// setProfileFields sets the `<x>_profile_id` and `<x>_name` pair the way
// the original's `profile?.publicProfileId || null` and
// `profile?.publicName || null` do.
func setProfileFields(o *jsjson.Object, idKey, nameKey string, p publicProfile, found bool) {
	var id, name any
	if found {
		if p.ID != "" {
			id = p.ID
		}
		if jsjson.Truthy(p.Name) {
			name = p.Name
		}
	}
	o.Set(idKey, id).Set(nameKey, name)
}

// profileName is `profiles.get(id)?.publicName || null`.
func profileName(profiles map[string]publicProfile, id string) any {
	if id == "" {
		return nil
	}
	if p, ok := profiles[id]; ok && jsjson.Truthy(p.Name) {
		return p.Name
	}
	return nil
}

// jsStrictEqual is JavaScript's === for decoded JSON scalars.
func jsStrictEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// searchLimit is the search tools' `Math.min(limit || 20, MAX_ROWS)`. ok is
// false for a negative limit (PostgREST refuses its range, so the original
// answers []) and for a fractional one (PostgREST ignores it and the
// original fetches a whole page: docs/compatibility.md Q16); no request is
// sent for either.
func searchLimit(args *jsjson.Object) (int, bool) {
	n := 20.0
	if v, _ := args.Get("limit"); jsjson.Truthy(v) {
		f, isNum := v.(float64)
		if !isNum {
			return 0, false
		}
		n = math.Min(f, maxRows)
	}
	if n < 0 || n != math.Trunc(n) {
		return 0, false
	}
	return int(n), true
}
