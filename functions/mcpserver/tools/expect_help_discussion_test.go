package tools

import (
	"fmt"
	"strconv"
	"testing"
)

// Expectations for the help-request and discussion tools (see
// expect_test.go for how they are made).

// sqlIsStaff says whether profile expression p is an instructor's or a
// grader's private profile in class expression c (docs/contract/tools.md
// §1.4: disabled rows count).
func sqlIsStaff(p, c string) string {
	return fmt.Sprintf(`EXISTS (SELECT 1 FROM public.user_roles ur WHERE ur.private_profile_id = %s
		AND ur.class_id = %s AND ur.role IN ('instructor', 'grader'))`, p, c)
}

// sqlLatestSubmission is the id of the newest submission of private profile
// p for assignment a in class c (docs/contract/tools.md §1.12), or NULL.
func sqlLatestSubmission(p, a, c string) string {
	return fmt.Sprintf(`(SELECT s.id FROM public.submissions s WHERE s.profile_id = %s AND s.assignment_id = %s
		AND s.class_id = %s ORDER BY s.created_at DESC LIMIT 1)`, p, a, c)
}

// expectSubmissionContext checks a full submission context (tests with
// output and file contents, as get_help_request and get_discussion_thread
// return it) for submission id in class.
func expectSubmissionContext(t *testing.T, what string, id any, class int, got any) {
	t.Helper()
	want := seedJSON(t, sqlSubmission, id, class).(map[string]any)
	delete(want, "file_count")
	delete(want, "file_names")
	expectEqual(t, what, want, pick(got, "id", "assignment_id", "created_at", "sha", "repository", "ordinal",
		"is_active", "student_profile_id", "student_name"))
	expectEqual(t, what+" files", seedJSON(t, fmt.Sprintf(sqlFiles, ""), id, class), field(got, "files"))
	if g := field(got, "grader_result"); g != nil {
		expectEqual(t, what+" tests", seedJSON(t, sqlTests, id, class), field(g, "tests"))
	}
}

func TestExpectGetHelpRequest(t *testing.T) {
	sqlRequest := `SELECT json_build_object('id', h.id, 'request', h.request, 'status', h.status,
		'created_at', h.created_at, 'updated_at', h.updated_at,
		'student_profile_id', ` + publicID("h.created_by", "h.class_id") + `,
		'student_name', ` + publicName("h.created_by", "h.class_id") + `,
		'help_queue_name', coalesce(nullif(q.name, ''), 'Unknown Queue'),
		'submission_id', (SELECT s.id FROM public.submissions s WHERE s.id = h.referenced_submission_id AND s.class_id = h.class_id),
		'created_by', h.created_by)
		FROM public.help_requests h JOIN public.help_queues q ON q.id = h.help_queue WHERE h.id = $1 AND h.class_id = $2`
	sqlMessages := `SELECT coalesce(json_agg(json_build_object('id', m.id, 'content', m.message, 'created_at', m.created_at,
		'author_name', ` + publicName("m.author", "h.class_id") + `,
		'is_staff', ` + sqlIsStaff("m.author", "h.class_id") + `) ORDER BY m.created_at, m.id), '[]')
		FROM public.help_request_messages m JOIN public.help_requests h ON h.id = m.help_request_id WHERE m.help_request_id = $1`
	for _, v := range staffView {
		for _, id := range seedIDs(t, `SELECT id FROM public.help_requests WHERE class_id = $1 ORDER BY id`, v.class) {
			t.Run(fmt.Sprintf("class_%d_request_%v", v.class, id), func(t *testing.T) {
				got := toolJSON(t, nil, v.user, "get_help_request", fmt.Sprintf(`{"help_request_id":%v,"class_id":%d}`, id, v.class))
				row := seedJSON(t, sqlRequest, id, v.class).(map[string]any)
				subID, createdBy := row["submission_id"], row["created_by"]
				delete(row, "submission_id")
				delete(row, "created_by")
				expectEqual(t, "request", row, pick(got, "id", "request", "status", "created_at", "updated_at",
					"student_profile_id", "student_name", "help_queue_name"))
				expectEqual(t, "messages", seedJSON(t, sqlMessages, id), field(got, "messages"))

				sub := field(got, "submission")
				if subID == nil {
					expectEqual(t, "submission, assignment, latest", map[string]any{"submission": nil, "assignment": nil, "latest_submission": nil},
						pick(got, "submission", "assignment", "latest_submission"))
					return
				}
				expectSubmissionContext(t, "submission", subID, v.class, sub)
				assignment := field(sub, "assignment_id")
				expectEqual(t, "assignment", seedJSON(t, sqlAssignment, assignment, v.class), field(got, "assignment"))
				var wantLatest any
				if createdBy != nil {
					wantLatest = seedJSON(t, `SELECT to_json(`+sqlLatestSubmission("$1::uuid", "$2::bigint", "$3::bigint")+`)`, createdBy, assignment, v.class)
				}
				if wantLatest == subID { // the referenced submission is the latest
					wantLatest = nil
				}
				latest := field(got, "latest_submission")
				expectEqual(t, "latest submission id", wantLatest, field(latest, "id"))
				if latest != nil {
					expectSubmissionContext(t, "latest submission", wantLatest, v.class, latest)
				}
			})
		}
	}
	for _, tc := range []struct{ name, user, args string }{
		{"not_found", userAlice, `{"help_request_id":999,"class_id":1}`},
		{"class_2_request_under_class_1", userAlice, `{"help_request_id":6,"class_id":1}`},
		{"other_class_not_member", userAlice, `{"help_request_id":6,"class_id":2}`},
		// SEED.md: request 4 is Sofia's private request; Sam sees 1, 2, 3, 5.
		{"private_request_of_another_student", userSam, `{"help_request_id":4,"class_id":1}`},
		{"no_enrolment", userNora, `{"help_request_id":1,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", nil, toolJSON(t, nil, tc.user, "get_help_request", tc.args))
		})
	}
}

// TestExpectGetHelpRequestNegotiated: at a negotiated revision each message
// also carries instructors_only, as stored, and is_caller, whether its
// author is one of the caller's own profiles (private or public) in the
// class (docs/compatibility.md S31), for every request a staff member and a
// student of each class can read.
func TestExpectGetHelpRequestNegotiated(t *testing.T) {
	// The other fields are TestExpectGetHelpRequest's (names depend on
	// what the caller may read of user_roles).
	sqlMessages := `SELECT coalesce(json_agg(json_build_object('id', m.id,
		'instructors_only', m.instructors_only,
		'is_caller', EXISTS (SELECT 1 FROM public.user_roles ur WHERE ur.user_id = $2 AND ur.class_id = h.class_id
			AND m.author IN (ur.private_profile_id, ur.public_profile_id))) ORDER BY m.created_at, m.id), '[]')
		FROM public.help_request_messages m JOIN public.help_requests h ON h.id = m.help_request_id WHERE m.help_request_id = $1`
	// SEED.md: Alice and Gary teach class 1, Bea and Tara class 2; Sam
	// (a student of class 1) reads requests 1, 2, 3 and 5.
	callers := []struct {
		user     string
		class    int
		requests string
	}{
		{userAlice, 1, `SELECT id FROM public.help_requests WHERE class_id = 1 ORDER BY id`},
		{userGary, 1, `SELECT id FROM public.help_requests WHERE class_id = 1 ORDER BY id`},
		{userSam, 1, `SELECT id FROM public.help_requests WHERE id IN (1, 2, 3, 5) ORDER BY id`},
		{userBea, 2, `SELECT id FROM public.help_requests WHERE class_id = 2 ORDER BY id`},
		{userTara, 2, `SELECT id FROM public.help_requests WHERE class_id = 2 ORDER BY id`},
	}
	for _, c := range callers {
		for _, id := range seedIDs(t, c.requests) {
			t.Run(fmt.Sprintf("%s_request_%v", c.user, id), func(t *testing.T) {
				got := toolJSONNegotiated(t, c.user, "get_help_request", fmt.Sprintf(`{"help_request_id":%v,"class_id":%d}`, id, c.class))
				expectEqual(t, "messages", seedJSON(t, sqlMessages, id, c.user), pickEach(field(got, "messages"), "id", "instructors_only", "is_caller"))
			})
		}
	}
	// The seed holds what the markers are for (SEED.md): request 1's
	// message 4 is Alice's and staff-only; Sam wrote messages 1 (private
	// profile) and 3 (public profile).
	for _, tc := range []struct {
		user                string
		staffOnly, isCaller []any
	}{
		{userAlice, []any{false, false, false, true}, []any{false, false, false, true}},
		{userSam, []any{false, false, false, true}, []any{true, false, true, false}},
		{userGary, []any{false, false, false, true}, []any{false, true, false, false}},
	} {
		t.Run("request_1_markers_"+tc.user, func(t *testing.T) {
			messages := field(toolJSONNegotiated(t, tc.user, "get_help_request", `{"help_request_id":1,"class_id":1}`), "messages")
			expectEqual(t, "message ids", nums(1, 2, 3, 4), pluck(messages, "id"))
			expectEqual(t, "instructors_only", tc.staffOnly, pluck(messages, "instructors_only"))
			expectEqual(t, "is_caller", tc.isCaller, pluck(messages, "is_caller"))
		})
	}
}

// TestExpectSearchHelpRequests includes quirk Q12: the assignment filter
// runs in the query, so the limit counts matching requests.
func TestExpectSearchHelpRequests(t *testing.T) {
	sqlSearch := `SELECT coalesce(json_agg(json_build_object('id', h.id, 'request', h.request, 'status', h.status,
		'created_at', h.created_at, 'updated_at', h.updated_at,
		'student_profile_id', ` + publicID("h.created_by", "h.class_id") + `,
		'student_name', ` + publicName("h.created_by", "h.class_id") + `,
		'help_queue_name', coalesce(nullif(h.queue, ''), 'Unknown Queue'),
		'has_submission', h.referenced_submission_id IS NOT NULL) ORDER BY h.created_at DESC), '[]')
		FROM (SELECT h.*, q.name AS queue FROM public.help_requests h JOIN public.help_queues q ON q.id = h.help_queue
			WHERE h.class_id = 1 AND %s ORDER BY h.created_at DESC LIMIT %d) h`
	const ofAssignment = `EXISTS (SELECT 1 FROM public.submissions s WHERE s.id = h.referenced_submission_id AND s.assignment_id = %d)`
	for _, tc := range []struct {
		name, args, where string
		limit             int
	}{
		{"all", `{"class_id":1}`, "true", 20},
		{"limit_2", `{"class_id":1,"limit":2}`, "true", 2},
		{"limit_0_means_20", `{"class_id":1,"limit":0}`, "true", 20},
		{"status_open", `{"class_id":1,"status":"open"}`, "h.status = 'open'", 20},
		{"status_empty_is_no_filter", `{"class_id":1,"status":""}`, "true", 20},
		{"assignment_1", `{"class_id":1,"assignment_id":1}`, fmt.Sprintf(ofAssignment, 1), 20},
		{"assignment_2", `{"class_id":1,"assignment_id":2}`, fmt.Sprintf(ofAssignment, 2), 20},
		{"assignment_1_limit_1", `{"class_id":1,"assignment_id":1,"limit":1}`, fmt.Sprintf(ofAssignment, 1), 1},
		{"assignment_and_status", `{"class_id":1,"assignment_id":1,"status":"closed"}`, "h.status = 'closed' AND " + fmt.Sprintf(ofAssignment, 1), 20},
		{"assignment_of_another_class", `{"class_id":1,"assignment_id":5}`, fmt.Sprintf(ofAssignment, 5), 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := toolJSON(t, nil, userAlice, "search_help_requests", tc.args)
			expectEqual(t, "requests", seedJSON(t, fmt.Sprintf(sqlSearch, tc.where, tc.limit)), got)
		})
	}
	// SEED.md: Sam sees requests 1, 2, 3 and 5 of class 1 (his own, and
	// the public ones); the order is the database's.
	t.Run("as_student", func(t *testing.T) {
		want := seedIDs(t, `SELECT id FROM public.help_requests WHERE class_id = 1 AND id IN (1, 2, 3, 5) ORDER BY created_at DESC`)
		expectEqual(t, "ids", want, pluck(toolJSON(t, nil, userSam, "search_help_requests", `{"class_id":1}`), "id"))
	})
	// Q12 in the seed: the newest request (5) references assignment 2, so
	// a one-row page filtered afterwards would have been empty.
	t.Run("assignment_1_limit_1_is_not_empty", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "search_help_requests", `{"class_id":1,"assignment_id":1,"limit":1}`)
		if len(pluck(got, "id")) != 1 {
			t.Errorf("got %v, want one request", pluck(got, "id"))
		}
	})
	for _, tc := range []struct{ name, user, args string }{
		{"other_class_not_member", userAlice, `{"class_id":2}`},
		{"no_enrolment", userNora, `{"class_id":1}`},
		{"status_unknown", userAlice, `{"class_id":1,"status":"bogus"}`},
		{"limit_negative", userAlice, `{"class_id":1,"limit":-1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", []any{}, toolJSON(t, nil, tc.user, "search_help_requests", tc.args))
		})
	}
}

func TestExpectGetDiscussionThread(t *testing.T) {
	sqlThread := `SELECT json_build_object('id', d.id, 'subject', d.subject, 'body', d.body,
		'created_at', d.created_at, 'updated_at', d.updated_at, 'is_question', d.is_question,
		'children_count', d.children_count,
		'author_profile_id', ` + publicID("d.author", "d.class_id") + `,
		'author_name', ` + publicName("d.author", "d.class_id") + `,
		'topic_assignment', tp.assignment_id,
		'latest', ` + sqlLatestSubmission("d.author", "tp.assignment_id", "d.class_id") + `)
		FROM public.discussion_threads d JOIN public.discussion_topics tp ON tp.id = d.topic_id
		WHERE d.id = $1 AND d.class_id = $2`
	// Replies are every row whose root is the thread (docs/contract/tools.md
	// §2.2 step 3): its descendants and, since production's trigger sets
	// root = id on a top-level thread, the thread itself; oldest first, at
	// most 50.
	sqlReplies := `SELECT coalesce(json_agg(json_build_object('id', r.id, 'body', r.body, 'created_at', r.created_at,
		'author_name', ` + publicName("r.author", "r.class_id") + `,
		'is_staff', ` + sqlIsStaff("r.author", "r.class_id") + `,
		'is_answer', coalesce(d.answer = r.id, false)) ORDER BY r.created_at, r.id), '[]')
		FROM (SELECT * FROM public.discussion_threads r WHERE r.root = $1 AND r.class_id = $2
			ORDER BY r.created_at, r.id LIMIT 50) r
		JOIN public.discussion_threads d ON d.id = $1`
	for _, v := range staffView {
		for _, id := range seedIDs(t, `SELECT id FROM public.discussion_threads WHERE class_id = $1 AND (parent IS NULL OR id < 1000) ORDER BY id`, v.class) {
			t.Run(fmt.Sprintf("class_%d_thread_%v", v.class, id), func(t *testing.T) {
				got := toolJSON(t, nil, v.user, "get_discussion_thread", fmt.Sprintf(`{"thread_id":%v,"class_id":%d}`, id, v.class))
				row := seedJSON(t, sqlThread, id, v.class).(map[string]any)
				assignment, latest := row["topic_assignment"], row["latest"]
				delete(row, "topic_assignment")
				delete(row, "latest")
				expectEqual(t, "thread", row, pick(got, "id", "subject", "body", "created_at", "updated_at",
					"is_question", "children_count", "author_profile_id", "author_name"))
				var wantAssignment any
				if assignment != nil {
					wantAssignment = seedJSON(t, sqlAssignment, assignment, v.class)
				}
				expectEqual(t, "assignment", wantAssignment, field(got, "assignment"))
				expectEqual(t, "latest submission id", latest, field(field(got, "latest_submission"), "id"))
				if latest != nil {
					expectSubmissionContext(t, "latest submission", latest, v.class, field(got, "latest_submission"))
				}
				wantReplies := []any{}
				if row["children_count"].(float64) > 0 {
					wantReplies = seedJSON(t, sqlReplies, id, v.class).([]any)
				}
				expectEqual(t, "replies", wantReplies, field(got, "replies"))

				got = toolJSON(t, nil, v.user, "get_discussion_thread", fmt.Sprintf(`{"thread_id":%v,"class_id":%d,"include_replies":false}`, id, v.class))
				expectEqual(t, "replies when not asked for", []any{}, field(got, "replies"))
			})
		}
	}
	// Stable facts of SEED.md: thread 1's accepted answer is reply 3;
	// thread 8 has 60 replies; the 50 oldest rows whose root is 8 come back,
	// and the first of them is thread 8 itself (root = id, as production's
	// trigger sets it), so replies 1001 … 1049 follow it.
	t.Run("accepted_answer", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_discussion_thread", `{"thread_id":1,"class_id":1}`)
		var answers []any
		for _, r := range field(got, "replies").([]any) {
			if field(r, "is_answer") == true {
				answers = append(answers, field(r, "id"))
			}
		}
		expectEqual(t, "answers", nums(3), answers)
	})
	t.Run("reply_limit", func(t *testing.T) {
		got := toolJSON(t, nil, userAlice, "get_discussion_thread", `{"thread_id":8,"class_id":1}`)
		replies := pluck(field(got, "replies"), "id")
		if len(replies) != 50 || replies[0] != 8.0 || replies[1] != 1001.0 || replies[49] != 1049.0 {
			t.Errorf("replies %v, want 8, 1001 … 1049", replies)
		}
	})
	for _, tc := range []struct{ name, user, args string }{
		{"not_found", userAlice, `{"thread_id":999999,"class_id":1}`},
		{"class_2_thread_under_class_1", userAlice, `{"thread_id":9,"class_id":1}`},
		{"other_class_not_member", userAlice, `{"thread_id":9,"class_id":2}`},
		// SEED.md: Sam cannot see the instructors-only thread 6.
		{"instructors_only_as_student", userSam, `{"thread_id":6,"class_id":1}`},
		{"no_enrolment", userNora, `{"thread_id":1,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", nil, toolJSON(t, nil, tc.user, "get_discussion_thread", tc.args))
		})
	}
}

func TestExpectSearchDiscussionThreads(t *testing.T) {
	sqlSearch := `SELECT coalesce(json_agg(json_build_object('id', d.id, 'subject', d.subject, 'body', d.body,
		'created_at', d.created_at, 'updated_at', d.updated_at, 'is_question', d.is_question,
		'children_count', d.children_count,
		'author_profile_id', ` + publicID("d.author", "d.class_id") + `,
		'author_name', ` + publicName("d.author", "d.class_id") + `,
		'has_answer', d.answer IS NOT NULL) ORDER BY d.created_at DESC), '[]')
		FROM (SELECT * FROM public.discussion_threads d WHERE d.class_id = 1 AND d.parent IS NULL AND %s
			ORDER BY d.created_at DESC LIMIT %d) d`
	const ofAssignment = `d.topic_id IN (SELECT id FROM public.discussion_topics WHERE class_id = 1 AND assignment_id = %d)`
	const matches = `(d.subject ILIKE %[1]s OR d.body ILIKE %[1]s)`
	for _, tc := range []struct {
		name, args, where string
		limit             int
	}{
		{"all", `{"class_id":1}`, "true", 20},
		{"limit_2", `{"class_id":1,"limit":2}`, "true", 2},
		{"questions", `{"class_id":1,"is_question":true}`, "d.is_question", 20},
		{"not_questions", `{"class_id":1,"is_question":false}`, "NOT d.is_question", 20},
		{"assignment_1", `{"class_id":1,"assignment_id":1}`, fmt.Sprintf(ofAssignment, 1), 20},
		{"assignment_2", `{"class_id":1,"assignment_id":2}`, fmt.Sprintf(ofAssignment, 2), 20},
		{"assignment_without_topics", `{"class_id":1,"assignment_id":3}`, fmt.Sprintf(ofAssignment, 3), 20},
		{"assignment_and_question", `{"class_id":1,"assignment_id":1,"is_question":true}`, "d.is_question AND " + fmt.Sprintf(ofAssignment, 1), 20},
		{"query", `{"class_id":1,"search_query":"greet"}`, fmt.Sprintf(matches, `'%greet%'`), 20},
		{"query_case_insensitive", `{"class_id":1,"search_query":"HELLO"}`, fmt.Sprintf(matches, `'%hello%'`), 20},
		// Only top-level threads are searched: "café" is in reply 4 only.
		{"query_only_in_a_reply", `{"class_id":1,"search_query":"café"}`, fmt.Sprintf(matches, `'%café%'`), 20},
		{"query_empty_is_no_filter", `{"class_id":1,"search_query":""}`, "true", 20},
		// Q8 (, ) " * % _ \ matched literally) has hand-written
		// expectations over class 3: searchCases in discussion_test.go.
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := toolJSON(t, nil, userAlice, "search_discussion_threads", tc.args)
			expectEqual(t, "threads", seedJSON(t, fmt.Sprintf(sqlSearch, tc.where, tc.limit)), got)
		})
	}
	// SEED.md: Sam cannot see threads 6, 7 and 13.
	t.Run("as_student", func(t *testing.T) {
		want := seedIDs(t, `SELECT id FROM public.discussion_threads WHERE class_id = 1 AND parent IS NULL AND id NOT IN (6, 7, 13)
			ORDER BY created_at DESC LIMIT 20`)
		expectEqual(t, "ids", want, pluck(toolJSON(t, nil, userSam, "search_discussion_threads", `{"class_id":1}`), "id"))
	})
	// SEED.md: the only question with an accepted answer in class 1 is
	// thread 1.
	t.Run("has_answer", func(t *testing.T) {
		var answered []any
		for _, th := range toolJSON(t, nil, userAlice, "search_discussion_threads", `{"class_id":1,"is_question":true}`).([]any) {
			if field(th, "has_answer") == true {
				answered = append(answered, field(th, "id"))
			}
		}
		expectEqual(t, "answered", nums(1), answered)
	})
	for _, tc := range []struct{ name, user, args string }{
		{"other_class_not_member", userAlice, `{"class_id":2}`},
		{"no_enrolment", userNora, `{"class_id":1}`},
		{"is_question_null", userAlice, `{"class_id":1,"is_question":null}`},
		{"no_match", userAlice, `{"class_id":1,"search_query":` + strconv.Quote("zzz-nothing-matches-this") + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", []any{}, toolJSON(t, nil, tc.user, "search_discussion_threads", tc.args))
		})
	}
}
