package tools

import "fmt"

// The registry-wide test cases (toolcases_test.go) of the catalogue's
// first tools, in catalogue order. A new tool registers its own in its
// test file.

// Empty answers of the original's tools, as it prints them when nothing is
// visible.
const (
	emptyNull       = `null`
	emptyArray      = `[]`
	emptyFileList   = `{"files":[],"total_count":0}`
	emptyFileGet    = `{"files":[],"matched_count":0}`
	emptyTests      = `{"tests":[],"summary":{"passed":0,"failed":0,"total_score":0,"max_score":0}}`
	emptyTestOutput = `{"test":null}`
	emptyBuild      = `{"build":null,"lint":null}`
)

// classBStudent is Ben's public profile in class B.
var classBStudent = pubID(2, 7)

// sam1 is Sam's public profile in class 1.
var sam1 = pubID(1, 3)

// perID formats format once per id with the id and class.
func perID(format string, class int, ids ...int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf(format, id, class)
	}
	return out
}

// seq is 1…n.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// forAssignments formats format (assignment id, class) for assignments 1–6.
func forAssignments(format string) func(int) []string {
	return func(class int) []string { return perID(format, class, seq(6)...) }
}

// forSubmissions formats format (submission id, class) for submissions 1–10.
func forSubmissions(format string) func(int) []string {
	return func(class int) []string { return perID(format, class, seq(10)...) }
}

// sameArgs is a crossClass case whose arguments are format with the class
// and whose empty answer is empty.
func sameArgs(format, empty string) func(string) (string, string) {
	return func(class string) (string, string) { return fmt.Sprintf(format, class), empty }
}

var _ = addCases("get_help_request", toolCases{
	crossClass: sameArgs(`{"help_request_id":6,"class_id":%s}`, emptyNull),
	privacy:    func(class int) []string { return perID(`{"help_request_id":%d,"class_id":%d}`, class, seq(7)...) },
	seeded: []seededCall{
		{userAlice, `{"help_request_id":1,"class_id":1}`}, // submission, latest, messages
		{userSam, `{"help_request_id":1,"class_id":1}`},   // the caller's messages (private and public profile)
		{userAlice, `{"help_request_id":3,"class_id":1}`}, // no submission
		{userAlice, `{"help_request_id":5,"class_id":1}`}, // group submission
		{userAlice, `{"help_request_id":999,"class_id":1}`},
	},
})

var _ = addCases("get_discussion_thread", toolCases{
	crossClass: sameArgs(`{"thread_id":9,"class_id":%s}`, emptyNull),
	privacy: func(class int) []string {
		return perID(`{"thread_id":%d,"class_id":%d}`, class, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 1001, 1060, 900001)
	},
	seeded: []seededCall{
		{userAlice, `{"thread_id":1,"class_id":1}`}, // replies, answer, assignment, latest
		{userAlice, `{"thread_id":8,"class_id":1}`}, // 50 replies, no assignment
		{userAlice, `{"thread_id":11,"class_id":1}`},
		{userAlice, `{"thread_id":999999,"class_id":1}`},
	},
})

var _ = addCases("get_submission", toolCases{
	crossClass: sameArgs(`{"submission_id":8,"class_id":%s,"include_test_output":true,"include_files":true}`, emptyNull),
	privacy: func(class int) []string {
		return append(forSubmissions(`{"submission_id":%d,"class_id":%d,"include_test_output":true,"include_files":true}`)(class),
			forSubmissions(`{"submission_id":%d,"class_id":%d}`)(class)...)
	},
	seeded: []seededCall{
		{userAlice, `{"submission_id":3,"class_id":1}`},
		{userAlice, `{"submission_id":3,"class_id":1,"include_test_output":true,"include_files":true}`},
		{userAlice, `{"submission_id":5,"class_id":1,"include_test_output":true}`},
		{userAlice, `{"submission_id":6,"class_id":1}`},
		{userAlice, `{"submission_id":9,"class_id":1}`},
		{userAlice, `{"submission_id":999,"class_id":1}`},
	},
})

var _ = addCases("list_submission_files", toolCases{
	crossClass: sameArgs(`{"submission_id":8,"class_id":%s}`, emptyFileList),
	privacy:    forSubmissions(`{"submission_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"submission_id":3,"class_id":1}`},
		{userAlice, `{"submission_id":999,"class_id":1}`},
	},
})

var _ = addCases("get_submission_files", toolCases{
	crossClass: sameArgs(`{"submission_id":8,"class_id":%s}`, emptyFileGet),
	privacy:    forSubmissions(`{"submission_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"submission_id":3,"class_id":1}`},
		{userAlice, `{"submission_id":2,"class_id":1,"glob_pattern":"**"}`},
		{userAlice, `{"submission_id":999,"class_id":1}`},
	},
})

var _ = addCases("list_submission_tests", toolCases{
	crossClass: sameArgs(`{"submission_id":8,"class_id":%s}`, emptyTests),
	privacy:    forSubmissions(`{"submission_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"submission_id":2,"class_id":1}`},
		{userAlice, `{"submission_id":5,"class_id":1,"only_failed":true}`},
		{userAlice, `{"submission_id":6,"class_id":1}`},
	},
})

var _ = addCases("get_test_output", toolCases{
	crossClass: sameArgs(`{"submission_id":8,"class_id":%s,"test_id":17}`, emptyTestOutput),
	privacy: func(class int) []string {
		var out []string
		for id := 1; id <= 10; id++ {
			out = append(out, fmt.Sprintf(`{"submission_id":%d,"class_id":%d,"test_id":%d}`, id, class, id*2))
		}
		return out
	},
	seeded: []seededCall{
		{userAlice, `{"submission_id":3,"class_id":1,"test_id":11}`},
		{userAlice, `{"submission_id":2,"class_id":1,"test_name":"testNullScore"}`},
		{userAlice, `{"submission_id":6,"class_id":1,"test_id":1}`},
	},
})

var _ = addCases("get_submission_build_output", toolCases{
	crossClass: sameArgs(`{"submission_id":8,"class_id":%s}`, emptyBuild),
	privacy:    forSubmissions(`{"submission_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"submission_id":3,"class_id":1}`},
		{userAlice, `{"submission_id":4,"class_id":1}`},
		{userAlice, `{"submission_id":3,"class_id":1,"include_lint":false}`},
		{userAlice, `{"submission_id":6,"class_id":1}`},
	},
})

// The original looks the grader repository up by assignment id only
// (quirk 1); RLS on autograder hides class B's row from class A's staff
// either way.
var _ = addCases("list_grader_files", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s}`, emptyFileList),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"assignment_id":1,"class_id":1}`},
		{userGary, `{"assignment_id":1,"class_id":1}`},
	},
})

var _ = addCases("get_grader_files", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s}`, emptyFileGet),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"assignment_id":1,"class_id":1}`},
		{userAlice, `{"assignment_id":4,"class_id":1}`},
	},
})

var _ = addCases("list_handout_files", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s}`, emptyFileList),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"assignment_id":1,"class_id":1}`},
		{userAlice, `{"assignment_id":3,"class_id":1}`},
	},
})

var _ = addCases("get_handout_files", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s}`, emptyFileGet),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d,"glob_pattern":"**/*.java"}`),
	seeded: []seededCall{
		{userSam, `{"assignment_id":1,"class_id":1}`},
		{userAlice, `{"assignment_id":3,"class_id":1}`},
	},
})

var _ = addCases("get_submissions_for_student", toolCases{
	crossClass: sameArgs(`{"student_profile_id":"`+classBStudent+`","assignment_id":5,"class_id":%s}`, emptyArray),
	privacy: func(class int) []string {
		var out []string
		for id := 1; id <= 6; id++ {
			for uu := 1; uu <= 9; uu++ {
				// Public ids, and private ids a client might pass by mistake.
				out = append(out,
					fmt.Sprintf(`{"student_profile_id":"%s","assignment_id":%d,"class_id":%d,"include_files":true}`, pubID(class, uu), id, class),
					fmt.Sprintf(`{"student_profile_id":"%s","assignment_id":%d,"class_id":%d}`, privID(class, uu), id, class))
			}
		}
		return out
	},
	seeded: []seededCall{
		{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1,"include_files":true}`, sam1)},
		{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":2,"class_id":1}`, sam1)},
		{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"assignment_id":1,"class_id":1,"limit":0}`, sam1)},
	},
})

var _ = addCases("get_assignment", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s}`, emptyNull),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"assignment_id":1,"class_id":1}`},
		{userAlice, `{"assignment_id":3,"class_id":1}`}, // null total_points
		{userAlice, `{"assignment_id":999,"class_id":1}`},
	},
})

var _ = addCases("search_help_requests", toolCases{
	crossClass: sameArgs(`{"class_id":%s,"assignment_id":5}`, emptyArray),
	privacy: func(class int) []string {
		out := make([]string, 0, 7)
		for id := 1; id <= 6; id++ {
			out = append(out, fmt.Sprintf(`{"class_id":%d,"assignment_id":%d}`, class, id))
		}
		return append(out, fmt.Sprintf(`{"class_id":%d}`, class))
	},
	seeded: []seededCall{
		{userAlice, `{"class_id":1}`},
		{userAlice, `{"class_id":2}`},
	},
})

var _ = addCases("search_discussion_threads", toolCases{
	crossClass: sameArgs(`{"class_id":%s,"assignment_id":5}`, emptyArray),
	privacy: func(class int) []string {
		out := make([]string, 0, 8)
		for id := 1; id <= 6; id++ {
			out = append(out, fmt.Sprintf(`{"class_id":%d,"assignment_id":%d}`, class, id))
		}
		return append(out, fmt.Sprintf(`{"class_id":%d}`, class), fmt.Sprintf(`{"class_id":%d,"search_query":"e"}`, class))
	},
	seeded: []seededCall{
		{userAlice, `{"class_id":1}`},
		{userAlice, `{"class_id":1,"search_query":"zzz-no-match"}`},
	},
})

var _ = addCases("get_rubric", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s}`, emptyNull),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"assignment_id":1,"class_id":1}`}, // three rubrics, every level
		{userSam, `{"assignment_id":1,"class_id":1}`},   // a student's narrower view
		{userAlice, `{"assignment_id":2,"class_id":1}`}, // empty rubrics
		{userAlice, `{"assignment_id":5,"class_id":2}`}, // another class: null
	},
	readFail: `{"assignment_id":1,"class_id":1}`,
})

var _ = addCases("list_student_submissions", toolCases{
	crossClass: sameArgs(`{"student_profile_id":"`+classBStudent+`","class_id":%s}`, emptyArray),
	privacy: func(class int) []string {
		var out []string
		for uu := 1; uu <= 9; uu++ {
			out = append(out,
				fmt.Sprintf(`{"student_profile_id":"%s","class_id":%d,"include_files":true}`, pubID(class, uu), class),
				fmt.Sprintf(`{"student_profile_id":"%s","class_id":%d}`, privID(class, uu), class))
		}
		return out
	},
	seeded: []seededCall{
		{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"include_files":true}`, sam1)},
		{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"assignment_id":2,"limit":1}`, sam1)},
		{userAlice, `{"student_profile_id":"not-a-profile","class_id":1}`},
	},
	readFail: fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, sam1),
	limit:    &limitCase{fmt.Sprintf(`{"class_id":1,"student_profile_id":%q`, sam1), 50},
})

var _ = addCases("search_submissions", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s,"include_inactive":true}`, emptyNull),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d,"include_inactive":true}`),
	seeded: []seededCall{
		{userAlice, `{"assignment_id":1,"class_id":1,"include_inactive":true}`}, // scores, regrade requests
		{userAlice, `{"assignment_id":2,"class_id":1,"include_inactive":true}`}, // pending, group
		{userAlice, `{"assignment_id":1,"class_id":1,"student_name":"zzz"}`},    // no match
		{userAlice, `{"assignment_id":5,"class_id":2}`},                         // another class: null
	},
	readFail: `{"assignment_id":1,"class_id":1}`,
	limit:    &limitCase{`{"assignment_id":1,"class_id":1`, 100},
})

var _ = addCases("list_regrade_requests", toolCases{
	crossClass: sameArgs(`{"class_id":%s,"assignment_id":5,"status":"all"}`, emptyArray),
	privacy:    func(class int) []string { return []string{fmt.Sprintf(`{"class_id":%d,"status":"all"}`, class)} },
	seeded: []seededCall{
		{userAlice, `{"class_id":1,"status":"all"}`}, // every state, every optional field
		{userBea, `{"class_id":2}`},
		{userGary, `{"class_id":2}`}, // another class: []
	},
	readFail: `{"class_id":1}`,
	limit:    &limitCase{`{"class_id":1`, 100},
})

var _ = addCases("get_grading_progress", toolCases{
	crossClass: sameArgs(`{"assignment_id":5,"class_id":%s}`, emptyNull),
	privacy:    forAssignments(`{"assignment_id":%d,"class_id":%d}`),
	seeded: []seededCall{
		{userAlice, `{"assignment_id":1,"class_id":1}`}, // graders with and without pending work
		{userGary, `{"assignment_id":1,"class_id":1}`},
		{userAlice, `{"assignment_id":5,"class_id":2}`}, // another class: null
	},
	readFail: `{"assignment_id":1,"class_id":1}`,
})

var _ = addCases("get_help_queue_overview", toolCases{
	crossClass: func(class string) (string, string) {
		return `{"class_id":` + class + `,"help_queue_id":3}`, `{"class_id":` + class + `,"queues":[],"truncated":false}`
	},
	privacy: func(class int) []string { return []string{fmt.Sprintf(`{"class_id":%d}`, class)} },
	seeded: []seededCall{
		{userAlice, `{"class_id":1}`}, // assignee, private, group request, an empty queue
		{userAlice, `{"class_id":2}`}, // none visible
	},
	readFail: `{"class_id":1}`,
	limit:    &limitCase{`{"class_id":1`, 100},
})

var _ = addCases("get_student_overview", toolCases{
	crossClass: sameArgs(`{"student_profile_id":"`+classBStudent+`","class_id":%s}`, emptyNull),
	privacy: func(class int) []string {
		var out []string
		for uu := 1; uu <= 9; uu++ {
			out = append(out, fmt.Sprintf(`{"student_profile_id":"%s","class_id":%d,"limit":20}`, pubID(class, uu), class))
		}
		return out
	},
	seeded: []seededCall{
		{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1,"limit":20}`, sam1)}, // every area, group submission
		{userAlice, fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, pubID(1, 1))},     // staff: no activity
		{userAlice, `{"student_profile_id":"not-a-profile","class_id":1}`},
	},
	readFail: fmt.Sprintf(`{"student_profile_id":%q,"class_id":1}`, sam1),
	limit:    &limitCase{fmt.Sprintf(`{"class_id":1,"student_profile_id":%q`, sam1), 20},
})
