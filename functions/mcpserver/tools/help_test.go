package tools

import (
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func TestGetHelpRequest(t *testing.T) {
	runGoldenCases(t, "get_help_request", []goldenCase{
		// Referenced submission 2 (Sam, assignment 1) with a newer latest
		// submission 3; messages by Sam (private and public profile), Gary
		// and Alice, one instructors_only, non-ASCII text.
		{"with_latest_submission", userAlice, `{"help_request_id":1,"class_id":1}`},
		{"as_grader", userGary, `{"help_request_id":1,"class_id":1}`},
		// The referenced submission is the student's latest: no
		// latest_submission.
		{"latest_is_referenced", userAlice, `{"help_request_id":2,"class_id":1}`},
		// No referenced submission: no assignment, submission or latest.
		{"no_submission", userAlice, `{"help_request_id":3,"class_id":1}`},
		// Group submission (no profile) by a student whose public name is
		// the empty string (→ null).
		{"group_submission_empty_public_name", userAlice, `{"help_request_id":5,"class_id":1}`},
		{"class_b_as_instructor_b", userBea, `{"help_request_id":6,"class_id":2}`},
		{"class_b_as_grader_b", userTara, `{"help_request_id":6,"class_id":2}`},
		{"wrong_class", userAlice, `{"help_request_id":1,"class_id":2}`},
		{"other_class_not_member", userAlice, `{"help_request_id":6,"class_id":2}`},
		{"not_found", userAlice, `{"help_request_id":999,"class_id":1}`},
		{"private_request_as_other_student", userSofia, `{"help_request_id":3,"class_id":1}`},
	})
}

func TestSearchHelpRequests(t *testing.T) {
	runGoldenCases(t, "search_help_requests", []goldenCase{
		{"all", userAlice, `{"class_id":1}`},
		{"limit_2", userAlice, `{"class_id":1,"limit":2}`},
		{"limit_0_means_20", userAlice, `{"class_id":1,"limit":0}`},
		{"limit_null_means_20", userAlice, `{"class_id":1,"limit":null}`},
		{"limit_negative", userAlice, `{"class_id":1,"limit":-1}`},
		{"limit_fractional", userAlice, `{"class_id":1,"limit":1.5}`},
		{"status_open", userAlice, `{"class_id":1,"status":"open"}`},
		{"status_empty_is_no_filter", userAlice, `{"class_id":1,"status":""}`},
		{"status_unknown", userAlice, `{"class_id":1,"status":"bogus"}`},
		{"status_with_grammar_chars", userAlice, `{"class_id":1,"status":"open,closed)"}`},
		{"assignment_1", userAlice, `{"class_id":1,"assignment_id":1}`},
		{"assignment_2", userAlice, `{"class_id":1,"assignment_id":2}`},
		// Quirk 12 fixed: the newest request (5) references assignment 2, so
		// the original's one-row page filtered to []; the filter now runs
		// before the limit.
		{"assignment_1_limit_1", userAlice, `{"class_id":1,"assignment_id":1,"limit":1}`},
		{"assignment_and_status", userAlice, `{"class_id":1,"assignment_id":1,"status":"closed"}`},
		{"assignment_0_is_no_filter", userAlice, `{"class_id":1,"assignment_id":0,"limit":1}`},
		{"assignment_other_class", userAlice, `{"class_id":1,"assignment_id":5}`},
		{"assignment_fractional", userAlice, `{"class_id":1,"assignment_id":1.5}`},
		{"as_student", userSam, `{"class_id":1}`},
		{"as_tara_student_class_a", userTara, `{"class_id":1}`},
		{"class_b_as_grader_b", userTara, `{"class_id":2}`},
		{"other_class_not_member", userAlice, `{"class_id":2}`},
		{"class_without_requests", userAlice, `{"class_id":3}`},
	})
}

func TestQueueName(t *testing.T) {
	for _, tt := range []struct {
		row  string
		want any
	}{
		{`{"help_queues":{"name":"office-hours"}}`, "office-hours"},
		{`{"help_queues":{"name":""}}`, unknownQueue}, // quirk 15: || "Unknown Queue"
		{`{"help_queues":{"name":null}}`, unknownQueue},
		{`{"help_queues":null}`, unknownQueue},
		{`{}`, unknownQueue},
	} {
		v, err := jsjson.Decode([]byte(tt.row))
		if err != nil {
			t.Fatal(err)
		}
		if got := queueName(v.(*jsjson.Object)); got != tt.want {
			t.Errorf("queueName(%s) = %v, want %v", tt.row, got, tt.want)
		}
	}
}

func TestSetProfileFields(t *testing.T) {
	for _, tt := range []struct {
		name  string
		p     publicProfile
		found bool
		want  string
	}{
		{"found", publicProfile{ID: "pub", Name: "Wise Owl"}, true, `{"id":"pub","name":"Wise Owl"}`},
		{"empty name", publicProfile{ID: "pub", Name: ""}, true, `{"id":"pub","name":null}`},
		{"nil name", publicProfile{ID: "pub"}, true, `{"id":"pub","name":null}`},
		{"missing", publicProfile{}, false, `{"id":null,"name":null}`},
	} {
		o := jsjson.NewObject(2)
		setProfileFields(o, "id", "name", tt.p, tt.found)
		got, _ := jsjson.Marshal(o)
		if string(got) != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
