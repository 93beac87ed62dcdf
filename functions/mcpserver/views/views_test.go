package views

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCatalogue pins the views, their URIs and the tools they render.
func TestCatalogue(t *testing.T) {
	var got []string
	for _, v := range All() {
		got = append(got, v.URI+" "+strings.Join(v.Tools, ","))
		if !strings.HasPrefix(v.URI, "ui://") {
			t.Errorf("%s: not a ui:// URI", v.URI)
		}
		if l, ok := Lookup(v.URI); !ok || l.HTML != v.HTML {
			t.Errorf("Lookup(%s) failed", v.URI)
		}
	}
	want := []string{
		"ui://pawtograder/submission-review get_submission,list_submission_tests,get_test_output",
		"ui://pawtograder/help-request get_help_request",
		"ui://pawtograder/assignment get_assignment,get_submissions_for_student",
		"ui://pawtograder/help-queues get_help_queue_overview",
		"ui://pawtograder/grading-progress get_grading_progress",
		"ui://pawtograder/regrade-request get_regrade_request",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("catalogue (-want +got):\n%s", diff)
	}
	for tool, uri := range map[string]string{
		"get_test_output": "ui://pawtograder/submission-review", "get_help_request": "ui://pawtograder/help-request",
		"get_submissions_for_student": "ui://pawtograder/assignment",
		"get_help_queue_overview":     "ui://pawtograder/help-queues",
		"get_grading_progress":        "ui://pawtograder/grading-progress",
		"get_regrade_request":         "ui://pawtograder/regrade-request",
	} {
		if got, ok := ForTool(tool); !ok || got != uri {
			t.Errorf("ForTool(%s) = %q, %v; want %q", tool, got, ok, uri)
		}
	}
	for _, tool := range []string{"get_discussion_thread", "list_regrade_requests", "get_student_overview"} {
		if _, ok := ForTool(tool); ok {
			t.Errorf("%s has no view", tool)
		}
	}
	if _, ok := Lookup("ui://pawtograder/nope"); ok {
		t.Error("Lookup of an unknown URI succeeded")
	}
}

// TestSelfContained checks that every document is a complete HTML5
// document that loads nothing: no element or rule that fetches, no network
// API, and no absolute URL but the SVG namespace.
func TestSelfContained(t *testing.T) {
	forbidden := []string{
		"<script src", "<link", "<img", "<iframe", "<object", "<embed", "<base", "url(", "@import",
		"fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "import(", "sendBeacon", "innerHTML",
		"outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "localStorage", "document.cookie",
		"{{",
	}
	urls := regexp.MustCompile(`[a-z]+://[^"'\s)]+`)
	for _, v := range All() {
		h := v.HTML
		if !strings.HasPrefix(h, "<!DOCTYPE html>\n<html lang=\"en\">") || !strings.HasSuffix(strings.TrimSpace(h), "</html>") {
			t.Errorf("%s: not a complete HTML5 document", v.URI)
		}
		for _, f := range forbidden {
			if strings.Contains(h, f) {
				t.Errorf("%s: contains %q", v.URI, f)
			}
		}
		for _, u := range urls.FindAllString(h, -1) {
			if u != "http://www.w3.org/2000/svg" {
				t.Errorf("%s: absolute URL %q", v.URI, u)
			}
		}
		if n := strings.Count(h, "<script>"); n != 1 {
			t.Errorf("%s: %d inline scripts, want 1", v.URI, n)
		}
		if len(h) > 96<<10 {
			t.Errorf("%s: %d bytes; keep views small", v.URI, len(h))
		}
	}
}

// TestDocumentsDifferOnlyByTitleAndKey checks that the documents are one
// shell, script and style sheet, differing only by their title and view
// key. That no view holds request-dependent bytes is checked through the
// server, in functions/mcpserver (TestViewsIndependentOfRequest).
func TestDocumentsDifferOnlyByTitleAndKey(t *testing.T) {
	norm := func(v View) string {
		return strings.Replace(strings.Replace(v.HTML, "<title>"+v.Title+"</title>", "<title></title>", 1),
			`data-view="`+viewKey[v.Name]+`"`, `data-view=""`, 1)
	}
	all := All()
	for _, v := range all[1:] {
		if norm(v) != norm(all[0]) {
			t.Errorf("%s differs from %s beyond title and view key", v.URI, all[0].URI)
		}
	}
}

// TestEveryScriptAssembled checks that every embedded script is listed in
// scripts exactly once, so none is left out of the documents.
func TestEveryScriptAssembled(t *testing.T) {
	entries, err := assets.ReadDir("assets")
	if err != nil {
		t.Fatal(err)
	}
	var embedded []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".js") {
			embedded = append(embedded, e.Name())
		}
	}
	listed := append([]string(nil), scripts...)
	slices.Sort(listed)
	if diff := cmp.Diff(embedded, listed); diff != "" {
		t.Errorf("embedded scripts vs. scripts (-embedded +listed):\n%s", diff)
	}
}
