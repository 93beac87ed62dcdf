package mcpserver

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/minimatch"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skills"
)

// seededFiles are the seed's submission_files per submission, in name
// order (supabase/fixtures/SEED.md, "submission_files").
var seededFiles = map[int][]string{
	1: {"README.md", "src/Main.java"},
	2: {"README.md", "src/Main.java"},
	3: {"README.md", "docs/notes.txt", "lib/data.bin", "src/Empty.java", "src/Main.java", "src/Util.java"},
	4: {"README.md", "src/Main.java"},
	5: {"src/LinkedList.java"},
	6: {"src/LinkedList.java"},
	7: {"src/Main.java"},
	8: {"Recursion.java"},
	9: {"src/LinkedList.java"},
}

// TestSkillGlobsMatchSeed holds the glob patterns the skills suggest
// against the seeded file names with the tools' minimatch: every pattern
// has a target in skills.GlobTargets, and matches exactly its files. The
// full-stack test (gateway/cmd/gateway) makes the same calls through
// get_submission_files on the seeded database.
func TestSkillGlobsMatchSeed(t *testing.T) {
	for _, s := range skills.All() {
		for _, g := range skills.Mentioned(s.Text).Globs {
			if !slices.ContainsFunc(skills.GlobTargets, func(gt skills.GlobTarget) bool { return gt.Pattern == g }) {
				t.Errorf("%s suggests glob_pattern %q, which has no seeded target in skills.GlobTargets", s.Name, g)
			}
		}
	}
	for _, gt := range skills.GlobTargets {
		m, err := minimatch.Compile(gt.Pattern)
		if err != nil {
			t.Fatalf("%s: %v", gt.Pattern, err)
		}
		var got []string
		for _, f := range seededFiles[gt.Submission] {
			if m.Match(f) {
				got = append(got, f)
			}
		}
		if diff := cmp.Diff(gt.Files, got); diff != "" {
			t.Errorf("%s on submission %d (-want +got):\n%s", gt.Pattern, gt.Submission, diff)
		}
	}
	// The platform's prompts suggest a bare *.java: by full path it finds
	// only top-level files, none of submission 3's sources.
	if minimatch.Match("src/Main.java", "*.java") || !minimatch.Match("Recursion.java", "*.java") {
		t.Error("*.java should match top-level files only")
	}
}
