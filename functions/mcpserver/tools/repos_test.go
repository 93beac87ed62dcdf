package tools

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles/githubfake"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// fakeGitHub serves the seed's repositories (SEED.md "Assignments"):
//
//   - pawtograder-cs3500/hw1-solution (grader of assignment 1): every
//     exclusion rule of docs/contract/tools.md §1.9, the size cut-off on both sides,
//     a symlink and a submodule, non-ASCII contents and a file whose
//     fetch fails;
//   - pawtograder-cs3500/hw2-grader (assignment 2): 105 Java files, more
//     than the 100 whose contents are fetched;
//   - pawtograder-cs3500/hw1-handout and hw2-handout (the latter named by
//     URL in the seed) for the handout tools, with .github/workflows;
//   - no lab0 repositories (assignment 4: GitHub answers 404) and no
//     installation on pawtograder-cs2100 (assignment 5).
func fakeGitHub(t *testing.T) *githubfake.Server {
	t.Helper()
	gh := githubfake.New(githubfake.Options{})
	t.Cleanup(gh.Close)
	gh.AddInstallation("pawtograder-cs3500", 1001)

	gh.AddRepo("pawtograder-cs3500", "hw1-solution").
		AddFile("README.md", "# HW1 solution\n").
		AddFile("src/Main.java", "public class Main {}\n").
		AddFile("src/Util.java", "final class Util {}\n").
		AddFile("src/__pycache__/kept.py", "# only root-level __pycache__ is excluded\n").
		AddFile("src/.DS_Store", "nested .DS_Store is kept").
		AddFile("tests/MainTest.java", "// Grüße, 日本語 ✓ — tests <b>&</b>\n").
		AddFile("mutants/M1/Main.java", "class Main { /* mutant 1 */ }\n").
		AddFile("mutants/M2/Main.java", "class Main { /* mutant 2 */ }\n").
		AddFile("mutants/notes.md", "Mutants live here.\n").
		AddFileWithSize("data/exact.txt", "exactly at the cut-off", 100000).
		AddFileWithSize("data/big.txt", "over the cut-off", 100001).
		AddFile("broken/Unreadable.java", "class Unreadable {}\n").
		FailPath("broken/Unreadable.java", http.StatusInternalServerError).
		AddFile(".gitignore", "*.class\n").
		AddFile(".github/workflows/grade.yml", "on: push\n").
		AddFile(".DS_Store", "root .DS_Store is excluded").
		AddFile("node_modules/left-pad/index.js", "module.exports = 1\n").
		AddFile("lib/node_modules_notes.txt", "substring rule excludes this too\n").
		AddFile("bin/Main.class", "\xca\xfe\xba\xbe").
		AddFile("scripts/tool.pyc", "pyc").
		AddFile("__pycache__/root.py", "# excluded\n").
		AddSymlink("link-to-readme", "README.md").
		AddSubmodule("vendor/lib", "https://github.com/example/lib.git")

	many := gh.AddRepo("pawtograder-cs3500", "hw2-grader")
	for i := range 105 {
		many.AddFile(fmt.Sprintf("tests/T%03d.java", i), fmt.Sprintf("class T%03d {}\n", i))
	}

	gh.AddRepo("pawtograder-cs3500", "hw1-handout").
		AddFile("README.md", "# HW1 — starter code\n").
		AddFile("src/Main.java", "public class Main {\n    // TODO\n}\n").
		AddFile(".github/workflows/grade.yml", "on: push\n").
		AddFile("src/Main.class", "\xca\xfe")
	gh.AddRepo("pawtograder-cs3500", "hw2-handout").
		AddFile("src/LinkedList.java", "public class LinkedList {}\n")
	return gh
}

// repoRegistry is a Registry whose repository client talks to gh.
func repoRegistry(t *testing.T, gh *githubfake.Server) *Registry {
	t.Helper()
	rc, err := repofiles.New(repofiles.Options{
		AppID:         gh.AppIDString(),
		PrivateKeyPEM: gh.PrivateKeyPEM(),
		BaseURL:       gh.URL,
		HTTPClient:    gh.Client(),
		Logger:        slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{Repos: rc})
}

// runRepoCases is runGoldenCases over a registry with the fake GitHub.
func runRepoCases(t *testing.T, reg *Registry, tool string, cases []goldenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := clientFor(t, tc.user)
			checkGolden(t, tool+"/"+tc.name, callToolWith(t, reg, db, tool, tc.args))
		})
	}
}

func TestListGraderFiles(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	runRepoCases(t, reg, "list_grader_files", []goldenCase{
		{"exclusions_and_size", userAlice, `{"assignment_id":1,"class_id":1}`},
		// Quirk 2 kept: only instructors can read autograder rows.
		{"grader_sees_nothing", userGary, `{"assignment_id":1,"class_id":1}`},
		{"student_sees_nothing", userSam, `{"assignment_id":1,"class_id":1}`},
		// Quirk 1 fixed: the original ignored class_id and listed the
		// repository of assignment 1, which Alice can read as its instructor.
		{"wrong_class", userAlice, `{"assignment_id":1,"class_id":2}`},
		{"other_class_instructor_wrong_class", userBea, `{"assignment_id":1,"class_id":2}`},
		{"no_grader_repo", userAlice, `{"assignment_id":3,"class_id":1}`},
		{"missing_repository", userAlice, `{"assignment_id":4,"class_id":1}`},
		{"no_installation", userBea, `{"assignment_id":5,"class_id":2}`},
		{"not_found", userAlice, `{"assignment_id":999,"class_id":1}`},
	})
}

func TestGetGraderFiles(t *testing.T) {
	gh := fakeGitHub(t)
	reg := repoRegistry(t, gh)
	runRepoCases(t, reg, "get_grader_files", []goldenCase{
		{"all_in_path_order", userAlice, `{"assignment_id":1,"class_id":1}`},
		{"globstar", userAlice, `{"assignment_id":1,"class_id":1,"glob_pattern":"mutants/**/*"}`},
		{"root_star_only", userAlice, `{"assignment_id":1,"class_id":1,"glob_pattern":"*.md"}`},
		{"braces_non_ascii", userAlice, `{"assignment_id":1,"class_id":1,"glob_pattern":"{tests,src}/*.java"}`},
		{"dot_files_need_a_dot", userAlice, `{"assignment_id":1,"class_id":1,"glob_pattern":"src/*"}`},
		{"no_match", userAlice, `{"assignment_id":1,"class_id":1,"glob_pattern":"*.py"}`},
		{"first_100_only", userAlice, `{"assignment_id":2,"class_id":1}`},
		{"grader_sees_nothing", userGary, `{"assignment_id":1,"class_id":1}`},
		{"wrong_class", userAlice, `{"assignment_id":1,"class_id":2,"glob_pattern":"*.md"}`},
		{"missing_repository", userAlice, `{"assignment_id":4,"class_id":1}`},
		{"bad_glob", userAlice, `{"assignment_id":1,"class_id":1,"glob_pattern":"` + strings.Repeat("a", 70000) + `"}`},
	})
}

func TestListHandoutFiles(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	runRepoCases(t, reg, "list_handout_files", []goldenCase{
		{"exclusions", userAlice, `{"assignment_id":1,"class_id":1}`},
		{"as_grader", userGary, `{"assignment_id":1,"class_id":1}`},
		{"as_student", userSam, `{"assignment_id":1,"class_id":1}`},
		{"url_form_template_repo", userAlice, `{"assignment_id":2,"class_id":1}`},
		{"no_template_repo", userAlice, `{"assignment_id":3,"class_id":1}`},
		{"missing_repository", userAlice, `{"assignment_id":4,"class_id":1}`},
		{"no_installation", userBea, `{"assignment_id":5,"class_id":2}`},
		{"wrong_class", userAlice, `{"assignment_id":1,"class_id":2}`},
	})
}

func TestGetHandoutFiles(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	runRepoCases(t, reg, "get_handout_files", []goldenCase{
		{"all", userAlice, `{"assignment_id":1,"class_id":1}`},
		{"glob", userAlice, `{"assignment_id":1,"class_id":1,"glob_pattern":"src/**/*.java"}`},
		{"url_form_template_repo", userGary, `{"assignment_id":2,"class_id":1}`},
		{"no_template_repo", userAlice, `{"assignment_id":3,"class_id":1,"glob_pattern":"*"}`},
		{"wrong_class", userAlice, `{"assignment_id":1,"class_id":2}`},
	})
}

// TestRepoToolsWithoutGitHub: a registry without a repository client gives
// every repository tool its empty result.
func TestRepoToolsWithoutGitHub(t *testing.T) {
	db, _ := clientFor(t, userAlice)
	for tool, want := range map[string]string{
		"list_grader_files":  "{\n  \"files\": [],\n  \"total_count\": 0\n}",
		"get_grader_files":   "{\n  \"files\": [],\n  \"matched_count\": 0\n}",
		"list_handout_files": "{\n  \"files\": [],\n  \"total_count\": 0\n}",
		"get_handout_files":  "{\n  \"files\": [],\n  \"matched_count\": 0\n}",
	} {
		if got := callTool(t, db, tool, `{"assignment_id":1,"class_id":1}`); got != want {
			t.Errorf("%s = %s, want %s", tool, got, want)
		}
	}
}

// TestGetGraderFilesBounds: at most 100 contents requests, at most 10 at
// once, one PostgREST request for the repository look-up, and the contents
// in path order although the fetches complete in any order (quirk 9 fixed).
func TestGetGraderFilesBounds(t *testing.T) {
	gh := fakeGitHub(t)
	gh.SetLatency(20 * time.Millisecond)
	reg := repoRegistry(t, gh)
	db, cnt := clientFor(t, userAlice)
	text := callToolWith(t, reg, db, "get_grader_files", `{"assignment_id":2,"class_id":1}`)
	v, err := jsjson.Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := v.(*jsjson.Object).Array("files")
	var names []string
	for _, f := range files {
		n, _ := f.(*jsjson.Object).String("name")
		names = append(names, n)
	}
	if len(names) != 100 || !slices.IsSorted(names) || names[0] != "tests/T000.java" || names[99] != "tests/T099.java" {
		t.Errorf("fetched %d files, want tests/T000.java … tests/T099.java in path order: %v", len(names), names)
	}
	st := gh.Stats()
	// One listing request for the root and one for tests/, then the fetches.
	if got, want := st.ContentRequests, 2+100; got != want {
		t.Errorf("contents requests = %d, want %d", got, want)
	}
	if st.MaxInFlight > 10 {
		t.Errorf("peak concurrent contents requests = %d, want ≤ 10", st.MaxInFlight)
	}
	if got := cnt.Count(); got != 1 {
		t.Errorf("PostgREST requests = %d, want 1: %v", got, cnt.Tables())
	}
}
