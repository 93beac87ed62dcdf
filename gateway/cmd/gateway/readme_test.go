package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeListsDependencies: the README's Dependencies section names every
// direct dependency in go.mod and says why supabase-go's PostgREST client
// is not used (issue 15: the decision was only in gateway/postgrest/doc.go).
func TestReadmeListsDependencies(t *testing.T) {
	root := repoRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Dependencies\n")
	if !ok {
		t.Fatal(`README.md has no "## Dependencies" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")

	direct := regexp.MustCompile(`(?m)^\t(\S+) v\S+$`) // indirect lines end with "// indirect"
	var n int
	for _, m := range direct.FindAllStringSubmatch(string(mod), -1) {
		n++
		if !strings.Contains(section, "`"+m[1]+"`") {
			t.Errorf("README.md's Dependencies section does not list %s", m[1])
		}
	}
	if n < 5 {
		t.Fatalf("found only %d direct dependencies in go.mod", n)
	}
	for _, want := range []string{"supabase-go", "postgrest-go", "gateway/postgrest/doc.go", "nullsfirst", "context"} {
		if !strings.Contains(section, want) {
			t.Errorf("README.md's Dependencies section does not mention %q", want)
		}
	}
}
