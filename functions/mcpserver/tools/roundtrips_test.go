package tools

import "testing"

// TestRoundTripBudget pins how many PostgREST requests the help,
// discussion and assignment tools send and the longest chain of requests
// that wait for each other (measured with a fixed delay per request, so
// concurrent requests overlap). Budgets are upper bounds: the in-flight
// sharing of profile look-ups can only save requests. The original's
// figures, derived from docs/contract/tools.md, are in the comments.
func TestRoundTripBudget(t *testing.T) {
	tests := []struct {
		name, user, tool, args string
		maxCount, maxDepth     int
	}{
		// original 1 / 1
		{"assignment", userAlice, "get_assignment", `{"assignment_id":1,"class_id":1}`, 1, 1},
		// original 17 / 10: referenced and latest submissions, messages.
		// Here the request row with the referenced submission (its
		// profile, grader result and files) and the messages, then the
		// latest submission's id, then its row with its embeds ‖ one
		// profile look-up (none when cached).
		{"help_request_with_latest", userAlice, "get_help_request", `{"help_request_id":1,"class_id":1}`, 4, 3},
		// original 17 / 10 (the latest submission is built, then dropped;
		// here its id shows it is the referenced one, so it is not read)
		{"help_request_latest_is_referenced", userAlice, "get_help_request", `{"help_request_id":2,"class_id":1}`, 3, 2},
		// original 5 / 4
		{"help_request_without_submission", userAlice, "get_help_request", `{"help_request_id":3,"class_id":1}`, 2, 2},
		// original 1 / 1
		{"help_request_not_found", userAlice, "get_help_request", `{"help_request_id":999,"class_id":1}`, 1, 1},
		// original 12 / 6. Here the thread row with its assignment, then
		// the latest submission's id and its row with its embeds ‖ the
		// replies and one profile look-up of the author and the replies'
		// authors.
		{"thread_with_everything", userAlice, "get_discussion_thread", `{"thread_id":1,"class_id":1}`, 5, 3},
		// original 5 / 4
		{"thread_with_50_replies", userAlice, "get_discussion_thread", `{"thread_id":8,"class_id":1}`, 3, 3},
		// original 5 / 3: one request with every part embedded
		{"submission", userAlice, "get_submission", `{"submission_id":3,"class_id":1,"include_test_output":true,"include_files":true}`, 1, 1},
		// original 2 + 5N / 2 + 3N (N = 3 here): the public→private
		// translation, then the submissions with their embeds
		{"submissions_for_student", userAlice, "get_submissions_for_student", `{"student_profile_id":"` + pubID(1, 3) + `","assignment_id":1,"class_id":1,"include_files":true}`, 2, 2},
		// staff read: six reads three deep through REST; one call of the
		// SQL function mcp_student_overview
		{"student_overview", userAlice, "get_student_overview", `{"student_profile_id":"` + pubID(1, 3) + `","class_id":1}`, 1, 1},
		// staff read: the assignment and the rubric's four levels, five
		// reads at once; one call of mcp_rubric
		{"rubric", userAlice, "get_rubric", `{"class_id":1,"assignment_id":1}`, 1, 1},
		// staff read: the caller's staff check ‖ the requests, then their
		// people's profiles (3 / 2); one call of mcp_list_regrade_requests
		{"list_regrade_requests", userAlice, "list_regrade_requests", `{"class_id":1,"status":"all"}`, 1, 1},
		// staff read: the queues ‖ their requests ‖ the caller's rows, then
		// the assignees' profiles (4 / 2); one call of
		// mcp_help_queue_overview
		{"help_queue_overview", userAlice, "get_help_queue_overview", `{"class_id":1}`, 1, 1},
		// staff read: the caller's rows ‖ the assignment ‖ submissions ‖
		// review assignments ‖ regrade requests ‖ graders, then their
		// profiles (7 / 2); one call of mcp_grading_progress
		{"grading_progress", userAlice, "get_grading_progress", `{"class_id":1,"assignment_id":1}`, 1, 1},
		// staff read: the caller's staff check ‖ the request with its
		// embeds (2 / 1); one call of mcp_regrade_request
		{"regrade_request", userAlice, "get_regrade_request", `{"class_id":1,"regrade_request_id":2}`, 1, 1},
		// staff read: the assignment ‖ submissions ‖ regrade requests ‖
		// the student's translation, then the submitters' profiles (4 /
		// 2); one call of mcp_search_submissions
		{"search_submissions", userAlice, "search_submissions", `{"class_id":1,"assignment_id":1,"include_inactive":true,"student_profile_id":"` + pubID(1, 3) + `"}`, 1, 1},
		// original 2 / 2
		{"search_help", userAlice, "search_help_requests", `{"class_id":1}`, 2, 2},
		// original 3 / 3
		{"search_help_by_assignment", userAlice, "search_help_requests", `{"class_id":1,"assignment_id":1}`, 2, 2},
		// original 2 / 2
		{"search_threads", userAlice, "search_discussion_threads", `{"class_id":1,"search_query":"greet"}`, 2, 2},
		// original 3 / 3
		{"search_threads_by_assignment", userAlice, "search_discussion_threads", `{"class_id":1,"assignment_id":1}`, 2, 2},
		// original 1 / 1 (PostgREST rejects the limit); here no request
		{"search_threads_bad_limit", userAlice, "search_discussion_threads", `{"class_id":1,"limit":-1}`, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The chain is measured from timings, which a loaded machine
			// can stretch; a call gets three tries to show its structure.
			var count, depth int
			var tables []string
			for range 3 {
				count, depth, tables = measureCall(t, tt.user, tt.tool, tt.args)
				if count <= tt.maxCount && depth <= tt.maxDepth {
					break
				}
			}
			if count > tt.maxCount || depth > tt.maxDepth {
				t.Errorf("%d requests, chain %d; budget %d, %d; tables %v", count, depth, tt.maxCount, tt.maxDepth, tables)
			}
			for _, table := range tables {
				if table == "users" {
					t.Errorf("read the users table: %v", tables)
				}
			}
		})
	}
}
