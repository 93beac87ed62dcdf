package activityrecord

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	s1 = "11111111-1111-4111-8111-111111111111"
	s2 = "22222222-2222-4222-8222-222222222222"
)

func TestStudents(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"none", `[]`, nil},
		{"indented", "[\n  {\n    \"student_profile_id\": \"" + s1 + "\",\n    \"student_name\": \"A\"\n  }\n]", []string{s1}},
		{"compact, repeated, two", `[{"student_profile_id":"` + s2 + `"},{"student_profile_id":"` + s1 + `"},{"student_profile_id":"` + s2 + `"}]`, []string{s2, s1}},
		{"null", `{"student_profile_id": null}`, nil},
		{"not a uuid", `{"student_profile_id": "robert'); drop table"}`, nil},
		{"a student's text cannot forge one", `{"request":"see \"student_profile_id\": \"` + s1 + `\""}`, nil},
		{"other profile keys are not students", `{"assignee_profile_id":"` + s1 + `","author_profile_id":"` + s2 + `"}`, nil},
		{"text left after the key is short", `{"student_profile_id": "1111`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Students([]byte(tt.text))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestStudentsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range MaxStudents + 5 {
		id := []byte(s1)
		copy(id[24:], []byte(strings.Repeat("0", 12)))
		n := []byte{byte('0' + i/1000%10), byte('0' + i/100%10), byte('0' + i/10%10), byte('0' + i%10)}
		copy(id[32:], n)
		b.WriteString(`{"student_profile_id":"` + string(id) + `"},`)
	}
	b.WriteString("{}]")
	if got := len(Students([]byte(b.String()))); got != MaxStudents {
		t.Fatalf("got %d students, want %d", got, MaxStudents)
	}
}

func FuzzStudents(f *testing.F) {
	f.Add([]byte(`[{"student_profile_id":"` + s1 + `"}]`))
	f.Add([]byte(`"student_profile_id"`))
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, id := range Students(text) {
			if len(id) != 36 || !isUUID([]byte(id)) {
				t.Fatalf("not a uuid: %q", id)
			}
		}
	})
}
