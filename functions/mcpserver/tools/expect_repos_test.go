package tools

import (
	"fmt"
	"testing"
)

// Expectations for the four repository tools, written by hand from the
// repositories fakeGitHub serves (repos_test.go) and the rules of the
// contract: the exclusions of docs/contract/tools.md §1.9, GitHub's
// listing of docs/contract/github.md §3 (symlinks skipped; a submodule is
// listed inside a directory as a "file" of size 0 but is not a file when
// fetched), quirk Q1 (the grader repository of an assignment of another
// class is not read) and quirk Q9 (contents in path order).

// graderListing1 is what survives the grader exclusions in
// pawtograder-cs3500/hw1-solution, in listing order. Dropped: .gitignore and
// .github/… (rule 1), node_modules/… and lib/node_modules_notes.txt (rule
// 3, a substring), the root .DS_Store (rule 4), bin/Main.class (5),
// scripts/tool.pyc (6), the root __pycache__/ (7), data/big.txt (8, over
// 100 000 bytes) and the symlink.
var graderListing1 = []any{
	"README.md",
	"broken/Unreadable.java",
	"data/exact.txt", // exactly 100 000 bytes: kept
	"mutants/M1/Main.java",
	"mutants/M2/Main.java",
	"mutants/notes.md",
	"src/.DS_Store", // only a root-level .DS_Store is excluded
	"src/Main.java",
	"src/Util.java",
	"src/__pycache__/kept.py", // only a root-level __pycache__ is excluded
	"tests/MainTest.java",
	"vendor/lib", // the submodule
}

// graderContents1 are the fetched files of hw1-solution: the listing less
// broken/Unreadable.java (its fetch fails) and vendor/lib (not a file).
var graderContents1 = map[string]any{
	"README.md":               "# HW1 solution\n",
	"data/exact.txt":          "exactly at the cut-off",
	"mutants/M1/Main.java":    "class Main { /* mutant 1 */ }\n",
	"mutants/M2/Main.java":    "class Main { /* mutant 2 */ }\n",
	"mutants/notes.md":        "Mutants live here.\n",
	"src/.DS_Store":           "nested .DS_Store is kept",
	"src/Main.java":           "public class Main {}\n",
	"src/Util.java":           "final class Util {}\n",
	"src/__pycache__/kept.py": "# only root-level __pycache__ is excluded\n",
	"tests/MainTest.java":     "// Grüße, 日本語 ✓ — tests <b>&</b>\n",
}

// filesOf builds {files: [{name, contents}…], matched_count} for names in
// the given order.
func filesOf(contents map[string]any, names ...string) map[string]any {
	files := []any{}
	for _, n := range names {
		files = append(files, map[string]any{"name": n, "contents": contents[n]})
	}
	return map[string]any{"files": files, "matched_count": float64(len(files))}
}

var (
	emptyList  = map[string]any{"files": []any{}, "total_count": 0.0}
	emptyFiles = map[string]any{"files": []any{}, "matched_count": 0.0}
)

func TestExpectListGraderFiles(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	t.Run("exclusions", func(t *testing.T) {
		got := toolJSON(t, reg, userAlice, "list_grader_files", `{"assignment_id":1,"class_id":1}`)
		expectEqual(t, "names", graderListing1, pluck(field(got, "files"), "name"))
		expectEqual(t, "total_count", float64(len(graderListing1)), field(got, "total_count"))
		for _, f := range field(got, "files").([]any) {
			want, ok := map[string]float64{"data/exact.txt": 100000, "README.md": 15, "vendor/lib": 0}[field(f, "name").(string)]
			if ok && field(f, "size") != want {
				t.Errorf("%v: size %v, want %v (GitHub's, not recomputed)", field(f, "name"), field(f, "size"), want)
			}
		}
	})
	t.Run("more_than_100_files_are_all_listed", func(t *testing.T) {
		got := toolJSON(t, reg, userAlice, "list_grader_files", `{"assignment_id":2,"class_id":1}`)
		expectEqual(t, "total_count", 105.0, field(got, "total_count"))
	})
	for _, tc := range []struct{ name, user, args string }{
		{"grader_cannot_read_autograder", userGary, `{"assignment_id":1,"class_id":1}`},
		{"student", userSam, `{"assignment_id":1,"class_id":1}`},
		{"q1_assignment_of_another_class", userAlice, `{"assignment_id":1,"class_id":2}`},
		{"no_grader_repo", userAlice, `{"assignment_id":3,"class_id":1}`},
		{"missing_repository", userAlice, `{"assignment_id":4,"class_id":1}`},
		{"no_installation", userBea, `{"assignment_id":5,"class_id":2}`},
		{"not_found", userAlice, `{"assignment_id":999,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", emptyList, toolJSON(t, reg, tc.user, "list_grader_files", tc.args))
		})
	}
}

func TestExpectGetGraderFiles(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	for _, tc := range []struct {
		name, glob string
		want       map[string]any
	}{
		{"all_in_path_order", "", filesOf(graderContents1, "README.md", "data/exact.txt", "mutants/M1/Main.java",
			"mutants/M2/Main.java", "mutants/notes.md", "src/.DS_Store", "src/Main.java", "src/Util.java",
			"src/__pycache__/kept.py", "tests/MainTest.java")},
		{"star_stays_in_its_directory", "src/*", filesOf(graderContents1, "src/Main.java", "src/Util.java")},
		{"dot_files_need_a_dot", "src/.*", filesOf(graderContents1, "src/.DS_Store")},
		{"globstar", "**/*.java", filesOf(graderContents1, "mutants/M1/Main.java", "mutants/M2/Main.java",
			"src/Main.java", "src/Util.java", "tests/MainTest.java")},
		{"braces", "{README,mutants/notes}.md", filesOf(graderContents1, "README.md", "mutants/notes.md")},
		{"no_match", "*.py", emptyFiles},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := fmt.Sprintf(`{"assignment_id":1,"class_id":1,"glob_pattern":%q}`, tc.glob)
			expectEqual(t, "files", tc.want, toolJSON(t, reg, userAlice, "get_grader_files", args))
		})
	}
	t.Run("first_100_only", func(t *testing.T) {
		got := toolJSON(t, reg, userAlice, "get_grader_files", `{"assignment_id":2,"class_id":1}`)
		names := pluck(field(got, "files"), "name")
		if len(names) != 100 || names[0] != "tests/T000.java" || names[99] != "tests/T099.java" {
			t.Errorf("got %d files %v … , want tests/T000.java … tests/T099.java", len(names), names[:min(len(names), 3)])
		}
		expectEqual(t, "matched_count", 100.0, field(got, "matched_count"))
	})
	for _, tc := range []struct{ name, user, args string }{
		{"grader_cannot_read_autograder", userGary, `{"assignment_id":1,"class_id":1}`},
		{"q1_assignment_of_another_class", userAlice, `{"assignment_id":1,"class_id":2}`},
		{"missing_repository", userAlice, `{"assignment_id":4,"class_id":1,"glob_pattern":"*"}`},
		{"not_found", userAlice, `{"assignment_id":999,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", emptyFiles, toolJSON(t, reg, tc.user, "get_grader_files", tc.args))
		})
	}
}

func TestExpectListHandoutFiles(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	// hw1-handout less .github/workflows/grade.yml (rules 1 and 2) and
	// src/Main.class (rule 5); students read the handout too.
	for _, user := range []string{userAlice, userGary, userSam} {
		t.Run("hw1_as_"+user[len(user)-2:], func(t *testing.T) {
			got := toolJSON(t, reg, user, "list_handout_files", `{"assignment_id":1,"class_id":1}`)
			expectEqual(t, "names", []any{"README.md", "src/Main.java"}, pluck(field(got, "files"), "name"))
			expectEqual(t, "total_count", 2.0, field(got, "total_count"))
		})
	}
	t.Run("url_form_template_repo", func(t *testing.T) {
		got := toolJSON(t, reg, userAlice, "list_handout_files", `{"assignment_id":2,"class_id":1}`)
		expectEqual(t, "names", []any{"src/LinkedList.java"}, pluck(field(got, "files"), "name"))
	})
	for _, tc := range []struct{ name, user, args string }{
		{"no_template_repo", userAlice, `{"assignment_id":3,"class_id":1}`},
		{"missing_repository", userAlice, `{"assignment_id":4,"class_id":1}`},
		{"no_installation", userBea, `{"assignment_id":5,"class_id":2}`},
		{"assignment_of_another_class", userAlice, `{"assignment_id":1,"class_id":2}`},
		{"not_found", userAlice, `{"assignment_id":999,"class_id":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", emptyList, toolJSON(t, reg, tc.user, "list_handout_files", tc.args))
		})
	}
}

func TestExpectGetHandoutFiles(t *testing.T) {
	reg := repoRegistry(t, fakeGitHub(t))
	hw1 := map[string]any{
		"README.md":     "# HW1 — starter code\n",
		"src/Main.java": "public class Main {\n    // TODO\n}\n",
	}
	for _, tc := range []struct {
		name, user, args string
		want             map[string]any
	}{
		{"all", userAlice, `{"assignment_id":1,"class_id":1}`, filesOf(hw1, "README.md", "src/Main.java")},
		{"glob", userSam, `{"assignment_id":1,"class_id":1,"glob_pattern":"src/**/*.java"}`, filesOf(hw1, "src/Main.java")},
		{"url_form_template_repo", userGary, `{"assignment_id":2,"class_id":1}`,
			filesOf(map[string]any{"src/LinkedList.java": "public class LinkedList {}\n"}, "src/LinkedList.java")},
		{"no_template_repo", userAlice, `{"assignment_id":3,"class_id":1,"glob_pattern":"*"}`, emptyFiles},
		{"assignment_of_another_class", userAlice, `{"assignment_id":1,"class_id":2}`, emptyFiles},
		{"not_found", userAlice, `{"assignment_id":999,"class_id":1}`, emptyFiles},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectEqual(t, "answer", tc.want, toolJSON(t, reg, tc.user, "get_handout_files", tc.args))
		})
	}
}
