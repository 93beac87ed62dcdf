// Package goldenfile compares a test's output with a file kept beside the
// test (its golden file), and rewrites the file when the tests run with
// -update. It is a leaf package, so the development stack's own tests can
// use it as well as the product's.
package goldenfile

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Check compares got with the file at path (relative to the test's package
// directory, e.g. testdata/x.golden) and reports the difference; under
// -update it writes got there instead, creating directories as needed.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it if intended):\n%s", path, diff)
	}
}
