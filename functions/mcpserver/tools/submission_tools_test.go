package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Submission 3 (Sam, assignment 1) is the richest seed row: four build
// output rows, JSON errors with nested keys, 100.0 scores, duplicate test
// names, NULL and empty file contents. Submission 2 has non-ASCII files and
// a null test score; 4 has a duplicate-key errors value and no output row;
// 5 has 0.5/50.5 and a null execution_time; 6 has no grader result; 7 is
// Tara's (empty public name in class 1); 8 is in class 2; 9 is a group
// submission (profile_id NULL).

func TestGetSubmission(t *testing.T) {
	runGoldenCases(t, "get_submission", []goldenCase{
		{"summary", userAlice, `{"submission_id":3,"class_id":1}`},
		{"summary_as_grader", userGary, `{"submission_id":3,"class_id":1}`},
		{"summary_as_student", userSam, `{"submission_id":3,"class_id":1}`},
		{"test_output", userAlice, `{"submission_id":3,"class_id":1,"include_test_output":true}`},
		{"files_non_ascii", userAlice, `{"submission_id":2,"class_id":1,"include_files":true}`},
		{"files_and_tests", userAlice, `{"submission_id":3,"class_id":1,"include_test_output":true,"include_files":true}`},
		{"flags_must_be_true", userAlice, `{"submission_id":2,"class_id":1,"include_test_output":false,"include_files":null}`},
		{"duplicate_key_errors_no_output", userAlice, `{"submission_id":4,"class_id":1}`},
		{"fractional_scores_null_times", userAlice, `{"submission_id":5,"class_id":1,"include_test_output":true}`},
		{"no_grader_result", userAlice, `{"submission_id":6,"class_id":1}`},
		{"empty_public_name", userAlice, `{"submission_id":7,"class_id":1}`},
		{"group_submission", userAlice, `{"submission_id":9,"class_id":1}`},
		{"other_class_instructor", userBea, `{"submission_id":8,"class_id":2}`},
		{"wrong_class", userAlice, `{"submission_id":8,"class_id":1}`},
		{"not_a_member", userAlice, `{"submission_id":8,"class_id":2}`},
		{"other_students_submission", userSofia, `{"submission_id":3,"class_id":1}`},
		{"not_found", userAlice, `{"submission_id":999,"class_id":1}`},
		{"fractional_id", userAlice, `{"submission_id":3.5,"class_id":1}`},
	})
}

func TestListSubmissionFiles(t *testing.T) {
	runGoldenCases(t, "list_submission_files", []goldenCase{
		{"null_and_empty_contents", userAlice, `{"submission_id":3,"class_id":1}`},
		{"utf8_sizes", userAlice, `{"submission_id":2,"class_id":1}`},
		{"as_student", userSam, `{"submission_id":2,"class_id":1}`},
		{"other_students_files", userSofia, `{"submission_id":2,"class_id":1}`},
		{"wrong_class", userAlice, `{"submission_id":8,"class_id":1}`},
		{"no_files", userAlice, `{"submission_id":999,"class_id":1}`},
	})
}

func TestGetSubmissionFiles(t *testing.T) {
	runGoldenCases(t, "get_submission_files", []goldenCase{
		{"all", userAlice, `{"submission_id":3,"class_id":1}`},
		{"empty_pattern_means_all", userAlice, `{"submission_id":4,"class_id":1,"glob_pattern":""}`},
		{"root_star_only", userAlice, `{"submission_id":3,"class_id":1,"glob_pattern":"*.md"}`},
		{"globstar", userAlice, `{"submission_id":3,"class_id":1,"glob_pattern":"src/**/*.java"}`},
		{"any_depth", userAlice, `{"submission_id":3,"class_id":1,"glob_pattern":"**/*.txt"}`},
		{"braces", userAlice, `{"submission_id":3,"class_id":1,"glob_pattern":"{README.md,docs/*}"}`},
		{"negated", userAlice, `{"submission_id":3,"class_id":1,"glob_pattern":"!src/**"}`},
		{"comment_matches_nothing", userAlice, `{"submission_id":3,"class_id":1,"glob_pattern":"#src/*"}`},
		{"no_match", userAlice, `{"submission_id":3,"class_id":1,"glob_pattern":"*.py"}`},
		{"non_ascii_contents", userAlice, `{"submission_id":2,"class_id":1,"glob_pattern":"README.md"}`},
		{"wrong_class", userAlice, `{"submission_id":8,"class_id":1}`},
		{"not_found", userAlice, `{"submission_id":999,"class_id":1,"glob_pattern":"*"}`},
	})
}

func TestListSubmissionTests(t *testing.T) {
	runGoldenCases(t, "list_submission_tests", []goldenCase{
		{"all", userAlice, `{"submission_id":2,"class_id":1}`},
		{"only_failed", userAlice, `{"submission_id":2,"class_id":1,"only_failed":true}`},
		{"only_failed_duplicate_names", userAlice, `{"submission_id":3,"class_id":1,"only_failed":true}`},
		{"only_failed_null", userAlice, `{"submission_id":3,"class_id":1,"only_failed":null}`},
		{"fractional_and_null_scores", userAlice, `{"submission_id":5,"class_id":1}`},
		{"as_student_unreleased_hidden", userSam, `{"submission_id":2,"class_id":1}`},
		{"no_grader_result", userAlice, `{"submission_id":6,"class_id":1}`},
		{"wrong_class", userAlice, `{"submission_id":8,"class_id":1}`},
	})
}

func TestGetTestOutput(t *testing.T) {
	runGoldenCases(t, "get_test_output", []goldenCase{
		{"by_id_non_ascii", userAlice, `{"submission_id":3,"class_id":1,"test_id":11}`},
		{"by_name", userAlice, `{"submission_id":2,"class_id":1,"test_name":"testGoodbye"}`},
		{"duplicate_name_lowest_id", userAlice, `{"submission_id":3,"class_id":1,"test_name":"testDuplicate"}`},
		{"id_wins_over_name", userAlice, `{"submission_id":3,"class_id":1,"test_id":10,"test_name":"testHello"}`},
		{"zero_id_falls_back_to_name", userAlice, `{"submission_id":3,"class_id":1,"test_id":0,"test_name":"testHello"}`},
		{"null_output", userAlice, `{"submission_id":2,"class_id":1,"test_id":5}`},
		{"test_of_another_submission", userAlice, `{"submission_id":3,"class_id":1,"test_id":1}`},
		{"unknown_name", userAlice, `{"submission_id":3,"class_id":1,"test_name":"nope"}`},
		{"fractional_id", userAlice, `{"submission_id":3,"class_id":1,"test_id":7.5}`},
		{"name_with_filter_characters", userAlice, `{"submission_id":3,"class_id":1,"test_name":"a,b)c(d.e"}`},
		{"unreleased_as_student", userSam, `{"submission_id":2,"class_id":1,"test_id":6}`},
		{"no_grader_result", userAlice, `{"submission_id":6,"class_id":1,"test_id":1}`},
		{"wrong_class", userAlice, `{"submission_id":8,"class_id":1,"test_id":17}`},
	})
}

// TestGetTestOutputNeedsSelector covers quirk 3: without a usable test_id
// or test_name the original looked up the grader result and answered
// {"test": null}; we reject the call before any query.
func TestGetTestOutputNeedsSelector(t *testing.T) {
	for _, args := range []string{
		`{"submission_id":3,"class_id":1}`,
		`{"submission_id":3,"class_id":1,"test_id":0,"test_name":""}`,
		`{"submission_id":3,"class_id":1,"test_id":null,"test_name":null}`,
	} {
		t.Run(args, func(t *testing.T) {
			db, cnt := clientFor(t, userAlice)
			v, _ := jsjson.Decode([]byte(args))
			_, err := New(Options{}).Call(context.Background(), db, []string{ScopeRead}, "get_test_output", v.(*jsjson.Object))
			var ipe *InvalidParamsError
			if !errors.As(err, &ipe) {
				t.Fatalf("error = %v, want *InvalidParamsError", err)
			}
			for _, name := range []string{"test_id", "test_name"} {
				if !strings.Contains(ipe.Message, name) {
					t.Errorf("message %q does not name %s", ipe.Message, name)
				}
			}
			if n := cnt.Count(); n != 0 {
				t.Errorf("%d upstream requests, want 0", n)
			}
		})
	}
}

func TestGetSubmissionBuildOutput(t *testing.T) {
	runGoldenCases(t, "get_submission_build_output", []goldenCase{
		{"four_output_rows", userAlice, `{"submission_id":3,"class_id":1}`},
		{"four_output_rows_as_student", userSam, `{"submission_id":3,"class_id":1}`},
		{"without_lint", userAlice, `{"submission_id":3,"class_id":1,"include_lint":false}`},
		{"lint_not_false", userAlice, `{"submission_id":1,"class_id":1,"include_lint":null}`},
		{"empty_lint_output", userAlice, `{"submission_id":2,"class_id":1}`},
		{"no_output_rows", userAlice, `{"submission_id":4,"class_id":1}`},
		{"no_grader_result", userAlice, `{"submission_id":6,"class_id":1}`},
		{"no_grader_result_without_lint", userAlice, `{"submission_id":6,"class_id":1,"include_lint":false}`},
		{"wrong_class", userAlice, `{"submission_id":8,"class_id":1}`},
	})
}

// TestBuildOutputRowChoice pins quirk 7's fix: with several visible output
// rows, build_output is the "visible" one (the first visibility in enum
// order), for every caller that can see it, instead of null.
func TestBuildOutputRowChoice(t *testing.T) {
	for _, user := range []string{userAlice, userGary, userSam} {
		db, _ := clientFor(t, user)
		for _, tool := range []string{"get_submission", "get_submission_build_output"} {
			text := callTool(t, db, tool, `{"submission_id":3,"class_id":1}`)
			if !strings.Contains(text, `"combined_output": "## Build output\n\nAll good ✓"`) {
				t.Errorf("%s as %s: build output is not the visible row:\n%s", tool, user, text)
			}
		}
	}
}

func TestGetSubmissionsForStudent(t *testing.T) {
	sam, sofia := pubID(1, 3), pubID(1, 4)
	runGoldenCases(t, "get_submissions_for_student", []goldenCase{
		{"newest_first", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":1}`},
		{"limit", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":1,"limit":2}`},
		{"limit_zero", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":1,"limit":0}`},
		{"limit_null_is_default", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":1,"limit":null}`},
		{"limit_negative", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":1,"limit":-1}`},
		{"limit_fractional", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":1,"limit":1.5}`},
		{"with_files", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":1,"limit":2,"include_files":true}`},
		{"pending_result", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":2,"class_id":1}`},
		{"fractional_scores", userGary, `{"student_profile_id":"` + sofia + `","assignment_id":2,"class_id":1}`},
		{"empty_public_name", userAlice, `{"student_profile_id":"` + pubID(1, 8) + `","assignment_id":1,"class_id":1}`},
		{"private_id_is_not_found", userAlice, `{"student_profile_id":"` + privID(1, 3) + `","assignment_id":1,"class_id":1}`},
		{"unknown_profile", userAlice, `{"student_profile_id":"not-a-uuid","assignment_id":1,"class_id":1}`},
		{"no_submissions", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":3,"class_id":1}`},
		{"wrong_class", userAlice, `{"student_profile_id":"` + sam + `","assignment_id":1,"class_id":2}`},
		{"other_class", userBea, `{"student_profile_id":"` + pubID(2, 7) + `","assignment_id":5,"class_id":2}`},
	})
}

// TestSubmissionsForStudentConcurrency checks that the submissions come
// back newest first, and counts the round trips: the original needed
// 2 + 5N requests in a chain of 2 + 3N.
func TestSubmissionsForStudentConcurrency(t *testing.T) {
	db, cnt := clientFor(t, userAlice)
	reg := New(Options{})
	args := `{"student_profile_id":"` + pubID(1, 3) + `","assignment_id":1,"class_id":1}`
	cnt.SetDelay(40 * time.Millisecond)
	text := callToolWith(t, reg, db, "get_submissions_for_student", args)
	checkGolden(t, "get_submissions_for_student/newest_first", text)

	v, err := jsjson.Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var ids []float64
	for _, s := range v.([]any) {
		id, _ := s.(*jsjson.Object).Number("id")
		ids = append(ids, id)
	}
	if diff := cmp.Diff([]float64{3, 2, 1}, ids); diff != "" {
		t.Errorf("submission order (-want +got):\n%s", diff)
	}
	// user_roles (public→private, which also caches private→public, so the
	// shared translation costs nothing), then the submissions with their
	// grader results and files embedded: 2 requests whatever N.
	if got, want := cnt.Count(), 2; got != want {
		t.Errorf("requests = %d, want %d: %v", got, want, cnt.Tables())
	}
	if got, want := cnt.Depth(), 2; got != want {
		t.Errorf("chain of dependent requests = %d, want %d", got, want)
	}
}

// TestRequestCounts pins the upstream requests and the longest chain of
// dependent requests per tool (the table in the report and docs).
func TestRequestCounts(t *testing.T) {
	tests := []struct {
		tool, args   string
		count, depth int
	}{
		// submissions with the student's user_roles row, the latest
		// grader result (with its tests and build output) and the files
		// embedded (the original: 5 requests, 3 deep).
		{"get_submission", `{"submission_id":3,"class_id":1}`, 1, 1},
		{"get_submission", `{"submission_id":3,"class_id":1,"include_test_output":true,"include_files":true}`, 1, 1},
		// A group submission has no profile to translate.
		{"get_submission", `{"submission_id":9,"class_id":1}`, 1, 1},
		{"get_submission", `{"submission_id":999,"class_id":1}`, 1, 1},
		{"list_submission_files", `{"submission_id":3,"class_id":1}`, 1, 1},
		{"get_submission_files", `{"submission_id":3,"class_id":1,"glob_pattern":"*.md"}`, 1, 1},
		{"list_submission_tests", `{"submission_id":3,"class_id":1}`, 1, 1},
		{"get_test_output", `{"submission_id":3,"class_id":1,"test_id":11}`, 1, 1},
		{"get_submission_build_output", `{"submission_id":3,"class_id":1}`, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			db, cnt := clientFor(t, userAlice)
			cnt.SetDelay(30 * time.Millisecond)
			callTool(t, db, tt.tool, tt.args)
			if got := cnt.Count(); got != tt.count {
				t.Errorf("requests = %d, want %d: %v", got, tt.count, cnt.Tables())
			}
			if got := cnt.Depth(); got != tt.depth {
				t.Errorf("depth = %d, want %d", got, tt.depth)
			}
		})
	}
}

// TestSubmissionFilesBadGlob: a pattern minimatch rejects fails the call
// when there are files to filter (the original threw from its filter) and
// is harmless when there are none.
func TestSubmissionFilesBadGlob(t *testing.T) {
	db, _ := clientFor(t, userAlice)
	long := strings.Repeat("a", 70000)
	call := func(sid string) error {
		v, _ := jsjson.Decode([]byte(`{"submission_id":` + sid + `,"class_id":1,"glob_pattern":"` + long + `"}`))
		_, err := New(Options{}).Call(context.Background(), db, []string{ScopeRead}, "get_submission_files", v.(*jsjson.Object))
		return err
	}
	if err := call("3"); err == nil {
		t.Error("submission with files: no error for a pattern minimatch rejects")
	}
	if err := call("999"); err != nil {
		t.Errorf("submission without files: error %v, want the empty result", err)
	}
}

// TestGraderResultQueryShape checks that S's single query keeps the
// original's filters, orders and row caps on the embedded grader result
// (the latest of the class, its tests in id order, one build output row
// in the documented order), files and student profile.
func TestGraderResultQueryShape(t *testing.T) {
	db, cnt := clientFor(t, userAlice)
	callTool(t, db, "get_submission", `{"submission_id":3,"class_id":1}`)
	var q string
	for _, r := range cnt.Requests() {
		if r.Table == "submissions" {
			q = r.Query
		}
	}
	for _, want := range []string{
		"grader_results.class_id=eq.1",
		"grader_results.order=created_at.desc",
		"grader_results.limit=1",
		"grader_results.grader_result_tests.order=id.asc",
		"grader_results.grader_result_tests.limit=1000",
		"grader_results.grader_result_output.order=visibility.asc%2Cid.asc",
		"grader_results.grader_result_output.limit=1",
		"submission_files.class_id=eq.1",
		"submission_files.order=name.asc",
		"submission_files.limit=1000",
		"user_roles.class_id=eq.1",
	} {
		if !strings.Contains(q, want) && !strings.Contains(q, strings.ReplaceAll(want, "%2C", ",")) {
			t.Errorf("submissions query %q lacks %q", q, want)
		}
	}
}
