package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles/githubfake"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// These tests drive the wired gateway, backed by the seeded stack, with the
// official MCP SDK clients (TypeScript @modelcontextprotocol/sdk and Go
// github.com/modelcontextprotocol/go-sdk): every tool is called once with
// seeded ids, the newest revision each client speaks must be negotiated
// with structured results (2025-11-25 for the TypeScript SDK 1.x,
// 2026-07-28 for go-sdk v1.8, through server/discover), and each result's
// text must equal what a plain JSON-RPC POST gets.
//
// The repository tools (grader and handout files) read a fake GitHub
// (repofiles/githubfake) through GITHUB_API_URL, with the fake App's id and
// key.

// sdkCatalogue is the tools/list order of the drop-in path and the
// revisions before 2025-06-18: the original's sixteen (docs/contract/tools.md §3).
var sdkCatalogue = []string{
	"get_help_request", "get_discussion_thread", "get_submission", "list_submission_files",
	"get_submission_files", "list_submission_tests", "get_test_output", "get_submission_build_output",
	"list_grader_files", "get_grader_files", "list_handout_files", "get_handout_files",
	"get_submissions_for_student", "get_assignment", "search_help_requests", "search_discussion_threads",
}

// negotiatedCatalogue is the tools/list order from 2025-06-18: the
// original's sixteen, then the read tools the original lacks
// (docs/contract/tools.md §6), as the registry lists them.
var negotiatedCatalogue = append(slices.Clone(sdkCatalogue), staffToolNames()...)

// staffToolNames are the read tools the original lacks, in catalogue order.
func staffToolNames() []string {
	var names []string
	for _, t := range tools.New(tools.Options{}).Tools() {
		if t.NegotiatedOnly {
			names = append(names, t.Name)
		}
	}
	return names
}

// sdkCall is one tools/call, with arguments chosen from the seed
// (supabase/fixtures/SEED.md) so that most tools return real rows.
type sdkCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// samPublic is Sam's public profile in class 1 ("Purple Penguin").
const samPublic = "30000001-0000-4000-8000-000000000003"

var sdkCalls = []sdkCall{
	{"get_help_request", map[string]any{"help_request_id": 1, "class_id": 1}},
	{"get_discussion_thread", map[string]any{"thread_id": 1, "class_id": 1}},
	{"get_submission", map[string]any{"submission_id": 3, "class_id": 1}},
	{"list_submission_files", map[string]any{"submission_id": 3, "class_id": 1}},
	{"get_submission_files", map[string]any{"submission_id": 3, "class_id": 1, "glob_pattern": "src/*.java"}},
	{"list_submission_tests", map[string]any{"submission_id": 3, "class_id": 1}},
	{"get_test_output", map[string]any{"submission_id": 3, "class_id": 1, "test_name": "testUnicode"}},
	{"get_submission_build_output", map[string]any{"submission_id": 1, "class_id": 1}},
	{"list_grader_files", map[string]any{"assignment_id": 1, "class_id": 1}},
	// One match each: contents come back in fetch completion order.
	{"get_grader_files", map[string]any{"assignment_id": 1, "class_id": 1, "glob_pattern": "mutants/*"}},
	{"list_handout_files", map[string]any{"assignment_id": 1, "class_id": 1}},
	{"get_handout_files", map[string]any{"assignment_id": 1, "class_id": 1, "glob_pattern": "src/*.java"}},
	{"get_submissions_for_student", map[string]any{"student_profile_id": samPublic, "assignment_id": 1, "class_id": 1, "limit": 2}},
	{"get_assignment", map[string]any{"assignment_id": 1, "class_id": 1}},
	{"search_help_requests", map[string]any{"class_id": 1}},
	{"search_discussion_threads", map[string]any{"class_id": 1, "assignment_id": 1}},
}

// sdkKnownValues pins a few seeded values per tool, read from the raw
// answer's text: path → value (numbers as JSON decodes them).
var sdkKnownValues = []struct {
	tool string
	path []any
	want any
}{
	{"get_help_request", []any{"id"}, 1.0},
	{"get_help_request", []any{"status"}, "open"},
	{"get_help_request", []any{"help_queue_name"}, "office-hours"},
	{"get_help_request", []any{"student_name"}, "Purple Penguin"},
	{"get_help_request", []any{"submission", "id"}, 2.0},
	{"get_help_request", []any{"assignment", "title"}, "Hello World"},
	{"get_discussion_thread", []any{"id"}, 1.0},
	{"get_submission", []any{"id"}, 3.0},
	{"get_submission", []any{"file_count"}, 6.0},
	{"get_submission", []any{"grader_result", "score"}, 100.0},
	{"list_submission_files", []any{"total_count"}, 6.0},
	{"list_submission_files", []any{"files", 0, "name"}, "README.md"},
	{"get_submission_files", []any{"matched_count"}, 3.0},
	{"get_submission_files", []any{"files", 0, "name"}, "src/Empty.java"},
	{"get_test_output", []any{"test", "name"}, "testUnicode"},
	{"get_submission_build_output", []any{"lint", "passed"}, false},
	{"list_grader_files", []any{"total_count"}, 2.0},
	{"get_grader_files", nil, map[string]any{"files": []any{map[string]any{"name": "mutants/M1.java", "contents": "class M1 {}"}}, "matched_count": 1.0}},
	{"list_handout_files", []any{"total_count"}, 2.0},
	{"get_handout_files", nil, map[string]any{"files": []any{map[string]any{"name": "src/Main.java", "contents": "class Main {}"}}, "matched_count": 1.0}},
	{"get_submissions_for_student", []any{0, "id"}, 3.0},
	{"get_submissions_for_student", []any{1, "id"}, 2.0},
	{"get_submissions_for_student", []any{0, "student_name"}, "Purple Penguin"},
	{"get_assignment", []any{"title"}, "Hello World"},
	{"get_assignment", []any{"slug"}, "hw1-hello-world"},
	{"search_help_requests", []any{0, "id"}, 5.0},
	{"search_discussion_threads", []any{0, "id"}, 12.0},
}

// TestSDKClientsFullStack is the interoperability check of issues "Newer
// MCP revisions" and "The 16 tools" (item 8): both official SDK clients,
// against the gateway wired as `gateway serve`, with an mcp_ token created
// through mcp-tokens and (Go SDK) a Supabase access token.
func TestSDKClientsFullStack(t *testing.T) {
	// Assignment 1's grader and handout repositories (SEED.md).
	gh := githubfake.New(githubfake.Options{})
	t.Cleanup(gh.Close)
	gh.AddInstallation("pawtograder-cs3500", 3500)
	gh.AddRepo("pawtograder-cs3500", "hw1-solution").
		AddFile("src/test/HelloTest.java", "class HelloTest {}").
		AddFile("mutants/M1.java", "class M1 {}").
		AddFile(".github/workflows/grade.yml", "on: push")
	gh.AddRepo("pawtograder-cs3500", "hw1-handout").
		AddFile("README.md", "# Hello World").
		AddFile("src/Main.java", "class Main {}")

	gw := startGateway(t, map[string]string{
		"GITHUB_APP_ID":             gh.AppIDString(),
		"GITHUB_PRIVATE_KEY_STRING": gh.PrivateKeyPEM(),
		"GITHUB_API_URL":            gh.URL,
	})
	endpoint := gw + "/functions/v1/mcp-server"
	token := createMCPToken(t, gw, env.SessionToken(t, gatewaytest.Alice))

	raw := rawToolTexts(t, endpoint, token)
	for _, kv := range sdkKnownValues {
		var v any
		if err := json.Unmarshal([]byte(raw[kv.tool]), &v); err != nil {
			t.Fatalf("%s: raw text is not JSON: %v\n%s", kv.tool, err, raw[kv.tool])
		}
		if diff := cmp.Diff(kv.want, lookup(v, kv.path)); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s\ntext: %s", kv.tool, kv.path, diff, raw[kv.tool])
		}
	}

	t.Run("typescript", func(t *testing.T) { testTypeScriptSDK(t, endpoint, token, raw) })
	t.Run("go", func(t *testing.T) { testGoSDK(t, endpoint, "Bearer "+token, raw, sdkCalls) })
	t.Run("typescript-v2", func(t *testing.T) { testTypeScriptSDKv2(t, endpoint, token, raw) })
	t.Run("inspector", func(t *testing.T) { testInspectorModern(t, endpoint, token, raw) })
	t.Run("go-oauth", func(t *testing.T) {
		// A Supabase access token (the OAuth connector's bearer) under RLS.
		testGoSDK(t, endpoint, "Bearer "+env.SessionToken(t, gatewaytest.Alice), raw, []sdkCall{sdkCalls[13], sdkCalls[2]})
	})
}

// createMCPToken creates an mcp_ token through mcp-tokens, as the web app
// does for a signed-in user.
func createMCPToken(t *testing.T, gw, session string) string {
	t.Helper()
	r := call(t, "POST", gw+"/functions/v1/mcp-tokens", "Bearer "+session, `{"name":"sdk-e2e","scopes":["mcp:read"]}`)
	if r.status != http.StatusOK {
		t.Fatalf("create token: %d %s", r.status, r.body)
	}
	var created struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(r.body), &created); err != nil || !strings.HasPrefix(created.Token, "mcp_") {
		t.Fatalf("create token: %v %s", err, r.body)
	}
	return created.Token
}

// rawToolTexts makes each call of sdkCalls as one plain JSON-RPC POST (no
// MCP-Protocol-Version header, so the original's answer shape) and returns
// tool → its only text content.
func rawToolTexts(t *testing.T, endpoint, token string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for i, c := range sdkCalls {
		body, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
			"params": map[string]any{"name": c.Name, "arguments": c.Arguments},
		})
		if err != nil {
			t.Fatal(err)
		}
		r := call(t, "POST", endpoint, "Bearer "+token, string(body))
		var resp struct {
			Result *struct {
				Content []struct {
					Type string  `json:"type"`
					Text *string `json:"text"`
				} `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				IsError           bool            `json:"isError"`
			} `json:"result"`
		}
		if r.status != http.StatusOK {
			t.Fatalf("raw %s: %d %s", c.Name, r.status, r.body)
		}
		if err := json.Unmarshal([]byte(r.body), &resp); err != nil || resp.Result == nil ||
			len(resp.Result.Content) != 1 || resp.Result.Content[0].Type != "text" || resp.Result.Content[0].Text == nil ||
			resp.Result.StructuredContent != nil || resp.Result.IsError {
			t.Fatalf("raw %s: want one text content and nothing else: %v %s", c.Name, err, r.body)
		}
		texts[c.Name] = *resp.Result.Content[0].Text
	}
	return texts
}

// lookup follows path (object keys and array indexes) into v; nil when a
// step is missing.
func lookup(v any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// tsSummary is what testdata/sdkclient/client.mjs prints.
type tsSummary struct {
	Mode                  string            `json:"mode"`
	NegotiatedProtocol    string            `json:"negotiatedProtocol"`
	Tools                 []string          `json:"tools"`
	ToolsWithOutputSchema int               `json:"toolsWithOutputSchema"`
	Calls                 map[string]tsCall `json:"calls"`
}

type tsCall struct {
	Error                 *string `json:"error"`
	Validated             bool    `json:"validated"`
	IsError               bool    `json:"isError"`
	Structured            bool    `json:"structured"`
	ContentItems          int     `json:"contentItems"`
	Text80                *string `json:"text80"`
	TextSHA256            string  `json:"textSHA256"`
	StructuredMatchesText *bool   `json:"structuredMatchesText"`
}

// sdkClientDir is the node project of the TypeScript SDK client.
var sdkClientDir = filepath.Join("testdata", "sdkclient")

func testTypeScriptSDK(t *testing.T, endpoint, token string, raw map[string]string) {
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Fatal("node and npm are not on PATH: the TypeScript SDK test needs Node.js 20+ (scripts/install-deps installs it)")
	}
	if _, err := os.Stat(filepath.Join(sdkClientDir, "node_modules")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = sdkClientDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", sdkClientDir, err, out)
		}
	}
	callsJSON, err := json.Marshal(sdkCalls)
	if err != nil {
		t.Fatal(err)
	}

	for _, mode := range []struct {
		arg, wantVersion string
		structured       bool
	}{
		{"negotiated", "2025-11-25", true},
		{"2024-11-05", "2024-11-05", false},
	} {
		t.Run(mode.arg, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "client.mjs", endpoint, token, mode.arg, string(callsJSON))
			cmd.Dir = sdkClientDir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("node client.mjs %s: %v\nstderr:\n%s", mode.arg, err, stderr.String())
			}
			var got tsSummary
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("client output: %v\n%s", err, stdout.String())
			}
			if got.NegotiatedProtocol != mode.wantVersion {
				t.Errorf("negotiated %q, want %q", got.NegotiatedProtocol, mode.wantVersion)
			}
			wantTools, wantSchemas := sdkCatalogue, 0
			if mode.structured {
				wantTools = negotiatedCatalogue
				wantSchemas = len(negotiatedCatalogue)
			}
			if diff := cmp.Diff(wantTools, got.Tools); diff != "" {
				t.Errorf("tools/list names (-want +got):\n%s", diff)
			}
			if got.ToolsWithOutputSchema != wantSchemas {
				t.Errorf("%d tools declare an outputSchema, want %d", got.ToolsWithOutputSchema, wantSchemas)
			}
			if len(got.Calls) != len(sdkCalls) {
				t.Errorf("client made %d calls, want %d", len(got.Calls), len(sdkCalls))
			}
			for _, c := range sdkCalls {
				s, ok := got.Calls[c.Name]
				switch {
				case !ok:
					t.Errorf("%s: not called", c.Name)
					continue
				case s.Error != nil:
					// Includes the SDK's outputSchema validation failures.
					t.Errorf("%s: callTool threw: %s", c.Name, *s.Error)
					continue
				}
				want := raw[c.Name]
				if mode.structured { // negotiated revisions mark hidden characters (S30) and add fields (S31)
					want = negotiatedText(t, c.Name, hiddentext.Mark(want))
				}
				if s.IsError || s.ContentItems != 1 || s.Structured != mode.structured {
					t.Errorf("%s: isError=%v content items=%d structuredContent=%v, want false, 1, %v",
						c.Name, s.IsError, s.ContentItems, s.Structured, mode.structured)
				}
				if s.Validated != mode.structured {
					t.Errorf("%s: the SDK validated structuredContent against an outputSchema = %v, want %v", c.Name, s.Validated, mode.structured)
				}
				if mode.structured && (s.StructuredMatchesText == nil || !*s.StructuredMatchesText) {
					t.Errorf("%s: structuredContent is not {\"result\": <the text's value>}", c.Name)
				}
				if s.TextSHA256 != sha256Hex(want) {
					prefix := "<none>"
					if s.Text80 != nil {
						prefix = *s.Text80
					}
					t.Errorf("%s: text differs from the raw POST's\n got (first 80) %q\nwant %q", c.Name, prefix, want)
				}
			}
			if s := got.Calls["get_assignment"]; s.Text80 == nil || !strings.Contains(*s.Text80, `"title": "Hello World"`) {
				t.Errorf("get_assignment text starts %v, want the title Hello World", s.Text80)
			}
		})
	}
	t.Run("negotiated staff tools", func(t *testing.T) {
		testTypeScriptSDKStaffTools(t, node, endpoint, token)
	})
}

// staffToolCalls call each read tool the original lacks with its declared
// example (tools.Tool.Example: arguments from the seed,
// supabase/fixtures/SEED.md, that return rows for Alice, the instructor of
// class 1).
var staffToolCalls = func() []sdkCall {
	var calls []sdkCall
	for _, t := range tools.New(tools.Options{}).Tools() {
		if !t.NegotiatedOnly {
			continue
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(t.Example), &args); err != nil {
			panic(t.Name + ": Example: " + err.Error())
		}
		calls = append(calls, sdkCall{t.Name, args})
	}
	return calls
}()

// testTypeScriptSDKStaffTools: the TypeScript SDK at 2025-11-25 calls every
// staff tool; each answers with a non-null value whose structuredContent
// the SDK itself validated against the tool's outputSchema.
func testTypeScriptSDKStaffTools(t *testing.T, node, endpoint, token string) {
	callsJSON, err := json.Marshal(staffToolCalls)
	if err != nil {
		t.Fatal(err)
	}
	var got tsSummary
	if err := runNodeJSON(node, sdkClientDir, &got, "client.mjs", endpoint, token, "negotiated", string(callsJSON)); err != nil {
		t.Fatal(err)
	}
	if len(got.Calls) != len(staffToolCalls) {
		t.Errorf("client made %d calls, want %d", len(got.Calls), len(staffToolCalls))
	}
	for _, c := range staffToolCalls {
		s, ok := got.Calls[c.Name]
		switch {
		case !ok:
			t.Errorf("%s: not called", c.Name)
		case s.Error != nil:
			t.Errorf("%s: callTool threw: %s", c.Name, *s.Error)
		case s.IsError || s.ContentItems != 1 || !s.Structured || !s.Validated:
			t.Errorf("%s: isError=%v content items=%d structured=%v validated=%v, want false, 1, true, true",
				c.Name, s.IsError, s.ContentItems, s.Structured, s.Validated)
		case s.StructuredMatchesText == nil || !*s.StructuredMatchesText:
			t.Errorf("%s: structuredContent does not match the text", c.Name)
		case s.Text80 == nil || strings.HasPrefix(*s.Text80, "null"):
			t.Errorf("%s: text %v, want a value", c.Name, s.Text80)
		}
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// bearerTransport adds the Authorization header to every request; the Go
// SDK's streamable transport has no option for a static one.
type bearerTransport struct {
	base   http.RoundTripper
	bearer string
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.bearer)
	return b.base.RoundTrip(r)
}

func testGoSDK(t *testing.T, endpoint, bearer string, raw map[string]string, calls []sdkCall) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "gateway-gosdk-e2e", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: bearerTransport{base: http.DefaultTransport, bearer: bearer}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	// go-sdk v1.8 sends server/discover first; the gateway answers it, so
	// the session is 2026-07-28: no initialize, per-request _meta.
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("negotiated %q, want 2026-07-28", got)
	}

	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil {
			t.Errorf("%s: no outputSchema at 2026-07-28", tool.Name)
			continue
		}
		schemas[tool.Name] = compileSchema(t, tool.Name, tool.OutputSchema)
	}
	if diff := cmp.Diff(negotiatedCatalogue, names); diff != "" {
		t.Errorf("tools/list names (-want +got):\n%s", diff)
	}

	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Name, Arguments: c.Arguments})
		if err != nil {
			t.Errorf("%s: CallTool: %v", c.Name, err)
			continue
		}
		text := textOf(res)
		if res.IsError || len(res.Content) != 1 {
			t.Errorf("%s: isError=%v content items=%d, want false, 1", c.Name, res.IsError, len(res.Content))
		}
		if want := negotiatedText(t, c.Name, hiddentext.Mark(raw[c.Name])); text != want { // S30, S31
			t.Errorf("%s: text differs from the raw POST's\n got %q\nwant %q", c.Name, text, want)
		}
		var value any
		if err := json.Unmarshal([]byte(text), &value); err != nil {
			t.Errorf("%s: text is not JSON: %v", c.Name, err)
			continue
		}
		// At 2026-07-28 structuredContent is the tool's value itself.
		if diff := cmp.Diff(value, res.StructuredContent); diff != "" {
			t.Errorf("%s: structuredContent is not the text's value (-want +got):\n%s", c.Name, diff)
		}
		if s := schemas[c.Name]; s != nil {
			if err := s.Validate(res.StructuredContent); err != nil {
				t.Errorf("%s: structuredContent does not satisfy the listed outputSchema: %v", c.Name, err)
			}
		}
	}
}

// compileSchema compiles a listed outputSchema as JSON Schema 2020-12.
func compileSchema(t *testing.T, name string, schema any) *jsonschema.Schema {
	t.Helper()
	text, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem://"+name+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://" + name + ".json")
	if err != nil {
		t.Fatalf("%s: outputSchema does not compile: %v", name, err)
	}
	return s
}

// textOf returns the text of a result's only content block.
func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return fmt.Sprintf("<%d content blocks>", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Sprintf("<%T>", res.Content[0])
	}
	return tc.Text
}
