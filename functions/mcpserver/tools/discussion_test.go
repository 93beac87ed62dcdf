package tools

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func TestSearchFilter(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain", "Hello", `subject.ilike."%Hello%",body.ilike."%Hello%"`},
		{"like wildcards are escaped", `100%_done`, `subject.ilike."%100\\%\\_done%",body.ilike."%100\\%\\_done%"`},
		{"grammar characters are quoted", `a,b)c(d.e`, `subject.ilike."%a,b)c(d.e%",body.ilike."%a,b)c(d.e%"`},
		{"quote and backslash", `say "hi" \o/`, `subject.ilike."%say \"hi\" \\\\o/%",body.ilike."%say \"hi\" \\\\o/%"`},
		{"star switches to a literal regex", `a*b.c`, `subject.imatch."a\\*b\\.c",body.imatch."a\\*b\\.c"`},
		{"regex metacharacters", `*^$|?+()[]{}\`, `subject.imatch."\\*\\^\\$\\|\\?\\+\\(\\)\\[\\]\\{\\}\\\\",body.imatch."\\*\\^\\$\\|\\?\\+\\(\\)\\[\\]\\{\\}\\\\"`},
		{"non-ASCII passes through", "café ☕", `subject.ilike."%café ☕%",body.ilike."%café ☕%"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, searchFilter(tt.text)); diff != "" {
				t.Errorf("searchFilter(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestSearchLimit(t *testing.T) {
	tests := []struct {
		args   string
		want   int
		wantOK bool
	}{
		{`{}`, 20, true},
		{`{"limit":null}`, 20, true},
		{`{"limit":0}`, 20, true}, // JS ||: 0 means the default (quirk 4)
		{`{"limit":-0}`, 20, true},
		{`{"limit":5}`, 5, true},
		{`{"limit":1000}`, 1000, true},
		{`{"limit":1e300}`, 1000, true},
		{`{"limit":-1}`, 0, false},
		{`{"limit":2.5}`, 0, false},
		{`{"limit":1e-7}`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			v, err := jsjson.Decode([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := searchLimit(v.(*jsjson.Object))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("searchLimit(%s) = %d, %v; want %d, %v", tt.args, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestGetDiscussionThread(t *testing.T) {
	runGoldenCases(t, "get_discussion_thread", []goldenCase{
		// Assignment 1, Sam's latest submission, replies by a public
		// profile (null name), staff (accepted answer) and Sam (non-ASCII).
		// The root post is listed first among its own replies: its root is
		// its own id (docs/contract/tools.md §2.2, step 3).
		{"question_with_answer", userAlice, `{"thread_id":1,"class_id":1}`},
		{"include_replies_false", userAlice, `{"thread_id":1,"class_id":1,"include_replies":false}`},
		{"include_replies_null_means_true", userAlice, `{"thread_id":1,"class_id":1,"include_replies":null}`},
		// A reply as thread_id: its author is a public profile (no name, no
		// latest submission) and root=2 has no rows.
		{"reply_by_public_profile", userAlice, `{"thread_id":2,"class_id":1}`},
		// The root post and 60 replies share the 50-row page: the root post
		// and replies 1-49.
		{"reply_limit", userAlice, `{"thread_id":8,"class_id":1}`},
		// Topic without assignment, no replies.
		{"no_assignment", userAlice, `{"thread_id":5,"class_id":1}`},
		{"instructors_only_as_staff", userAlice, `{"thread_id":6,"class_id":1}`},
		{"instructors_only_as_student", userSam, `{"thread_id":6,"class_id":1}`},
		{"pseudonymous_author", userAlice, `{"thread_id":11,"class_id":1}`},
		// An anonymous post (author = Sam's public profile) on assignment 1's
		// topic: the assignment is there, but author fields are null and the
		// latest-submission lookup by a public profile finds nothing
		// (docs/contract/tools.md §2.2 step 3, §4 quirk 11).
		{"anonymous_post_on_assignment", userAlice, `{"thread_id":14,"class_id":1}`},
		{"draft", userAlice, `{"thread_id":12,"class_id":1}`},
		{"class_b_as_instructor_b", userBea, `{"thread_id":9,"class_id":2}`},
		{"wrong_class", userAlice, `{"thread_id":1,"class_id":2}`},
		{"other_class_not_member", userAlice, `{"thread_id":9,"class_id":2}`},
		{"not_found", userAlice, `{"thread_id":999,"class_id":1}`},
	})
}

func TestSearchDiscussionThreads(t *testing.T) {
	runGoldenCases(t, "search_discussion_threads", []goldenCase{
		{"all", userAlice, `{"class_id":1}`},
		{"limit_2", userAlice, `{"class_id":1,"limit":2}`},
		{"limit_0_means_20", userAlice, `{"class_id":1,"limit":0}`},
		{"limit_negative", userAlice, `{"class_id":1,"limit":-5}`},
		{"questions", userAlice, `{"class_id":1,"is_question":true}`},
		{"not_questions", userAlice, `{"class_id":1,"is_question":false}`},
		{"is_question_null", userAlice, `{"class_id":1,"is_question":null}`},
		{"assignment_1", userAlice, `{"class_id":1,"assignment_id":1}`},
		{"assignment_2_as_staff", userAlice, `{"class_id":1,"assignment_id":2}`},
		{"assignment_2_as_student", userSam, `{"class_id":1,"assignment_id":2}`},
		{"assignment_without_topics", userAlice, `{"class_id":1,"assignment_id":3}`},
		{"assignment_other_class", userAlice, `{"class_id":1,"assignment_id":5}`},
		{"assignment_and_question", userAlice, `{"class_id":1,"assignment_id":1,"is_question":true}`},
		{"query_case_insensitive", userAlice, `{"class_id":1,"search_query":"OFFICE hours"}`},
		{"query_empty_is_no_filter", userAlice, `{"class_id":1,"search_query":"","limit":1}`},
		{"query_non_ascii", userAlice, `{"class_id":1,"search_query":"2–4pm"}`},
		{"query_parentheses", userAlice, `{"class_id":1,"search_query":"greet()"}`},
		{"query_no_match", userAlice, `{"class_id":1,"search_query":"no such text"}`},
		{"query_comma", userAlice, `{"class_id":3,"search_query":"a,b"}`},
		{"query_close_paren", userAlice, `{"class_id":3,"search_query":"parens)"}`},
		{"query_double_quote", userAlice, `{"class_id":3,"search_query":"\"quotes\""}`},
		{"query_percent", userAlice, `{"class_id":3,"search_query":"100%"}`},
		{"query_underscore", userAlice, `{"class_id":3,"search_query":"under_score"}`},
		{"query_backslash", userAlice, `{"class_id":3,"search_query":"C:\\temp"}`},
		{"query_unicode", userAlice, `{"class_id":3,"search_query":"ünïcode 🐾"}`},
		{"class_b_as_instructor_b", userBea, `{"class_id":2}`},
		{"other_class_not_member", userAlice, `{"class_id":2}`},
	})
}

// searchCases are search texts over class 3 (searchFixtureSQL) with the
// threads a literal, case-insensitive match must find. Thread 900004 holds
// decoys that a wildcard reading of % _ * or . would also match.
var searchCases = []struct {
	name, text string
	want       []float64
}{
	{"comma", "a,b", []float64{900001}},
	{"close_paren", "parens)", []float64{900001}},
	{"open_paren", "c(d", []float64{900001}},
	{"double_quote", `"quotes"`, []float64{900001}},
	{"star", "2*3", []float64{900002}},
	{"star_case_insensitive", "STAR * POWER", []float64{900002}},
	{"star_dot", "*.java", []float64{900005}},
	{"percent", "100%", []float64{900003}},
	{"underscore", "under_score", []float64{900003}},
	{"backslash", `C:\temp`, []float64{900005}},
	{"unicode", "ünïcode 🐾", []float64{900005}},
}

// TestSearchFilterMatchesLiterallyInPostgreSQL runs the SQL PostgREST
// generates from searchFilter's values directly in PostgreSQL: ILIKE with
// the escaped pattern, or ~* (imatch) with the escaped regex when the text
// holds a star. PostgREST hands imatch values to PostgreSQL unchanged (only
// like/ilike values have * mapped to %), so this proves the matching even
// where the devstack's REST API lacks imatch.
func TestSearchFilterMatchesLiterallyInPostgreSQL(t *testing.T) {
	conn := requireSearchFixture(t).DB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range searchCases {
		t.Run(tc.name, func(t *testing.T) {
			op, val := "ILIKE", "%"+escapeLike(tc.text)+"%"
			if slices.Contains([]rune(tc.text), '*') {
				op, val = "~*", escapeRegex(tc.text)
			}
			rows, err := conn.Query(ctx, "SELECT id::float8 FROM public.discussion_threads WHERE class_id = 3 AND parent IS NULL AND (subject "+op+" $1 OR body "+op+" $1) ORDER BY id", val)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[float64])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s %q matched %v, want %v", op, val, got, tc.want)
			}
		})
	}
}

// TestSearchDiscussionThreadsLiteralText checks the same texts end to end
// through the REST API. Texts with a star go through imatch, which both
// PostgREST and the devstack's REST API implement: an error fails the case.
func TestSearchDiscussionThreadsLiteralText(t *testing.T) {
	requireSearchFixture(t)
	db, _ := clientFor(t, userAlice)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range searchCases {
		t.Run(tc.name, func(t *testing.T) {
			args := jsjson.NewObject(2).Set("class_id", 3.0).Set("search_query", tc.text)
			res, err := New(Options{}).Call(ctx, db, []string{ScopeRead}, "search_discussion_threads", args)
			if err != nil {
				t.Fatal(err)
			}
			var got []float64
			for _, item := range res.([]any) {
				id, _ := item.(*jsjson.Object).Number("id")
				got = append(got, id)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("search %q found %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

// unquotePostgREST reads a double-quoted logic-tree value at the start of s
// as PostgREST does (a backslash takes the next character literally) and
// returns the value and the rest of s.
func unquotePostgREST(s string) (val, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			i++
			b.WriteByte(s[i])
		case '"':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", false
}

// unescapeLiteral undoes a backslash escape and reports whether every
// character in special was escaped.
func unescapeLiteral(p, special string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			i++
			b.WriteByte(p[i])
		case strings.IndexByte(special, p[i]) >= 0:
			return "", false
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String(), true
}

// FuzzSearchFilter checks that any search text yields exactly the two
// conditions subject/body with one value that PostgREST reads back as a
// pattern matching the text literally: no filter-grammar character escapes
// the quotes, and no LIKE or regex metacharacter stays unescaped.
func FuzzSearchFilter(f *testing.F) {
	for _, s := range []string{"hello", `a,b)c(d.e`, `"x"\y`, "100%_*", "*.java", "ünï 🐾", `\`, `"`, "),or=(id.gt.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		filter := searchFilter(text)
		op := "ilike"
		if strings.Contains(text, "*") {
			op = "imatch"
		}
		rest, ok := strings.CutPrefix(filter, "subject."+op+".")
		if !ok {
			t.Fatalf("filter %q does not start with the subject condition", filter)
		}
		v1, rest, ok := unquotePostgREST(rest)
		if !ok {
			t.Fatalf("filter %q: bad quoting", filter)
		}
		rest, ok = strings.CutPrefix(rest, ",body."+op+".")
		if !ok {
			t.Fatalf("filter %q: the subject value does not end at its closing quote", filter)
		}
		v2, rest, ok := unquotePostgREST(rest)
		if !ok || rest != "" || v1 != v2 {
			t.Fatalf("filter %q: body value %q, trailing %q", filter, v2, rest)
		}
		var lit string
		if op == "ilike" {
			inner, ok := strings.CutPrefix(v1, "%")
			inner, ok2 := strings.CutSuffix(inner, "%")
			if !ok || !ok2 {
				t.Fatalf("pattern %q is not %%…%%", v1)
			}
			lit, ok = unescapeLiteral(inner, "%_")
			if !ok {
				t.Fatalf("pattern %q has an unescaped wildcard", v1)
			}
		} else {
			lit, ok = unescapeLiteral(v1, `^$.|?*+()[]{}`)
			if !ok {
				t.Fatalf("regex %q has an unescaped metacharacter", v1)
			}
		}
		if lit != text {
			t.Fatalf("pattern %q matches %q, not the text %q", v1, lit, text)
		}
	})
}
