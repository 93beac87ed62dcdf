// Command testreport reads `go test -json` on stdin and prints what a plain
// `go test` would (each package's ok/FAIL line, and the whole output of every
// test that failed), then writes counts of the tests that passed, failed and
// were skipped, with each skipped test and its reason, to the file named by
// -summary. scripts/test uses it so that a skip is seen, not just hidden in
// an "ok" line.
//
// Usage:
//
//	go test -json ./... 2>&1 | testreport -summary FILE
//
// Lines that are not test events (the go command's own messages) are
// copied through. Output of a test that never reported a result (a panic or
// a timeout killed its binary) is printed when its package ends. testreport
// exits 0 unless reading or writing fails; the go command's status is what
// says whether tests failed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent plus the
// build events the go command adds: Action "build-output" with ImportPath).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

// counts are the results of tests and subtests; a skipped test's subtests
// never ran and are not counted.
type counts struct {
	Passed, Failed, Skipped int
	TopLevel                int
	Skips                   []skip
}

type skip struct {
	Package, Test, Reason string
}

func main() {
	summary := flag.String("summary", "", "file to write the counts and the skipped tests to")
	flag.Parse()
	c, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	if *summary != "" {
		if err := os.WriteFile(*summary, []byte(c.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(1)
		}
	}
}

// String is the summary: one line of counts, then one line per skipped test.
func (c counts) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tests: %d passed, %d failed, %d skipped (subtests included; %d top-level tests)\n",
		c.Passed, c.Failed, c.Skipped, c.TopLevel)
	for _, s := range c.Skips {
		fmt.Fprintf(&b, "skipped: %s %s: %s\n", s.Package, s.Test, s.Reason)
	}
	return b.String()
}

// report copies the essential output of the event stream in to out and
// returns the counts.
func report(in io.Reader, out io.Writer) (counts, error) {
	var c counts
	// buffered holds the output of tests without a result yet, per package.
	buffered := map[string]map[string][]string{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintf(w, "%s\n", line)
			w.Flush()
			continue
		}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Test == "" && e.Action == "output":
			if e.Output != "PASS\n" {
				fmt.Fprint(w, e.Output)
			}
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			// The package ended: whatever still waits for a result was
			// cut short, so it is shown.
			pending := buffered[e.Package]
			names := make([]string, 0, len(pending))
			for name := range pending {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				printTest(w, pending[name])
			}
			delete(buffered, e.Package)
		case e.Test != "" && e.Action == "output":
			if buffered[e.Package] == nil {
				buffered[e.Package] = map[string][]string{}
			}
			buffered[e.Package][e.Test] = append(buffered[e.Package][e.Test], e.Output)
		case e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			lines := buffered[e.Package][e.Test]
			delete(buffered[e.Package], e.Test)
			if !strings.Contains(e.Test, "/") {
				c.TopLevel++
			}
			switch e.Action {
			case "pass":
				c.Passed++
			case "fail":
				c.Failed++
				printTest(w, lines)
			case "skip":
				c.Skipped++
				c.Skips = append(c.Skips, skip{e.Package, e.Test, skipReason(lines)})
			}
		}
		w.Flush()
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	return c, w.Flush()
}

// printTest writes a test's output without the bookkeeping lines that only
// -v shows.
func printTest(w io.Writer, lines []string) {
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "=== PAUSE") ||
			strings.HasPrefix(t, "=== CONT") || strings.HasPrefix(t, "=== NAME") {
			continue
		}
		fmt.Fprint(w, l)
	}
}

// skipReason is the message a skipped test logged (its last line that is
// not bookkeeping), without the file:line prefix.
func skipReason(lines []string) string {
	reason := "(no message)"
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "===") || strings.HasPrefix(t, "--- ") {
			continue
		}
		if file, msg, ok := strings.Cut(t, ": "); ok && strings.Contains(file, ".go:") {
			t = msg
		}
		reason = t
	}
	return reason
}
