package tools

// Discussion tools: get_discussion_thread (docs/contract/tools.md §2.2) and
// search_discussion_threads (§2.16).

import (
	"context"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// replyLimit is the number of replies get_discussion_thread returns.
const replyLimit = 50

// getDiscussionThreadTool is get_discussion_thread.
var getDiscussionThreadTool = Tool{
	Name:        "get_discussion_thread",
	Title:       "Get discussion thread",
	Summary:     "Returns one discussion thread with its question, author, linked assignment (with handout URL), the author's latest submission and the replies.",
	Description: "Get a discussion thread with full context including the question, assignment (with handout URL), and replies.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"thread_id": {"type": "number", "description": "The ID of the discussion thread to fetch"},
			"class_id": {"type": "number", "description": "The class ID where the thread exists"},
			"include_replies": {"type": "boolean", "description": "Whether to include replies", "default": true}
		},
		"required": ["thread_id", "class_id"]
	}`),
	Result:  getDiscussionThreadSchema,
	Scope:   ScopeRead,
	Handler: getDiscussionThread,
}

// searchDiscussionThreadsTool is search_discussion_threads.
var searchDiscussionThreadsTool = Tool{
	Name:        "search_discussion_threads",
	Title:       "Search discussion threads",
	Summary:     "Returns a class's discussion threads, newest first, optionally only those of one assignment, only questions, or those matching a text query.",
	Description: "Search discussion threads in a class, optionally filtered by assignment, question status, or search query.",
	InputSchema: mustSchema(`{
		"type": "object",
		"properties": {
			"class_id": {"type": "number", "description": "The class ID to search in"},
			"assignment_id": {"type": "number", "description": "Filter by assignment ID"},
			"is_question": {"type": "boolean", "description": "Filter to only questions"},
			"search_query": {"type": "string", "description": "Search query for subject/body"},
			"limit": {"type": "number", "description": "Maximum number of results", "default": 20}
		},
		"required": ["class_id"]
	}`),
	Result:  searchDiscussionThreadsSchema,
	Scope:   ScopeRead,
	Handler: searchDiscussionThreads,
}

// threadSelect is the thread row both tools read.
const threadSelect = "id, subject, body, created_at, updated_at, is_question, children_count, author, answer, topic_id"

// getDiscussionThread returns the thread with its author, assignment, the
// author's latest submission and up to 50 replies, or nil.
//
// The original translates the author before starting the other look-ups
// and reads the assignment with a query of its own, twelve requests six
// deep. Here the thread row embeds the topic's assignment record (same row
// under the same RLS), the latest submission is one request, and every
// profile the answer names is one look-up (readThreadContext).
func getDiscussionThread(ctx context.Context, c *Call) (any, error) {
	threadID := arg(c.Args, "thread_id")
	classID := arg(c.Args, "class_id")
	raw, err := c.DB.From("discussion_threads").
		Select(threadSelect+", discussion_topics!inner(assignment_id, assignments!discussion_topics_assignment_id_fkey("+assignmentColumns+"))").
		Eq("id", threadID).
		Eq("class_id", classID).
		Single(ctx)
	thread := c.pgObject(ctx, raw, err)
	if thread == nil {
		return nil, nil
	}
	tc := c.readThreadContext(ctx, thread, threadID, classID)
	out := jsjson.NewObject(12).
		Set("id", thread.Value("id")).
		Set("subject", thread.Value("subject")).
		Set("body", thread.Value("body")).
		Set("created_at", thread.Value("created_at")).
		Set("updated_at", thread.Value("updated_at")).
		Set("is_question", thread.Value("is_question")).
		Set("children_count", thread.Value("children_count"))
	setProfileFields(out, "author_profile_id", "author_name", tc.author, tc.authorFound)
	return out.
		Set("assignment", tc.assignment).
		Set("latest_submission", tc.latest).
		Set("replies", tc.replies.values(thread.Value("answer"))), nil
}

// threadContext is what get_discussion_thread reads after the thread row.
type threadContext struct {
	author             publicProfile
	authorFound        bool
	assignment, latest any
	replies            authoredRows
}

// readThreadContext runs the reads after the thread row: the author's
// latest submission (one request with its embeds) alongside the replies,
// then one look-up of the author's and the replies' authors' profiles
// (names and staff flags; usually from the cache). Reads never fail: a
// failed query reads as no rows.
func (c *Call) readThreadContext(ctx context.Context, thread *jsjson.Object, threadID, classID string) *threadContext {
	topic, _ := thread.Object("discussion_topics")
	topicAssignment := topic.Value("assignment_id")
	author, _ := thread.String("author")
	includeReplies := true
	if v, ok := c.Args.Get("include_replies"); ok && v == false {
		includeReplies = false
	}
	children, _ := thread.Number("children_count")

	tc := &threadContext{}
	var g errgroup.Group
	if jsjson.Truthy(topicAssignment) {
		aid := jsString(topicAssignment, true)
		tc.assignment = embeddedAssignment(topic, c.Args.Value("class_id"))
		if author != "" {
			g.Go(func() error {
				tc.latest = c.latestSubmissionForStudent(ctx, author, aid, classID, true)
				return nil
			})
		}
	}
	var replies []*jsjson.Object
	if includeReplies && children > 0 {
		replies = c.threadReplies(ctx, threadID, classID)
	}
	var ids []string
	if author != "" {
		ids = append(ids, author)
	}
	ids = append(ids, authorsOf(replies)...)
	profiles := c.publicProfiles(ctx, classID, ids)
	_ = g.Wait()
	tc.author, tc.authorFound = profiles[author]
	tc.authorFound = tc.authorFound && author != ""
	tc.replies = authoredRowsOf(replies, profiles)
	return tc
}

// authoredRows are rows with an author column (a thread's replies, a help
// request's messages) and their authors' public profiles and staff flags.
type authoredRows struct {
	rows     []*jsjson.Object
	profiles map[string]publicProfile
	staff    map[string]bool
}

// authorsOf lists the rows' author column values.
func authorsOf(rows []*jsjson.Object) []string {
	authors := make([]string, 0, len(rows))
	for _, r := range rows {
		if a, ok := r.String("author"); ok {
			authors = append(authors, a)
		}
	}
	return authors
}

// authoredRowsOf pairs rows with the profiles of a look-up that included
// their authors; the staff flags come from the same profiles.
func authoredRowsOf(rows []*jsjson.Object, profiles map[string]publicProfile) authoredRows {
	ar := authoredRows{rows: rows, profiles: profiles, staff: map[string]bool{}}
	for id, p := range profiles {
		if p.staff {
			ar.staff[id] = true
		}
	}
	return ar
}

// threadReplies reads up to replyLimit replies of a thread, oldest first.
func (c *Call) threadReplies(ctx context.Context, threadID, classID string) []*jsjson.Object {
	raw, err := c.DB.From("discussion_threads").
		Select("id, body, created_at, author").
		Eq("root", threadID).
		Eq("class_id", classID).
		Order("created_at", true).
		Limit(replyLimit).
		Rows(ctx)
	rows, _ := c.pgRows(ctx, raw, err)
	return rows
}

// values are the replies as the tool returns them; answer is the thread's
// accepted reply id.
func (ar authoredRows) values(answer any) []any {
	replies := make([]any, 0, len(ar.rows))
	for _, r := range ar.rows {
		author, _ := r.String("author")
		replies = append(replies, jsjson.NewObject(6).
			Set("id", r.Value("id")).
			Set("body", r.Value("body")).
			Set("created_at", r.Value("created_at")).
			Set("author_name", profileName(ar.profiles, author)).
			Set("is_staff", author != "" && ar.staff[author]).
			Set("is_answer", jsStrictEqual(answer, r.Value("id"))))
	}
	return replies
}

// searchDiscussionThreads lists a class's top-level threads, newest first.
//
// The original first lists the assignment's topics (class and assignment
// filter) and then filters threads by topic_id=in.(…). Here the topic is
// embedded with !inner and filtered in the thread query itself: same rows
// under the same RLS, one round trip fewer.
//
// Deviation (quirk 8): the original's search text was only half escaped, so
// `,` or `)` broke the filter (→ []) and `*` acted as a wildcard. See
// searchFilter.
func searchDiscussionThreads(ctx context.Context, c *Call) (any, error) {
	empty := []any{}
	limit, ok := searchLimit(c.Args)
	if !ok {
		return empty, nil
	}
	classID := arg(c.Args, "class_id")
	assignmentID, _ := c.Args.Get("assignment_id")

	sel := threadSelect
	if jsjson.Truthy(assignmentID) {
		sel += ", discussion_topics!inner(id)"
	}
	q := c.DB.From("discussion_threads").Select(sel).
		Eq("class_id", classID).
		Is("parent", "null").
		Order("created_at", false).
		Limit(limit)
	if jsjson.Truthy(assignmentID) {
		q = q.Eq("discussion_topics.class_id", classID).
			Eq("discussion_topics.assignment_id", arg(c.Args, "assignment_id"))
	}
	if _, present := c.Args.Get("is_question"); present {
		// Sent whenever the argument is present, so null fails the
		// boolean cast and the tool answers [] (quirk 13).
		q = q.Eq("is_question", arg(c.Args, "is_question"))
	}
	if s, _ := c.Args.String("search_query"); s != "" {
		q = q.Or(searchFilter(s))
	}
	raw, err := q.Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return empty, nil
	}

	authors := make([]string, 0, len(rows))
	for _, r := range rows {
		if a, ok := r.String("author"); ok {
			authors = append(authors, a)
		}
	}
	profiles := c.publicProfiles(ctx, classID, authors)

	out := make([]any, 0, len(rows))
	for _, r := range rows {
		author, _ := r.String("author")
		p, found := profiles[author]
		item := jsjson.NewObject(10).
			Set("id", r.Value("id")).
			Set("subject", r.Value("subject")).
			Set("body", r.Value("body")).
			Set("created_at", r.Value("created_at")).
			Set("updated_at", r.Value("updated_at")).
			Set("is_question", r.Value("is_question")).
			Set("children_count", r.Value("children_count"))
		setProfileFields(item, "author_profile_id", "author_name", p, found && author != "")
		out = append(out, item.Set("has_answer", r.Value("answer") != nil))
	}
	return out, nil
}

// searchFilter is the or=(…) filter matching text anywhere in the subject or
// body, case-insensitively and literally.
//
// Every value is double-quoted, so PostgREST's logic-tree parser reads `,`
// `.` `(` `)` as text; inside quotes `\` and `"` are escaped with `\`.
// Without `*` the pattern is ILIKE '%text%' with the LIKE escape `\` before
// `\`, `%` and `_`, exactly the original's matching. PostgREST rewrites
// every `*` of a like/ilike value into `%` and offers no escape for it (a
// `\*` would become `\%`, a literal percent sign), so text containing `*`
// is matched with imatch (PostgreSQL's case-insensitive regex `~*`) instead,
// with every regex metacharacter backslash-escaped; PostgREST passes imatch
// values through unchanged.
func searchFilter(text string) string {
	var v string
	op := "ilike"
	if strings.Contains(text, "*") {
		op = "imatch"
		v = quoteFilterValue(escapeRegex(text))
	} else {
		v = quoteFilterValue("%" + escapeLike(text) + "%")
	}
	return "subject." + op + "." + v + ",body." + op + "." + v
}

// escapeLike makes text literal inside a LIKE pattern whose escape
// character is the default backslash.
func escapeLike(text string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(text)
}

// escapeRegex makes text literal inside a PostgreSQL ARE: a backslash
// before a non-alphanumeric character stands for that character. Escaping
// `*` and `(` also rules out the `***:`/`***=` directors and embedded
// options.
func escapeRegex(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ { // bytes: the metacharacters are ASCII
		if strings.IndexByte(`\^$.|?*+()[]{}`, text[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// quoteFilterValue double-quotes v for PostgREST's logic-tree grammar.
func quoteFilterValue(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ { // bytes, so text is passed through unchanged
		if v[i] == '"' || v[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
	return b.String()
}
