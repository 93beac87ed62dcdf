package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// TestDirectorySubmissionCases makes the example call of every test case
// of the committed ChatGPT app submission (docs/directories) on the seeded
// stack, as Alice with the write tools on, and checks the result holds
// what the case says: the cases the review runs are true of this server.
func TestDirectorySubmissionCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "directories", "chatgpt-app-submission.json"))
	if err != nil {
		t.Fatal(err)
	}
	type tcase struct {
		Prompt   string         `json:"prompt"`
		Tools    []string       `json:"expected_tools"`
		Call     map[string]any `json:"example_call"`
		Contains []string       `json:"result_contains"`
	}
	var sub struct {
		Tools         []struct{ Name string } `json:"tools"`
		TestCases     []tcase                 `json:"test_cases"`
		NegativeCases []tcase                 `json:"negative_test_cases"`
	}
	if err := json.Unmarshal(raw, &sub); err != nil {
		t.Fatal(err)
	}
	gw := startGateway(t, writeVars())
	endpoint := gw + "/functions/v1/mcp-server"
	token := createWriteToken(t, gw, env.SessionToken(t, gatewaytest.Alice))
	forgetMessage(t, "see me after class")

	run := func(t *testing.T, c tcase, wantError bool) string {
		t.Helper()
		if len(c.Tools) == 0 || c.Call["name"] != c.Tools[0] {
			t.Fatalf("the example call %v is not the case's first tool %v", c.Call, c.Tools)
		}
		m := rpc(t, endpoint, token, "tools/call", c.Call)
		text, _ := lookup(m, []any{"result", "content", 0, "text"}).(string)
		isError, _ := lookup(m, []any{"result", "isError"}).(bool)
		if isError != wantError || text == "" {
			t.Fatalf("isError %v (want %v): %v", isError, wantError, m)
		}
		for _, want := range c.Contains {
			if !strings.Contains(text, want) {
				t.Errorf("the result lacks %q:\n%s", want, text)
			}
		}
		return text
	}
	for _, c := range sub.TestCases {
		t.Run(c.Prompt, func(t *testing.T) { run(t, c, false) })
	}
	if len(sub.TestCases) < 5 || len(sub.NegativeCases) < 3 {
		t.Errorf("%d cases and %d negative ones", len(sub.TestCases), len(sub.NegativeCases))
	}
	for _, c := range sub.NegativeCases {
		t.Run(c.Prompt, func(t *testing.T) {
			switch {
			case c.Call == nil:
				// Nothing to call: no tool of the catalogue deletes.
				for _, tl := range sub.Tools {
					if strings.Contains(tl.Name, "delete") || strings.Contains(tl.Name, "remove") {
						t.Errorf("tool %s", tl.Name)
					}
				}
			case c.Call["name"] == "get_submission":
				// Another class's submission: nothing of it is returned.
				if text := run(t, c, false); strings.Contains(text, `"id": 8`) || strings.Contains(text, "Recursion") {
					t.Errorf("submission 8 of class 2 was returned:\n%s", text)
				}
			case c.Call["name"] == "reply_to_help_request":
				run(t, c, false)
				if n := messagesWith(t, "see me after class"); n != 0 {
					t.Errorf("%d messages posted by a proposal", n)
				}
			default:
				run(t, c, false)
			}
		})
	}
}
