package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReport feeds events recorded from `go test -json` (packages with a
// passing, a skipped and a failing test and subtests, a panic, a build
// failure, a test cut short by a timeout, and a go command message) and
// checks the text and the counts, written out by hand.
func TestReport(t *testing.T) {
	in, err := os.ReadFile("testdata/events.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c, err := report(bytes.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	wantOut := "" +
		// sample/a: the failing subtest's log and its parent's line; the
		// passing and skipped tests' output is not shown.
		"    a_test.go:9: context\n" +
		"    a_test.go:9: got 1, want 2\n" +
		"--- FAIL: TestParent/bad (0.00s)\n" +
		"--- FAIL: TestParent (0.00s)\n" +
		"FAIL\n" +
		"FAIL\tsample/a\t0.035s\n" +
		"ok  \tsample/b\t0.039s\n" +
		// sample/d does not build.
		"# sample/d [sample/d.test]\n" +
		"d/d_test.go:5:33: undefined: undefined\n" +
		"FAIL\tsample/d [build failed]\n" +
		// sample/c panics (its trace shortened in the recording).
		"    c_test.go:5: before\n" +
		"--- FAIL: TestBoom (0.00s)\n" +
		"panic: assignment to entry in nil map [recovered, repanicked]\n" +
		"\t/usr/local/go/src/testing/testing.go:2101 +0x4c5\n" +
		"FAIL\tsample/c\t0.007s\n" +
		"go: downloading example.com/x v1.0.0\n" +
		// sample/e: a timeout; the unfinished test is shown when the
		// package ends.
		"panic: test timed out after 1s\n" +
		"FAIL\tsample/e\t1.004s\n" +
		"    e_test.go:7: waiting\n"
	if diff := cmp.Diff(wantOut, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	wantSummary := "tests: 3 passed, 3 failed, 2 skipped (subtests included; 5 top-level tests)\n" +
		"skipped: sample/a TestSkip: needs GATEWAY_TEST_X\n" +
		"skipped: sample/a TestParent/skipped: not here: 3\n"
	if diff := cmp.Diff(wantSummary, c.String()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}
