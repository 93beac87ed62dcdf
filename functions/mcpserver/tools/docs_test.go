package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryToolIsDocumented: each read tool has its section in the
// behaviour contract (docs/contract/tools.md: §2 for the original's, §6
// for the ones it lacks), and each tool the original lacks is listed in
// docs/compatibility.md's row S26, so a tool is not added without the
// documents that describe it.
func TestEveryToolIsDocumented(t *testing.T) {
	// read reads a file named from the repository's root.
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	contract, compat := read("docs/contract/tools.md"), read("docs/compatibility.md")
	s26 := regexp.MustCompile(`(?m)^\| S26 \|[^\n]*`).FindString(compat)
	if s26 == "" {
		t.Fatal("docs/compatibility.md has no row S26")
	}
	for _, tool := range readTools() {
		section := "2"
		if tool.NegotiatedOnly {
			section = "6"
			if !strings.Contains(s26, "`"+tool.Name+"`") {
				t.Errorf("%s is not listed in docs/compatibility.md S26", tool.Name)
			}
		}
		heading := regexp.MustCompile("(?m)^### " + section + `\.\d+ ` + "`" + regexp.QuoteMeta(tool.Name) + "`$")
		if !heading.MatchString(contract) {
			t.Errorf("%s has no section ### %s.N in docs/contract/tools.md", tool.Name, section)
		}
	}
}
