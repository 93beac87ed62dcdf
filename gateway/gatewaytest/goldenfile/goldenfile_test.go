package goldenfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, format)
}
func (r *recorder) Fatal(args ...any) { r.fatals = append(r.fatals, "fatal") }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.golden")

	*update = true
	Check(&recorder{TB: t}, path, []byte("one\ntwo\n"))
	*update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}

	same := &recorder{TB: t}
	Check(same, path, []byte("one\ntwo\n"))
	if len(same.errors)+len(same.fatals) != 0 {
		t.Errorf("equal output reported: %v %v", same.errors, same.fatals)
	}

	differs := &recorder{TB: t}
	Check(differs, path, []byte("one\nthree\n"))
	if len(differs.errors) != 1 || !strings.Contains(differs.errors[0], "differs") {
		t.Errorf("different output: errors %q, want one difference", differs.errors)
	}

	missing := &recorder{TB: t}
	Check(missing, filepath.Join(dir, "none.golden"), []byte("x"))
	if len(missing.fatals) != 1 {
		t.Errorf("missing file: fatals %q, want one", missing.fatals)
	}
}
