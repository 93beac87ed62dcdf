package redact

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func TestValue(t *testing.T) {
	in := `{"id":1,"errors":{"token":"abc","detail":"x","nested":[{"API_KEY":"k","Private-Key":"p","ok":1}]},"authorization":null,"score":10,"tests":[{"name":"t","output":"password=hunter2"}]}`
	want := `{"id":1,"errors":{"token":"[REDACTED]","detail":"x","nested":[{"API_KEY":"[REDACTED]","Private-Key":"[REDACTED]","ok":1}]},"authorization":null,"score":10,"tests":[{"name":"t","output":"password=hunter2"}]}`
	v, err := jsjson.Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, n := New(nil).Value(v)
	got, _ := jsjson.Marshal(out)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n != 3 {
		t.Errorf("replaced %d values, want 3", n)
	}
}

func TestKeysOfNormalOutputsAreNotCredentials(t *testing.T) {
	// Every key the 16 tools emit (docs/contract/tools.md §1, §2) must survive untouched.
	keys := []string{
		"id", "help_request_id", "class_id", "request", "status", "created_at", "updated_at", "help_queue_name",
		"student_profile_id", "student_name", "assignment", "submission", "messages", "author_profile_id",
		"author_name", "is_staff", "message", "instructors_only", "thread_id", "subject", "body", "is_question",
		"answer", "replies", "reply_count", "assignment_id", "sha", "repository", "ordinal", "is_active",
		"grader_result", "files", "file_count", "file_names", "name", "contents", "size", "total_count",
		"matched_count", "score", "max_score", "lint_passed", "lint_output", "lint_output_format", "errors",
		"execution_time", "ret_code", "tests", "build_output", "test_count", "tests_passed", "tests_failed",
		"test_names", "part", "output", "output_format", "is_released", "passed", "test", "stdout", "stderr",
		"combined_output", "build", "lint", "title", "slug", "description", "handout_url", "due_date",
		"release_date", "total_points", "has_autograder", "submissions", "latest_submission", "topic",
		"children_count", "likes_count", "draft", "instructors_only", "root", "parent", "author",
	}
	r := New(nil)
	for _, k := range keys {
		if r.IsCredentialKey(k) {
			t.Errorf("key %q would be redacted", k)
		}
	}
}

func TestCustomList(t *testing.T) {
	r := New([]string{"SSN"})
	if !r.IsCredentialKey("student_ssn") || r.IsCredentialKey("token") {
		t.Error("custom list not applied")
	}
}
