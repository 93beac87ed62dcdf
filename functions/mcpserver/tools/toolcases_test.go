package tools

import (
	"fmt"
	"strings"
	"testing"
)

// Every read tool gives the registry-wide tests its cases, registered
// with addCases from the tool's own test file (the first tools of the
// catalogue register theirs here, toolcases_catalogue_test.go). The tests
// enumerate the registry, not a list of names, and
// TestEveryReadToolHasItsCases fails for a tool that registered none, so a
// new tool cannot pass them without a class-isolation and a privacy case:
//
//   - TestClassIsolation (isolation_test.go): crossClass;
//   - TestPrivacy (privacy_test.go): privacy;
//   - TestOutputSchemasAcceptSeededResults (outputschema_seed_test.go): seeded;
//   - TestStaffToolsReadFailures (readfail_test.go): readFail, for the
//     tools the original lacks;
//   - TestLimitBoundaries (boundaries_test.go): limit, for a tool whose
//     limit argument declares a maximum.

// toolCases are one read tool's cases for the registry-wide tests.
type toolCases struct {
	// crossClass names class B's objects (class 2: help request 6, thread
	// 9, submission 8 with test 17, assignment 5, Ben's public profile
	// pubID(2, 7), regrade request 6, queue 3) with class_id class: "2",
	// then class A's "1". It returns the arguments and the answer class
	// A's staff and a stranger must get, the tool's empty answer; with
	// class "2" a class B member (Bea) must get something else, which
	// proves the ids are real.
	crossClass func(class string) (args, empty string)
	// privacy sweeps the seeded corpus of class (1 or 2) as its
	// instructor: every object the tool reads, plus ids that do not exist
	// and private ids a client might pass by mistake.
	privacy func(class int) []string
	// seeded are calls over the seed whose answers, at a negotiated
	// revision, must satisfy the tool's output schema: the richest rows
	// (every optional shape) and an empty answer; at least one has data.
	seeded []seededCall
	// readFail is a call, as Alice, that reads every table the tool reads
	// (required of the tools the original lacks, whose failed reads are
	// errors).
	readFail string
	// limit is the call whose limit is tried at its bounds, for a tool
	// whose limit argument declares a maximum.
	limit *limitCase
}

// seededCall is one tool call as a seeded user.
type seededCall struct{ user, args string }

// limitCase is a call without its closing brace, to which
// TestLimitBoundaries adds ,"limit":n}, and the limit's maximum.
type limitCase struct {
	args string
	max  int
}

// casesByTool holds each read tool's cases by name.
var casesByTool = map[string]toolCases{}

// addCases registers tool's cases; use it as var _ = addCases(…) in the
// tool's test file.
func addCases(tool string, c toolCases) struct{} {
	if _, dup := casesByTool[tool]; dup {
		panic("cases registered twice for " + tool)
	}
	casesByTool[tool] = c
	return struct{}{}
}

// readTools are the registry's read tools in catalogue order.
func readTools() []*Tool {
	var out []*Tool
	for _, t := range New(Options{}).Tools() {
		if !t.Write {
			out = append(out, t)
		}
	}
	return out
}

// hasLimitMaximum reports whether tool's limit argument declares a
// maximum (the staff tools clamp to it).
func hasLimitMaximum(tool *Tool) bool {
	props, _ := tool.InputSchema.Object("properties")
	limit, ok := props.Object("limit")
	if !ok {
		return false
	}
	_, ok = limit.Number("maximum")
	return ok
}

// missingCases lists what tool's registered cases lack.
func missingCases(tool *Tool) []string {
	c, ok := casesByTool[tool.Name]
	if !ok {
		return []string{"no cases registered (addCases)"}
	}
	var out []string
	if c.crossClass == nil {
		out = append(out, "no class-isolation case (crossClass)")
	}
	if c.privacy == nil || len(c.privacy(1)) == 0 || len(c.privacy(2)) == 0 {
		out = append(out, "no privacy case for each class (privacy)")
	}
	if len(c.seeded) == 0 {
		out = append(out, "no seeded output-schema case (seeded)")
	}
	if tool.NegotiatedOnly && c.readFail == "" {
		out = append(out, "no read-failure case (readFail)")
	}
	if hasLimitMaximum(tool) && c.limit == nil {
		out = append(out, "a limit with a maximum but no limit case (limit)")
	}
	return out
}

// TestEveryReadToolHasItsCases: each read tool of the registry registered
// the cases of the registry-wide tests, and no cases name a tool the
// registry lacks.
func TestEveryReadToolHasItsCases(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range readTools() {
		seen[tool.Name] = true
		for _, m := range missingCases(tool) {
			t.Errorf("%s: %s", tool.Name, m)
		}
	}
	for name := range casesByTool {
		if !seen[name] {
			t.Errorf("cases registered for %s, which is not a read tool", name)
		}
	}
}

// TestMissingCasesFindsEachGap checks the checker: a tool stripped of
// each kind of case is reported for it.
func TestMissingCasesFindsEachGap(t *testing.T) {
	tool, _ := New(Options{}).Lookup("list_regrade_requests")
	full := casesByTool[tool.Name]
	defer func() { casesByTool[tool.Name] = full }()
	if got := missingCases(tool); len(got) != 0 {
		t.Fatalf("complete cases reported missing: %v", got)
	}
	strip := map[string]func(*toolCases){
		"crossClass": func(c *toolCases) { c.crossClass = nil },
		"privacy":    func(c *toolCases) { c.privacy = func(int) []string { return nil } },
		"seeded":     func(c *toolCases) { c.seeded = nil },
		"readFail":   func(c *toolCases) { c.readFail = "" },
		"limit":      func(c *toolCases) { c.limit = nil },
	}
	for name, edit := range strip {
		c := full
		edit(&c)
		casesByTool[tool.Name] = c
		if got := fmt.Sprint(missingCases(tool)); !strings.Contains(got, "("+name+")") {
			t.Errorf("without %s: missing %s", name, got)
		}
	}
	delete(casesByTool, tool.Name)
	if got := missingCases(tool); len(got) != 1 {
		t.Errorf("unregistered tool: missing %v", got)
	}
}
