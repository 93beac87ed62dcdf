// Package logline compares a JSON log line written without slog with the
// line slog wrote for the same record a moment earlier. It is a leaf
// package, so the tests of gateway and of the functions can both use it.
package logline

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

var timeField = regexp.MustCompile(`^\{"time":"([^"]*)"`)

// Same fails t unless got is want byte for byte after their time fields,
// and got's time parses, is in the same zone form, and is no earlier and
// at most a second later than want's (the lines were written moments
// apart, so the times differ; their format must not).
func Same(t testing.TB, got, want string) {
	t.Helper()
	wm, gm := timeField.FindStringSubmatch(want), timeField.FindStringSubmatch(got)
	if wm == nil || gm == nil {
		t.Fatalf("no time field:\nslog %q\nfast %q", want, got)
	}
	wt, err1 := time.Parse(time.RFC3339Nano, wm[1])
	gt, err2 := time.Parse(time.RFC3339Nano, gm[1])
	if err1 != nil || err2 != nil || gt.Sub(wt) < 0 || gt.Sub(wt) > time.Second ||
		strings.Contains(wm[1], "Z") != strings.Contains(gm[1], "Z") {
		t.Errorf("time %q, slog's %q", gm[1], wm[1])
	}
	if got[len(gm[0]):] != want[len(wm[0]):] {
		t.Errorf("line differs from slog's\n got  %s want %s", got, want)
	}
}
