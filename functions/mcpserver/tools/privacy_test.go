package tools

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// privacyLeak matches what no tool output may contain: a private profile
// id (the seed's 2000000C-… scheme), a user id (10000000-…), an e-mail
// address of the users table, a real name (the private profiles' and
// users' names) or the is_private_profile column.
var privacyLeak = regexp.MustCompile(`2000000\d-0000-4000-8000-|10000000-0000-4000-8000-|@example\.edu|is_private_profile|` +
	`Alice Instructor|Gary Grader|Sam Student|Sofia Student|Dale Disabled|Bea Instructor|Ben Student|Tara TA|Nora Nobody`)

// privacyCalls enumerates calls of every tool over the seeded corpus for
// the classes an instructor teaches: every help request, thread,
// submission, test and assignment id (plus a few that do not exist), every
// public profile, and the search tools' filters.
func privacyCalls(class int) []struct{ tool, args string } {
	var out []struct{ tool, args string }
	add := func(tool, format string, a ...any) {
		out = append(out, struct{ tool, args string }{tool, fmt.Sprintf(format, a...)})
	}
	for id := 1; id <= 7; id++ {
		add("get_help_request", `{"help_request_id":%d,"class_id":%d}`, id, class)
	}
	for _, id := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 1001, 1060, 900001} {
		add("get_discussion_thread", `{"thread_id":%d,"class_id":%d}`, id, class)
	}
	for id := 1; id <= 10; id++ {
		add("get_submission", `{"submission_id":%d,"class_id":%d,"include_test_output":true,"include_files":true}`, id, class)
		add("get_submission", `{"submission_id":%d,"class_id":%d}`, id, class)
		add("list_submission_files", `{"submission_id":%d,"class_id":%d}`, id, class)
		add("get_submission_files", `{"submission_id":%d,"class_id":%d}`, id, class)
		add("list_submission_tests", `{"submission_id":%d,"class_id":%d}`, id, class)
		add("get_test_output", `{"submission_id":%d,"class_id":%d,"test_id":%d}`, id, class, id*2)
		add("get_submission_build_output", `{"submission_id":%d,"class_id":%d}`, id, class)
	}
	for id := 1; id <= 6; id++ {
		add("get_assignment", `{"assignment_id":%d,"class_id":%d}`, id, class)
		add("list_grader_files", `{"assignment_id":%d,"class_id":%d}`, id, class)
		add("get_grader_files", `{"assignment_id":%d,"class_id":%d}`, id, class)
		add("list_handout_files", `{"assignment_id":%d,"class_id":%d}`, id, class)
		add("get_handout_files", `{"assignment_id":%d,"class_id":%d,"glob_pattern":"**/*.java"}`, id, class)
		add("search_help_requests", `{"class_id":%d,"assignment_id":%d}`, class, id)
		add("search_discussion_threads", `{"class_id":%d,"assignment_id":%d}`, class, id)
		add("get_rubric", `{"assignment_id":%d,"class_id":%d}`, id, class)
		add("search_submissions", `{"assignment_id":%d,"class_id":%d,"include_inactive":true}`, id, class)
		add("get_grading_progress", `{"assignment_id":%d,"class_id":%d}`, id, class)
		for uu := 1; uu <= 9; uu++ {
			// Public ids, and private ids a client might pass by mistake.
			add("get_submissions_for_student", `{"student_profile_id":"%s","assignment_id":%d,"class_id":%d,"include_files":true}`, pubID(class, uu), id, class)
			add("get_submissions_for_student", `{"student_profile_id":"%s","assignment_id":%d,"class_id":%d}`, privID(class, uu), id, class)
		}
	}
	for uu := 1; uu <= 9; uu++ {
		add("list_student_submissions", `{"student_profile_id":"%s","class_id":%d,"include_files":true}`, pubID(class, uu), class)
		add("list_student_submissions", `{"student_profile_id":"%s","class_id":%d}`, privID(class, uu), class)
		add("get_student_overview", `{"student_profile_id":"%s","class_id":%d,"limit":20}`, pubID(class, uu), class)
	}
	add("search_help_requests", `{"class_id":%d}`, class)
	add("list_regrade_requests", `{"class_id":%d,"status":"all"}`, class)
	add("get_help_queue_overview", `{"class_id":%d}`, class)
	add("search_discussion_threads", `{"class_id":%d}`, class)
	add("search_discussion_threads", `{"class_id":%d,"search_query":"e"}`, class)
	return out
}

// TestPrivacy calls every tool over the seeded corpus as the instructors
// (who see the most) and checks that no answer contains private profile
// ids, users data or is_private_profile, and that no request read the
// users table.
func TestPrivacy(t *testing.T) {
	for _, leak := range []string{privID(1, 3), userSam, "sam.student@example.edu", `"is_private_profile": true`, "Sam Student"} {
		if !privacyLeak.MatchString(leak) {
			t.Fatalf("privacyLeak does not catch %q", leak)
		}
	}
	reg := isolationRegistry(t)
	for _, caller := range []struct {
		user  string
		class int
	}{{userAlice, 1}, {userBea, 2}} {
		db, cnt := clientFor(t, caller.user)
		calls := privacyCalls(caller.class)
		nonEmpty := 0
		for _, call := range calls {
			got := callToolWith(t, reg, db, call.tool, call.args)
			if m := privacyLeak.FindString(got); m != "" {
				t.Errorf("%s%s leaks %q:\n%s", call.tool, call.args, m, got)
			}
			if got != "null" && got != "[]" && !strings.Contains(got, `": []`) {
				nonEmpty++
			}
		}
		if tables := cnt.Tables(); slices.Contains(tables, "users") {
			t.Errorf("class %d: a request read the users table", caller.class)
		}
		// The sweep must actually see data, or it proves nothing.
		if nonEmpty < len(calls)/10 {
			t.Errorf("class %d: only %d of %d calls returned data", caller.class, nonEmpty, len(calls))
		}
		t.Logf("class %d: %d calls, %d with data, %d requests", caller.class, len(calls), nonEmpty, cnt.Count())
	}
}
