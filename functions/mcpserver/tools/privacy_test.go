package tools

import (
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

// privacyCalls are every read tool's privacy case (toolcases_test.go) for
// the class an instructor teaches.
func privacyCalls(t *testing.T, class int) []struct{ tool, args string } {
	var out []struct{ tool, args string }
	for _, tool := range readTools() {
		c, ok := casesByTool[tool.Name]
		if !ok || c.privacy == nil {
			t.Errorf("%s has no privacy case (TestEveryReadToolHasItsCases)", tool.Name)
			continue
		}
		for _, args := range c.privacy(class) {
			out = append(out, struct{ tool, args string }{tool.Name, args})
		}
	}
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
	withData := map[string]int{}
	for _, caller := range []struct {
		user  string
		class int
	}{{userAlice, 1}, {userBea, 2}} {
		db, cnt := clientFor(t, caller.user)
		calls := privacyCalls(t, caller.class)
		nonEmpty := 0
		for _, call := range calls {
			got := callToolWith(t, reg, db, call.tool, call.args)
			if m := privacyLeak.FindString(got); m != "" {
				t.Errorf("%s%s leaks %q:\n%s", call.tool, call.args, m, got)
			}
			if got != "null" && got != "[]" && !strings.Contains(got, `": []`) {
				nonEmpty++
				withData[call.tool]++
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
	// Each tool's sweep must see data in one class at least.
	for _, tool := range readTools() {
		if withData[tool.Name] == 0 {
			t.Errorf("%s: no privacy call returned data; its privacy case proves nothing", tool.Name)
		}
	}
}
