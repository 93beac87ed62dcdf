package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skills"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// The MCP Apps views (functions/mcpserver/views, docs/views.md) hosted the
// way a host does: testdata/viewhost/host.mjs reads them with the MCP
// TypeScript SDK client through the wired gateway and the seeded stack, and
// renders each in headless Chromium inside a sandboxed iframe connected to
// the official @modelcontextprotocol/ext-apps AppBridge, fed with real tool
// results; the views' own tool calls go back through the bridge to the
// gateway.
//
// Screenshots are written to the test's artifact directory: run with
// `go test -run TestViewsInBrowserHost -artifacts -outputdir DIR` to keep
// them (docs/views/*.png are copies).

// viewURIs are the views, in resources/list order.
var viewURIs = []string{
	"ui://pawtograder/submission-review", "ui://pawtograder/help-request", "ui://pawtograder/assignment",
	"ui://pawtograder/help-queues", "ui://pawtograder/grading-progress", "ui://pawtograder/regrade-request",
}

// viewHostDir is the node project of the test host.
var viewHostDir = filepath.Join("testdata", "viewhost")

// chromiumPath is Debian's chromium, installed by scripts/install-deps.
const chromiumPath = "/usr/bin/chromium"

// viewHostReport is what host.mjs prints.
type viewHostReport struct {
	NegotiatedProtocol string                     `json:"negotiatedProtocol"`
	ServerCapabilities map[string]any             `json:"serverCapabilities"`
	ToolUI             map[string]map[string]any  `json:"toolUI"`
	Resources          []map[string]any           `json:"resources"`
	Reads              map[string]map[string]any  `json:"reads"`
	ReadUnknown        any                        `json:"readUnknown"`
	ToolCalls          []sdkCall                  `json:"toolCalls"`
	RefusedCalls       []sdkCall                  `json:"refusedCalls"`
	Blocked            []string                   `json:"blocked"`
	Requests           []string                   `json:"requests"`
	ConsoleErrors      []string                   `json:"consoleErrors"`
	Scenarios          map[string]json.RawMessage `json:"scenarios"`
	A11y               map[string][]any           `json:"a11y"`
	A11yRulesPassed    map[string][]string        `json:"a11yRulesPassed"`
	// Modern is what the TypeScript SDK v2 client saw at 2026-07-28,
	// running in the browser.
	Modern struct {
		NegotiatedProtocol string                                      `json:"negotiatedProtocol"`
		ServerCapabilities map[string]any                              `json:"serverCapabilities"`
		ToolUI             map[string]map[string]any                   `json:"toolUI"`
		Resources          []string                                    `json:"resources"`
		Reads              map[string]map[string]any                   `json:"reads"`
		ReadUnknown        any                                         `json:"readUnknown"`
		CallTitle          any                                         `json:"callTitle"`
		SameViews          map[string]bool                             `json:"sameViews"`
		Sent               []struct{ Method, ProtocolVersion *string } `json:"sent"`
		ConsoleErrors      []string                                    `json:"consoleErrors"`
	} `json:"modern"`
}

// npmCI installs a node project's locked dependencies; node and npm are
// required (scripts/install-deps installs them), so a missing one fails.
func npmCI(t *testing.T, dir string) string {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Fatalf("node and npm are required (scripts/install-deps installs them): %v %v", errNode, errNpm)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return node
}

func TestViewsInBrowserHost(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s is required (scripts/install-deps installs Debian's chromium): %v", chromiumPath, err)
	}
	node := npmCI(t, viewHostDir)

	gw := startGateway(t, nil)
	endpoint := gw + "/functions/v1/mcp-server"
	token := createMCPToken(t, gw, env.SessionToken(t, gatewaytest.Alice))
	// Gary, a grader of class 1, for the views that mark the caller.
	graderToken := createMCPToken(t, gw, env.SessionToken(t, gatewaytest.Gary))
	outDir := t.ArtifactDir()

	// A few minutes on a quiet machine; one loaded many times over its
	// cores took twelve.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "host.mjs", endpoint, token, outDir, chromiumPath, graderToken)
	cmd.Dir = viewHostDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node host.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got viewHostReport
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("host output: %v\n%s", err, stdout.String())
	}
	t.Logf("screenshots in %s", outDir)

	t.Run("negotiation", func(t *testing.T) {
		if got.NegotiatedProtocol != "2025-11-25" {
			t.Errorf("negotiated %q, want 2025-11-25", got.NegotiatedProtocol)
		}
		wantCaps := map[string]any{"tools": map[string]any{}, "resources": map[string]any{},
			"extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{}}}
		if diff := cmp.Diff(wantCaps, got.ServerCapabilities); diff != "" {
			t.Errorf("server capabilities for a client declaring the extension (-want +got):\n%s", diff)
		}
		review, help, asg := "ui://pawtograder/submission-review", "ui://pawtograder/help-request", "ui://pawtograder/assignment"
		wantUI := map[string]map[string]any{
			"get_submission": {"resourceUri": review}, "list_submission_tests": {"resourceUri": review},
			"get_test_output": {"resourceUri": review}, "get_help_request": {"resourceUri": help},
			"get_assignment": {"resourceUri": asg}, "get_submissions_for_student": {"resourceUri": asg},
			"get_help_queue_overview": {"resourceUri": "ui://pawtograder/help-queues"},
			"get_grading_progress":    {"resourceUri": "ui://pawtograder/grading-progress"},
			"get_regrade_request":     {"resourceUri": "ui://pawtograder/regrade-request"},
		}
		if diff := cmp.Diff(wantUI, got.ToolUI); diff != "" {
			t.Errorf("tools with _meta.ui (-want +got):\n%s", diff)
		}
	})

	t.Run("2026-07-28 in the browser", func(t *testing.T) {
		// The TypeScript SDK v2 client pinned to 2026-07-28, declaring the
		// extension, from a page of another origin: every request passed
		// Chromium's CORS preflight for Mcp-Method and Mcp-Name.
		m := got.Modern
		if m.NegotiatedProtocol != "2026-07-28" {
			t.Errorf("negotiated %q, want 2026-07-28", m.NegotiatedProtocol)
		}
		// Every extension is declared to every client at 2026-07-28.
		wantCaps := map[string]any{"tools": map[string]any{}, "resources": map[string]any{},
			"extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{}, "io.modelcontextprotocol/skills": map[string]any{}}}
		if diff := cmp.Diff(wantCaps, m.ServerCapabilities); diff != "" {
			t.Errorf("server/discover capabilities (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(got.ToolUI, m.ToolUI); diff != "" || len(m.ToolUI) != 9 {
			t.Errorf("tools with _meta.ui differ from 2025-11-25's (-2025 +2026):\n%s", diff)
		}
		wantResources := slices.Clone(viewURIs) // the views, then the read skills
		for _, sk := range skills.For(false) {
			wantResources = append(wantResources, sk.URI)
		}
		if diff := cmp.Diff(wantResources, m.Resources); diff != "" {
			t.Errorf("resources/list (-want +got):\n%s", diff)
		}
		for _, uri := range viewURIs {
			if r := m.Reads[uri]; r["count"] != 1.0 || r["mimeType"] != "text/html;profile=mcp-app" || !m.SameViews[uri] {
				t.Errorf("%s: read %v, same document as at 2025-11-25: %v", uri, r, m.SameViews[uri])
			}
		}
		if diff := cmp.Diff(map[string]any{"code": -32602.0}, m.ReadUnknown); diff != "" {
			t.Errorf("reading an unknown view (-want +got):\n%s", diff)
		}
		if m.CallTitle != "Hello World" {
			t.Errorf("get_assignment structuredContent.title = %v", m.CallTitle)
		}
		// Only the unknown view's answer (Chromium logs every 4xx).
		if diff := cmp.Diff([]string{"Failed to load resource: the server responded with a status of 400 (Bad Request)"}, m.ConsoleErrors); diff != "" {
			t.Errorf("console errors (-want +got):\n%s", diff)
		}
		var methods []string
		for _, s := range m.Sent {
			if s.Method == nil || s.ProtocolVersion == nil || *s.ProtocolVersion != "2026-07-28" {
				t.Errorf("request without 2026-07-28 headers: %+v", s)
				continue
			}
			methods = append(methods, *s.Method)
		}
		for _, want := range []string{"server/discover", "tools/list", "resources/list", "resources/read", "tools/call"} {
			if !slices.Contains(methods, want) {
				t.Errorf("no %s request from the browser (sent %q)", want, methods)
			}
		}
	})

	t.Run("resources", func(t *testing.T) {
		meta := map[string]any{"ui": map[string]any{"csp": map[string]any{
			"connectDomains": []any{}, "resourceDomains": []any{}, "frameDomains": []any{}, "baseUriDomains": []any{},
		}, "prefersBorder": true}}
		var uris, others []string
		for _, r := range got.Resources {
			uri, _ := r["uri"].(string)
			if !strings.HasPrefix(uri, "ui://") {
				others = append(others, uri) // the skills, after the views (skills_e2e_test.go)
				continue
			}
			uris = append(uris, uri)
			if r["mimeType"] != "text/html;profile=mcp-app" {
				t.Errorf("%s: mimeType %v", uri, r["mimeType"])
			}
			if diff := cmp.Diff(meta, r["_meta"]); diff != "" {
				t.Errorf("%s: listed _meta (-want +got):\n%s", uri, diff)
			}
			read := got.Reads[uri]
			if read["count"] != 1.0 || read["uri"] != uri || read["mimeType"] != "text/html;profile=mcp-app" {
				t.Errorf("%s: read %v", uri, read)
			}
			if b, _ := read["bytes"].(float64); b < 1000 {
				t.Errorf("%s: read %v bytes of HTML", uri, b)
			}
			if diff := cmp.Diff(meta, read["_meta"]); diff != "" {
				t.Errorf("%s: read _meta (-want +got):\n%s", uri, diff)
			}
		}
		if diff := cmp.Diff(viewURIs, uris); diff != "" {
			t.Errorf("resources/list (-want +got):\n%s", diff)
		}
		var skillURIs []string
		for _, sk := range skills.For(false) {
			skillURIs = append(skillURIs, sk.URI)
		}
		if diff := cmp.Diff(skillURIs, others); diff != "" || len(got.Resources) != len(uris)+len(others) || (len(others) > 0 && got.Resources[len(uris)]["uri"] != others[0]) {
			t.Errorf("resources/list after the views: want the read skills (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]any{"code": -32002.0, "message": "MCP error -32002: Resource not found"}, got.ReadUnknown); diff != "" {
			t.Errorf("reading an unknown view (-want +got):\n%s", diff)
		}
	})

	t.Run("nothing from outside", func(t *testing.T) {
		if len(got.Blocked) != 0 {
			t.Errorf("the views tried to load from outside: %q", got.Blocked)
		}
		for _, u := range got.Requests {
			if !strings.HasPrefix(u, "http://127.0.0.1:") {
				t.Errorf("browser request to %q", u)
			}
		}
		if len(got.ConsoleErrors) != 0 {
			t.Errorf("console errors: %q", got.ConsoleErrors)
		}
	})

	t.Run("accessibility", func(t *testing.T) {
		// axe-core's WCAG 2.1 A and AA rules (contrast, labels, names,
		// landmarks, …) on each view after its interactions, in the light
		// theme and in the dark theme at 360 px.
		for name, rules := range map[string][]string{
			"review-light": {"button-name", "select-name"}, "review-dark-360": {"button-name", "select-name", "scrollable-region-focusable"},
			"help-light": {"button-name", "list"}, "assignment-light": {"svg-img-alt", "td-headers-attr"},
			"help-dark-360": {"button-name", "list"}, "assignment-dark-360": {"definition-list"},
			"queues-light": {"definition-list", "td-headers-attr"}, "queues-dark-375": {"definition-list", "td-headers-attr"},
			"grading-light": {"definition-list", "td-headers-attr", "role-img-alt"}, "grading-dark-375": {"definition-list", "td-headers-attr", "role-img-alt"},
			"review-only-failed": {"button-name", "td-headers-attr"}, "help-fields-dark-375": {"button-name", "list"},
			"regrade-light": {"list", "definition-list"}, "regrade-dark-375": {"list", "definition-list"},
			"queues-you-dark-375": {"definition-list", "td-headers-attr"},
		} {
			v, ok := got.A11y[name]
			if !ok {
				t.Errorf("%s: not audited", name)
				continue
			}
			if len(v) != 0 {
				b, _ := json.MarshalIndent(v, "", "  ")
				t.Errorf("%s: WCAG violations:\n%s", name, b)
			}
			// The audit really looked: these rules apply to every view.
			for _, rule := range append([]string{"color-contrast", "document-title", "html-has-lang"}, rules...) {
				if !slices.Contains(got.A11yRulesPassed[name], rule) {
					t.Errorf("%s: rule %s did not pass (passed: %v)", name, rule, got.A11yRulesPassed[name])
				}
			}
		}
	})

	t.Run("tool calls through the bridge", func(t *testing.T) {
		// The host's own calls (one per view) and the views' calls through
		// the AppBridge, in order.
		want := []sdkCall{
			{"list_submission_tests", map[string]any{"submission_id": 2.0, "class_id": 1.0}},
			{"get_submission", map[string]any{"submission_id": 2.0, "class_id": 1.0}},
			{"get_test_output", map[string]any{"submission_id": 2.0, "class_id": 1.0, "test_id": 4.0}},
			{"get_submission_files", map[string]any{"submission_id": 2.0, "class_id": 1.0, "glob_pattern": "README.md"}},
			{"get_submission", map[string]any{"submission_id": 3.0, "class_id": 1.0, "include_test_output": true, "include_files": true}},
			// only_failed: the view fetches the submission for its totals
			// (refused the second time).
			{"list_submission_tests", map[string]any{"submission_id": 2.0, "class_id": 1.0, "only_failed": true}},
			{"get_submission", map[string]any{"submission_id": 2.0, "class_id": 1.0}},
			{"list_submission_tests", map[string]any{"submission_id": 2.0, "class_id": 1.0, "only_failed": true}},
			{"get_help_request", map[string]any{"help_request_id": 1.0, "class_id": 1.0}},
			{"get_submission", map[string]any{"submission_id": 2.0, "class_id": 1.0, "include_test_output": true, "include_files": true}},
			{"get_help_request", map[string]any{"help_request_id": 1.0, "class_id": 1.0}}, // dark at 375 px: staff only and you
			{"get_submissions_for_student", map[string]any{"student_profile_id": samPublic, "assignment_id": 1.0, "class_id": 1.0}},
			{"get_assignment", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_help_queue_overview", map[string]any{"class_id": 1.0}},
			{"get_grading_progress", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_assignment", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_regrade_request", map[string]any{"regrade_request_id": 1.0, "class_id": 1.0}},
			{"get_regrade_request", map[string]any{"regrade_request_id": 2.0, "class_id": 1.0}},
			// The caller's own rows and overdue work; the queues as Gary.
			{"get_grading_progress", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_assignment", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_help_queue_overview", map[string]any{"class_id": 1.0}},
			{"get_help_queue_overview", map[string]any{"class_id": 1.0}},
			{"get_help_request", map[string]any{"help_request_id": 1.0, "class_id": 1.0}},
			{"get_assignment", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_help_queue_overview", map[string]any{"class_id": 1.0}},
			{"get_grading_progress", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_assignment", map[string]any{"assignment_id": 1.0, "class_id": 1.0}},
			{"get_regrade_request", map[string]any{"regrade_request_id": 1.0, "class_id": 1.0}},
		}
		if diff := cmp.Diff(want, got.ToolCalls); diff != "" {
			t.Errorf("tools/call requests (-want +got):\n%s", diff)
		}
		refused := []sdkCall{{"get_submission", map[string]any{"submission_id": 2.0, "class_id": 1.0}}}
		if diff := cmp.Diff(refused, got.RefusedCalls); diff != "" {
			t.Errorf("tools/call requests the host refused (-want +got):\n%s", diff)
		}
	})

	scenario := func(t *testing.T, name string, want any) {
		t.Helper()
		raw, ok := got.Scenarios[name]
		if !ok {
			t.Fatalf("scenario %s did not run", name)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, v); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}

	t.Run("submission review", func(t *testing.T) {
		scenario(t, "reviewTests", map[string]any{
			"heading": "Submission #2",
			// Failed first (in id order), then passed.
			"rows":    []any{"testGoodbye", "testNullScore", "testHidden", "testHello"},
			"results": []any{"Failed", "Failed", "Failed", "Passed"},
			// is_released from list_submission_tests (S31): test 6 is not
			// released to the student.
			"hidden":         []any{nil, nil, "hidden from the student", nil},
			"expandedOutput": "partially correct",
			"expandedAria":   "true",
			"focusedTest":    "4",
			"sizedByView":    true,
			"passedOnly":     []any{"testHello"},
			// The README's <script> line is text, never markup; the tools
			// mark its line separator visibly (S30).
			"readmeLines": []any{
				"# Hello, wörld", "", "Café é — 日本語のテキスト — emoji 🐾🎉", "<script>&</script>", "before[U+2028]after",
			},
			"scriptElements": 1.0,
			"summary":        "Submission #2\n\nPurple Penguin · attempt 2 · Jan 16, 2026, 10:00 AM\n\nScore\n72.5 / 100\nTests\n1 passed · 3 failed\nLint\npassed\nStatus\nEarlier submission\nCommit\n222222222222",
		})
		scenario(t, "reviewFiles", map[string]any{
			"rows": []any{"testDuplicate", "testHello", "testGoodbye", "testDuplicate", "testUnicode"},
			// Folders first, then files, each in name order.
			"files":       []any{"docs/notes.txt", "lib/data.bin", "src/Empty.java", "src/Main.java", "src/Util.java", "README.md"},
			"binary":      "lib/data.bin\n\nBinary file (contents not shown).",
			"empty":       "src/Empty.java\n\nEmpty file.",
			"mainLines":   5.0,
			"colorScheme": "dark",
			"background":  "rgb(27, 27, 31)",
			"overflowX":   0.0, // readable at 360 px: nothing wider than the frame
		})
	})

	t.Run("only failed tests", func(t *testing.T) {
		// list_submission_tests with only_failed lists tests 4, 5 and 6 of
		// submission 2 and a summary of those three (0 passed, 3 failed).
		// The counts shown are the submission's (1 of 4 passed), from the
		// get_submission the view makes; without it the view says only
		// what it knows.
		summary := "Submission #2\n\nPurple Penguin · attempt 2 · Jan 16, 2026, 10:00 AM\n\nScore\n72.5 / 100\nTests\n1 passed · 3 failed\nLint\npassed\nStatus\nEarlier submission\nCommit\n222222222222"
		rows := []any{"testGoodbye", "testNullScore", "testHidden"}
		// The hidden test is marked from list_submission_tests' own
		// is_released, also when get_submission is refused.
		hidden := []any{nil, nil, "hidden from the student"}
		scenario(t, "reviewOnlyFailed", map[string]any{
			"withSubmission": map[string]any{"summary": summary, "rows": rows, "hidden": hidden, "scope": "Showing failed tests only; 1 passed test is not listed."},
			"alone":          map[string]any{"summary": "Submission #2\nTests\n3 failed", "rows": rows, "hidden": hidden, "scope": "Showing failed tests only."},
		})
	})

	t.Run("help request", func(t *testing.T) {
		scenario(t, "help", map[string]any{
			"heading":  "Help request #1",
			"question": "My HW1 throws a NullPointerException on line 4",
			// Pseudonyms exactly as get_help_request returns them; message
			// 3's author is a public profile, which the tool's translation
			// does not name (author_name null).
			"authors":  []any{"Purple Penguin", "Busy Beaver", "Unknown author", "Wise Owl"},
			"messages": []any{"I get an NPE when calling greet().", "Did you initialise the name field?", "Yes — still failing 😕", "Staff note: known handout bug, see Piazza."},
			"staff":    []any{false, true, false, true},
			"failing":  []any{"testGoodbye", "testNullScore", "testHidden"},
			// Test 6 is not released to the student (is_released false).
			"failingHidden": []any{nil, nil, "hidden from the student"},
			"reviewHeading": "Submission #2",
			"reviewRows":    []any{"testGoodbye", "testNullScore", "testHidden", "testHello"},
			"reviewHidden":  []any{nil, nil, "hidden from the student", nil},
			"focused":       "Submission #2",
		})
	})

	t.Run("help request: staff only and you", func(t *testing.T) {
		// At 2025-11-25 get_help_request's messages carry instructors_only
		// and is_caller (S31), from the seed: message 4 is Alice's own and
		// staff-only, and Alice calls (SEED.md).
		message := func(id float64, staffOnly, mine bool) any {
			return map[string]any{"id": id, "instructors_only": staffOnly, "is_caller": mine}
		}
		scenario(t, "helpFields", map[string]any{
			"fields":    []any{message(1, false, false), message(2, false, false), message(3, false, false), message(4, true, true)},
			"staffOnly": []any{nil, nil, nil, "Staff only"},
			"you":       []any{nil, nil, nil, "you"},
			"labels": []any{"Message from Purple Penguin", "Message from Busy Beaver", "Message from unknown author",
				"Message from Wise Owl (you), staff only"},
		})
	})

	t.Run("layout at 375 and 1280 px", func(t *testing.T) {
		// Nothing reaches past the frame outside a box that scrolls, and no
		// word is broken inside (the assignment's "Status" once rendered as
		// "St/at/us"): narrow tables scroll inside their region instead,
		// and a table wider than its region says so before it (uncued
		// lists the column headers cut off silently: the assignment's
		// Status at 375 px, before its status moved under the attempt).
		// Only the submission review's tests table scrolls, at 375 px
		// (also under the help request, whose review is opened); the
		// others fit.
		want := map[string]any{}
		for _, view := range []string{"review", "help", "assignment", "queues", "grading", "regrade"} {
			for _, width := range []string{"375", "1280"} {
				for _, theme := range []string{"light", "dark"} {
					scrolling := []any{}
					if width == "375" && (view == "review" || view == "help") {
						scrolling = []any{"Tests table"}
					}
					want[view+"-"+theme+"-"+width] = map[string]any{"colorScheme": theme, "overflowX": 0.0, "outside": []any{}, "broken": []any{},
						"uncued": []any{}, "scrolling": scrolling}
				}
			}
		}
		scenario(t, "layout", want)
	})

	t.Run("dark at 360 and 375 px", func(t *testing.T) {
		dark := map[string]any{"overflowX": 0.0, "tableOverflowX": 0.0, "colorScheme": "dark"}
		scenario(t, "narrowDark", map[string]any{"help-dark-360": dark, "assignment-dark-360": dark, "queues-dark-375": dark, "grading-dark-375": dark, "regrade-dark-375": dark})
	})

	t.Run("assignment", func(t *testing.T) {
		scenario(t, "assignment", map[string]any{
			"heading":     "Hello World",
			"subsHeading": "Submissions by Purple Penguin (3)",
			"rows": []any{
				// The attempt cell carries "Active" too, shown below 480 px
				// where the Status column is hidden.
				[]any{"#3Active", "Jan 17, 2026, 10:00 AM", "100 / 100", "4 / 5", "Active"},
				[]any{"#2", "Jan 16, 2026, 10:00 AM", "72.5 / 100", "1 / 4", ""},
				[]any{"#1", "Jan 15, 2026, 10:00 AM", "45 / 100", "1 / 2", ""},
			},
			"chartLabel": "Scores over time: attempt 1 45 of 100, attempt 2 72.5 of 100, attempt 3 100 of 100",
			// Due months before the page's clock (host.mjs FIXED_NOW).
			"facts": "Released\nJan 5, 2026, 2:00 PM\nDue\nJan 20, 2026, 4:59 AM past due\nPoints\n100\nHandout\nhttps://example.edu/cs3500/hw1",
		})
	})

	t.Run("help queues", func(t *testing.T) {
		// SEED.md: queue 1 (office-hours) holds open requests 1 (Sam) and 5
		// (Tara and Sam, private) and request 2 in progress (Sofia, assignee
		// Gary, Busy Beaver), oldest first; exam-review (queue 2) has only a
		// resolved request. The waits run on the real clock: each is a
		// whole number of days and hours, and they shrink down the list.
		raw, ok := got.Scenarios["queues"]
		if !ok {
			t.Fatal("scenario queues did not run")
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		age := regexp.MustCompile(`^([0-9]+) d(?: ([0-9]|1[0-9]|2[0-3]) h)?$`)
		var days []int
		queues, _ := v["queues"].([]any)
		for _, q := range queues {
			rows, _ := q.(map[string]any)["rows"].([]any)
			for _, r := range rows {
				cells, _ := r.(map[string]any)["cells"].([]any)
				if len(cells) != 6 {
					t.Fatalf("row %v: want 6 cells", r)
				}
				a, _ := cells[2].(string)
				m := age.FindStringSubmatch(a)
				if m == nil {
					t.Errorf("wait %q is not in days and hours", a)
					continue
				}
				n, _ := strconv.Atoi(m[1])
				days = append(days, n)
				cells[2] = "AGE"
			}
		}
		if len(days) != 3 || days[0] < days[1] || days[1] < days[2] {
			t.Errorf("waits of %v days are not oldest first", days)
		}
		row := func(id, text, status, assignee, assignment, students string, private bool) any {
			return map[string]any{"id": id, "cells": []any{text, status, "AGE", assignee, assignment, students}, "private": private}
		}
		want := map[string]any{
			"heading": "Help queues",
			"totals":  "Queues\n2\nOpen requests\n2\nIn progress\n1",
			"queues": []any{
				map[string]any{
					"heading": "office-hours Available",
					"facts":   "Open\n2\nIn progress\n1\nStudents waiting\n2",
					"empty":   nil,
					"rows": []any{
						row("1", "My HW1 throws a NullPointerException on line 4", "Open", "Unassigned", "Hello World", "1", false),
						row("2", "LinkedList remove() fails for the tail", "In progress", "Busy Beaver", "Linked Lists", "1", false),
						row("5", "Team Lambda: how do we split the work?", "Open", "Unassigned", "Linked Lists", "2", true),
					},
				},
				map[string]any{
					"heading": "exam-review Not available",
					"facts":   "Open\n0\nIn progress\n0\nStudents waiting\n0",
					"empty":   "No open or in-progress requests.",
					"rows":    []any{},
				},
			},
			// The requests' text is text, never markup.
			"scriptElements": 1.0,
		}
		if diff := cmp.Diff(want, v); diff != "" {
			t.Errorf("queues (-want +got):\n%s", diff)
		}
	})

	t.Run("grading progress", func(t *testing.T) {
		// SEED.md: HW1 has active submissions 3, 4 and 7 (3 and 4 graded, 3
		// released); review assignments 1 (Gary, done), 2 (Gary, due Jan
		// 25), 3 (Alice, done) and 4 (Dale, due in 2099); regrade requests
		// 1 opened, 2 resolved, 3 escalated, 5 closed.
		scenario(t, "grading", map[string]any{
			"heading": "Grading progress: Hello World",
			"cards": []any{
				"Submissions\nActive\n3\nGraded\n2\nTo grade\n1\nReleased\n1",
				"Review assignments\nAssigned\n4\nCompleted\n2\nPending\n2",
				"Regrade requests\nOpen\n2\nOpened\n1\nEscalated\n1\nResolved\n1\nClosed\n1",
			},
			"meters": []any{"Submissions graded: 2 of 3", "Review assignments completed: 2 of 4"},
			"graders": []any{
				[]any{"Busy BeaverNext due Jan 25, 2026, 4:59 AM overdue", "2", "1", "1", "Jan 25, 2026, 4:59 AM overdue"},
				[]any{"Sleepy SlothNext due Jan 10, 2099, 4:59 AM", "1", "0", "1", "Jan 10, 2099, 4:59 AM"},
				[]any{"Wise Owl you", "1", "1", "0", "–"},
			},
		})
	})

	t.Run("the caller and overdue work", func(t *testing.T) {
		// Alice is Wise Owl; Gary (Busy Beaver) is request 2's assignee;
		// at FIXED_NOW (June 2026) Gary's review due 2026-01-25 is
		// overdue and Dale's due in 2099 is not (SEED.md).
		scenario(t, "callerAndOverdue", map[string]any{
			"gradingYou":     []any{"Wise Owl"},
			"gradingOverdue": []any{"Busy Beaver"},
			"queuesYou760":   []any{"2"},
			"queuesYou375":   []any{"2"},
		})
	})

	t.Run("regrade request", func(t *testing.T) {
		// SEED.md: request 1 is Sam's (Purple Penguin), opened, on Header
		// comment (2 points), graded 0; his argument hides U+202E and
		// U+200B. Request 2 was resolved by Gary (Busy Beaver), 5 → 10.
		scenario(t, "regrade", map[string]any{
			"1": map[string]any{
				"heading":      "Regrade request #1",
				"facts":        "Status\nopened\nStudent\nPurple Penguin\nAssignee\nBusy Beaver\nCheck\nHeader comment (2 points)\nPoints\n0 as graded\nReview total\n30 · released",
				"authors":      []any{"Purple Penguin"},
				"kinds":        []any{"Student-written"},
				"hiddenBadges": []any{"U+202E", "U+200B"},
				"hiddenNotes":  []any{"2 hidden characters are shown as a code point."},
				"labels":       []any{"Comment from Purple Penguin, student-written"},
			},
			"2": map[string]any{
				"heading":      "Regrade request #2",
				"facts":        "Status\nresolved\nStudent\nPurple Penguin\nAssignee\nBusy Beaver\nCheck\nPartially correct (5 points)\nPoints\n5 as graded → 10 resolved\nReview total\n30 · released",
				"authors":      []any{"Purple Penguin", "Busy Beaver"},
				"kinds":        []any{"Student-written", "Staff"},
				"hiddenBadges": []any{},
				"hiddenNotes":  []any{},
				"labels":       []any{"Comment from Purple Penguin, student-written", "Comment from Busy Beaver, staff"},
			},
		})
	})
}
