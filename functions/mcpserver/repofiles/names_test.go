package repofiles

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeTemplateRepo(t *testing.T) {
	type result struct {
		Org, Repo string
		OK        bool
	}
	tests := []struct {
		name, in string
		want     result
	}{
		{"plain", "org/repo", result{"org", "repo", true}},
		{"empty", "", result{}},
		{"step1 https", "https://github.com/org/repo", result{"org", "repo", true}},
		{"step1 http www", "http://www.github.com/org/repo", result{"org", "repo", true}},
		{"step1 case-insensitive", "HTTPS://WWW.GitHub.COM/org/repo", result{"org", "repo", true}},
		{"step1 kelvin sign is not k", "https://github.com/org/repo/\u212a", result{}},
		{"step1 other host kept", "https://gitlab.com/org/repo", result{}},
		{"step1 only once", "https://github.com/https://github.com/org/repo", result{}},
		{"step2 ssh", "git@github.com:org/repo.git", result{"org", "repo", true}},
		{"step2 ssh case-insensitive", "GIT@GITHUB.COM:org/repo", result{"org", "repo", true}},
		{"step1 then step2", "https://github.com/git@github.com:org/repo", result{"org", "repo", true}},
		{"step3 trailing .git", "org/repo.git", result{"org", "repo", true}},
		{"step3 only one .git", "org/repo.git.git", result{"org", "repo.git", true}},
		{"step3 case-sensitive", "org/repo.GIT", result{"org", "repo.GIT", true}},
		{"step3 before trim", "org/repo.git ", result{"org", "repo.git", true}},
		{"step3 before slash strip", "org/repo.git/", result{"org", "repo.git", true}},
		{"step4 whitespace", "  \torg/repo\n", result{"org", "repo", true}},
		{"step4 js whitespace", "\u00a0\ufefforg/repo\u3000", result{"org", "repo", true}},
		{"step4 slashes", "///org/repo//", result{"org", "repo", true}},
		{"step4 url with trailing slash", "https://github.com/org/repo/", result{"org", "repo", true}},
		{"step5 inner empty segments", "org//repo", result{"org", "repo", true}},
		{"step5 one part", "repo", result{}},
		{"step5 three parts", "https://github.com/org/repo/tree/main", result{}},
		{"step5 only slashes", "///", result{}},
		{"whitespace inside kept", "my org/my repo", result{"my org", "my repo", true}},
		{"leading space defeats step1", " https://github.com/org/repo", result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			org, repo, ok := NormalizeTemplateRepo(tt.in)
			if diff := cmp.Diff(tt.want, result{org, repo, ok}); diff != "" {
				t.Errorf("NormalizeTemplateRepo(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestSplitGraderRepo(t *testing.T) {
	type result struct {
		Org, Repo string
		OK        bool
	}
	tests := []struct {
		in   string
		want result
	}{
		{"org/repo", result{"org", "repo", true}},
		{"org/repo/extra/parts", result{"org", "repo", true}},
		{" org / repo ", result{" org ", " repo ", true}},
		{"https://github.com/org/repo", result{"https:", "", false}},
		{"org", result{}},
		{"", result{}},
		{"/repo", result{}},
		{"org/", result{}},
		{"org/repo.git", result{"org", "repo.git", true}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			org, repo, ok := SplitGraderRepo(tt.in)
			got := result{org, repo, ok}
			if !ok {
				got = result{}
			}
			if tt.want.OK == false {
				tt.want = result{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitGraderRepo(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func FuzzNormalizeTemplateRepo(f *testing.F) {
	for _, s := range []string{"org/repo", "https://github.com/o/r.git", "git@github.com:o/r", " /a//b/ ", "", "a/b/c", "\u00a0a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		org, repo, ok := NormalizeTemplateRepo(s)
		if !ok {
			if org != "" || repo != "" {
				t.Fatalf("NormalizeTemplateRepo(%q) = %q, %q, false; want empty strings", s, org, repo)
			}
			return
		}
		if org == "" || repo == "" || strings.Contains(org, "/") || strings.Contains(repo, "/") {
			t.Fatalf("NormalizeTemplateRepo(%q) = %q, %q: want two non-empty segments without '/'", s, org, repo)
		}
		if !strings.Contains(s, org) || !strings.Contains(s, repo) {
			t.Fatalf("NormalizeTemplateRepo(%q) = %q, %q: segments must come from the input", s, org, repo)
		}
	})
}

func TestExcluded(t *testing.T) {
	tests := []struct {
		path           string
		grader, handot bool
	}{
		{"src/Main.java", false, false},
		{".git/config", true, true},
		{".github/workflows/grade.yml", true, true},
		{".github/CODEOWNERS", true, true},
		{".gitignore", true, true},
		{".gitattributes", true, true},
		{"src/.gitignore", false, false},
		{"node_modules/x/index.js", true, true},
		{"web/node_modules/x.js", true, true},
		{"docs/node_modules_notes.md", true, true},
		{".DS_Store", true, true},
		{"src/.DS_Store", false, false},
		{".DS_Store.bak", false, false},
		{"build/Main.class", true, true},
		{"Main.class.txt", false, false},
		{"a.pyc", true, true},
		{"pkg/__pycache__/a.cpython.pyc", true, true},
		{"pkg/__pycache__/notes.txt", false, false},
		{"__pycache__/notes.txt", true, true},
		{"__pycache__x", true, true},
		{"README.md", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := excluded(tt.path, Grader); got != tt.grader {
				t.Errorf("excluded(%q, Grader) = %v, want %v", tt.path, got, tt.grader)
			}
			if got := excluded(tt.path, Handout); got != tt.handot {
				t.Errorf("excluded(%q, Handout) = %v, want %v", tt.path, got, tt.handot)
			}
		})
	}
}
