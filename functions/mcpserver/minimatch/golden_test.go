package minimatch

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestSegmentSourceGolden pins the regular-expression source the segment
// compiler emits for the feature-table patterns, so changes show up even
// where node is not installed. TestSegmentCompilerAgainstNode checks the
// same sources against minimatch itself. Rewrite with -update.
func TestSegmentSourceGolden(t *testing.T) {
	seen := map[string]bool{}
	var b strings.Builder
	for _, tc := range featureCases {
		for _, seg := range strings.Split(tc.pattern, "/") {
			if seg == "" || seen[seg] {
				continue
			}
			seen[seg] = true
			b.WriteString(seg)
			b.WriteString("\t")
			b.WriteString(segmentResult(seg))
			b.WriteString("\n")
		}
	}
	got := b.String()
	path := filepath.Join("testdata", "segments.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("segment sources differ from %s (-want +got):\n%s", path, diff)
	}
}
