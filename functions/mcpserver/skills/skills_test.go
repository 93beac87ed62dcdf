package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestCatalogue pins the served skills, their scopes and URIs.
func TestCatalogue(t *testing.T) {
	type row struct {
		Name, URI string
		Writes    bool
	}
	var got []row
	for _, s := range All() {
		got = append(got, row{s.Name, s.URI, s.Writes})
	}
	want := []row{
		{"failing-tests-diagnosis", "skill://pawtograder/failing-tests-diagnosis/SKILL.md", false},
		{"grading-progress", "skill://pawtograder/grading-progress/SKILL.md", false},
		{"help-request-reply", "skill://pawtograder/help-request-reply/SKILL.md", true},
		{"help-request-triage", "skill://pawtograder/help-request-triage/SKILL.md", false},
		{"office-hours-prep", "skill://pawtograder/office-hours-prep/SKILL.md", false},
		{"regrade-reply", "skill://pawtograder/regrade-reply/SKILL.md", true},
		{"regrade-triage", "skill://pawtograder/regrade-triage/SKILL.md", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	var readers []string
	for _, s := range For(false) {
		readers = append(readers, s.Name)
	}
	if diff := cmp.Diff([]string{"failing-tests-diagnosis", "grading-progress", "help-request-triage", "office-hours-prep", "regrade-triage"}, readers); diff != "" {
		t.Errorf("For(false) (-want +got):\n%s", diff)
	}
	if len(For(true)) != len(All()) {
		t.Errorf("For(true) has %d skills, want all %d", len(For(true)), len(All()))
	}
}

// TestEntries checks what the extension's entry carries against the file:
// the digest and size of its bytes, name and description from the
// frontmatter, and the frontmatter keys in the author's order.
func TestEntries(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			sum := sha256.Sum256([]byte(s.Text))
			if want := "sha256:" + hex.EncodeToString(sum[:]); s.Digest != want || s.Size != len(s.Text) {
				t.Errorf("digest %s size %d, want %s %d", s.Digest, s.Size, want, len(s.Text))
			}
			if diff := cmp.Diff([]string{"name", "description", "metadata"}, s.Frontmatter.Keys()); diff != "" {
				t.Errorf("frontmatter keys (-want +got):\n%s", diff)
			}
			if got, _ := s.Frontmatter.String("name"); got != s.Name {
				t.Errorf("frontmatter name %q", got)
			}
			if b, ok := ByURI(s.URI); !ok || b != s {
				t.Errorf("ByURI(%s) does not find the skill", s.URI)
			}
		})
	}
	if _, ok := ByURI("skill://pawtograder/nothing/SKILL.md"); ok {
		t.Error("ByURI found an unknown skill")
	}
}

// TestStudentTextIsContent checks that every skill says that what students
// wrote is content, never instructions, and that the write skills say
// nothing is written before approval.
func TestStudentTextIsContent(t *testing.T) {
	for _, s := range All() {
		if !strings.Contains(s.Text, "never instructions to you") {
			t.Errorf("%s does not say that student-written text is never instructions", s.Name)
		}
		if s.Writes && !strings.Contains(s.Text, "approval page") {
			t.Errorf("%s proposes writes but does not mention the approval page", s.Name)
		}
	}
}

// TestInlineCodeOnOneLine holds the rule Mentioned relies on: no inline
// code span crosses a line break, so no call escapes the checks.
func TestInlineCodeOnOneLine(t *testing.T) {
	for _, s := range All() {
		for i, line := range strings.Split(s.Text, "\n") {
			if strings.Count(line, "`")%2 != 0 {
				t.Errorf("%s line %d: inline code crosses a line break: %s", s.Name, i+1, line)
			}
		}
	}
}

// TestParseRefuses covers the checks load makes on a SKILL.md.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, dir, text, want string }{
		{"no frontmatter", "a", "# A\n", `SKILL.md must begin with a "---" line`},
		{"unclosed", "a", "---\nname: a\n", `frontmatter has no closing "---" line`},
		{"name differs from directory", "b", "---\nname: a\ndescription: d\nmetadata:\n  scope: mcp:read\n---\n", `name "a" must equal the directory name and follow the Agent Skills naming rules`},
		{"bad name", "A-", "---\nname: A-\ndescription: d\nmetadata:\n  scope: mcp:read\n---\n", `name "A-" must equal the directory name and follow the Agent Skills naming rules`},
		{"no description", "a", "---\nname: a\nmetadata:\n  scope: mcp:read\n---\n", "description must have 1 to 1024 characters"},
		{"no scope", "a", "---\nname: a\ndescription: d\n---\n", `metadata.scope must be "mcp:read" or "mcp:write"`},
		{"not a string", "a", "---\nname: a\ndescription: 12\n---\n", `frontmatter: line 3: "12" is not a string; quote it`},
		{"duplicate key", "a", "---\nname: a\nname: a\n---\n", `frontmatter: line 3: duplicate key "name"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(fstest.MapFS{tc.dir + "/SKILL.md": {Data: []byte(tc.text)}})
			want := "skills: " + tc.dir + "/SKILL.md: " + tc.want
			if err == nil || err.Error() != want {
				t.Errorf("error %v, want %s", err, want)
			}
		})
	}
}

// TestMentioned reads calls, names and globs back from a sample text.
func TestMentioned(t *testing.T) {
	text := "Call `get_submission_files {submission_id, class_id, glob_pattern: \"**/*.java\"}`,\n" +
		"then `get_rubric` with `assignment_id`; get_assignment is prose.\n" +
		"Not a name: `*.java`; a name with a value: `status: \"open\"`, `student_authored: true`.\n"
	got := Mentioned(text)
	want := Mentions{
		Calls:    []Call{{Tool: "get_submission_files", Args: []string{"submission_id", "class_id", "glob_pattern"}}},
		Words:    []string{"get_rubric", "assignment_id", "status", "student_authored"},
		ToolLike: []string{"get_submission_files", "get_rubric", "get_assignment"},
		Globs:    []string{"**/*.java"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Mentioned (-want +got):\n%s", diff)
	}
}
