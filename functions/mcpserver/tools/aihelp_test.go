package tools

import (
	"slices"
	"strings"
	"testing"
)

// aiHelpPlatformCommit is the github.com/pawtograder/platform commit whose
// AI Help prompts aiHelpToolNames was read from.
const aiHelpPlatformCommit = "846ebf57b23ad2b062a8b43fd3403b4f452421d0"

// aiHelpToolNames are the tools Pawtograder's AI Help prompts name (the
// bold tool lists and `tool:` entries of components/ai-help/ and
// lib/test-insights/ at aiHelpPlatformCommit), sorted.
var aiHelpToolNames = []string{
	"get_assignment",
	"get_discussion_thread",
	"get_help_request",
	"get_submission",
	"get_submission_build_output",
	"get_submission_files",
	"get_test_output",
	"list_student_submissions",
	"list_submission_files",
	"list_submission_tests",
	"search_discussion_threads",
	"search_submissions",
}

// aiHelpToolsMissing are the prompts' tools the catalogue does not have
// yet. The test fails once one of them exists, so the entry is removed.
var aiHelpToolsMissing = []string{}

// TestAIHelpPromptToolsExist checks that every tool the platform's AI Help
// prompts name is in the catalogue, except those listed as missing.
func TestAIHelpPromptToolsExist(t *testing.T) {
	if !slices.IsSorted(aiHelpToolNames) {
		t.Fatal("aiHelpToolNames is not sorted")
	}
	reg := New(Options{})
	for _, name := range aiHelpToolNames {
		_, ok := reg.Lookup(name)
		missing := slices.Contains(aiHelpToolsMissing, name)
		switch {
		case !ok && !missing:
			t.Errorf("the AI Help prompts of platform %s name %s, which the catalogue lacks", aiHelpPlatformCommit[:12], name)
		case ok && missing:
			t.Errorf("%s is in the catalogue now: remove it from aiHelpToolsMissing", name)
		}
	}
	for _, name := range aiHelpToolsMissing {
		if !slices.Contains(aiHelpToolNames, name) {
			t.Errorf("aiHelpToolsMissing names %s, which the prompts do not", name)
		}
	}
}

// TestToolPresentation checks what every tool declares for revisions from
// 2025-06-18: a title, a description that says what it returns and gives
// the model no instructions, and the annotations of a read (open world
// only for the four repository tools).
func TestToolPresentation(t *testing.T) {
	openWorld := []string{"list_grader_files", "get_grader_files", "list_handout_files", "get_handout_files"}
	for _, tool := range New(Options{}).Tools() {
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Title == "" || len(tool.Title) > 40 {
				t.Errorf("title %q: want a short title", tool.Title)
			}
			d := tool.NegotiatedDescription()
			if !strings.HasPrefix(d, "Returns ") {
				t.Errorf("description %q does not start with what the tool returns", d)
			}
			for _, instruction := range []string{"Use ", "use ", "call ", "Call ", "must ", "should ", "always ", "never "} {
				if strings.Contains(d, instruction) {
					t.Errorf("description %q contains %q", d, instruction)
				}
			}
			a := tool.Annotations()
			want := map[string]any{"title": tool.Title, "readOnlyHint": true, "destructiveHint": false,
				"idempotentHint": true, "openWorldHint": slices.Contains(openWorld, tool.Name)}
			if got := a.Keys(); len(got) != len(want) {
				t.Errorf("annotation keys %v, want %d", got, len(want))
			}
			for k, v := range want {
				if got := a.Value(k); got != v {
					t.Errorf("annotations.%s = %v, want %v", k, got, v)
				}
			}
		})
	}
}
