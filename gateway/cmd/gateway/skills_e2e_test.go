package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skills"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// The skills (docs/skills.md) with the real parts: the wired gateway with
// the write tools on over the seeded stack; the TypeScript SDK v2 client's
// SkillsClient at 2026-07-28 (testdata/modernclient/skills.mjs) listing,
// getting and reading them with its own verification; plain resources at
// 2025-11-25; and every tool and glob pattern the skills name called on
// the seeded database.

// skillsSummary is what testdata/modernclient/skills.mjs prints.
type skillsSummary struct {
	NegotiatedProtocol string `json:"negotiatedProtocol"`
	Supported          bool   `json:"supported"`
	Instructions       string `json:"instructions"`
	CacheScope         string `json:"cacheScope"`
	TTLMs              int    `json:"ttlMs"`
	Skills             []struct {
		URI           string `json:"uri"`
		Name          string `json:"name"`
		Scope         string `json:"scope"`
		GetCacheScope string `json:"getCacheScope"`
		Verified      bool   `json:"verified"`
		MIMEType      string `json:"mimeType"`
		Text          string `json:"text"`
	} `json:"skills"`
}

// skillToolCalls are seeded arguments for the original's tools the
// skills call, all as Alice (instructor, class 1), where a skill needs
// particular arguments; a tool the original lacks is called with its
// declared example (tools.Tool.Example) unless it is named here.
var skillToolCalls = map[string]map[string]any{
	"get_help_request":            {"help_request_id": 1, "class_id": 1},
	"get_assignment":              {"assignment_id": 1, "class_id": 1},
	"get_submission":              {"submission_id": 3, "class_id": 1},
	"list_submission_tests":       {"submission_id": 1, "class_id": 1, "only_failed": true},
	"get_test_output":             {"submission_id": 1, "class_id": 1, "test_name": "testGoodbye"},
	"get_submission_build_output": {"submission_id": 5, "class_id": 1, "include_lint": true},
	"list_submission_files":       {"submission_id": 3, "class_id": 1},
	"get_submission_files":        {"submission_id": 3, "class_id": 1, "glob_pattern": "**/*.java"},
	"search_discussion_threads":   {"class_id": 1, "assignment_id": 1, "is_question": true, "search_query": "hello"},
	"search_help_requests":        {"class_id": 1, "assignment_id": 1},
	"list_student_submissions":    {"class_id": 1, "student_profile_id": samPublic, "assignment_id": 1},
	"search_submissions":          {"class_id": 1, "assignment_id": 1, "autograder_status": "failed"},
	"list_regrade_requests":       {"class_id": 1, "status": "open"},
}

// skillToolCall is the seeded call of tool for testSkillTools: its entry
// in skillToolCalls, or the example its declaration gives.
func skillToolCall(name string) (map[string]any, bool) {
	if args, ok := skillToolCalls[name]; ok {
		return args, true
	}
	t, ok := tools.New(tools.Options{}).Lookup(name)
	if !ok || t.Example == "" {
		return nil, false
	}
	var args map[string]any
	return args, json.Unmarshal([]byte(t.Example), &args) == nil
}

func TestSkillsFullStack(t *testing.T) {
	gw := startGateway(t, writeVars())
	endpoint := gw + "/functions/v1/mcp-server"
	alice := env.SessionToken(t, gatewaytest.Alice)
	reader := createMCPToken(t, gw, alice)
	writer := createWriteToken(t, gw, alice)

	t.Run("typescript-v2", func(t *testing.T) {
		for _, tc := range []struct {
			name, token string
			writer      bool
		}{{"read token", reader, false}, {"write token", writer, true}} {
			t.Run(tc.name, func(t *testing.T) { testSkillsClient(t, endpoint, tc.token, tc.writer) })
		}
	})
	t.Run("resources-2025-11-25", func(t *testing.T) { testSkillResources(t, endpoint, reader) })
	t.Run("tools", func(t *testing.T) { testSkillTools(t, endpoint, "Bearer "+reader) })
	// Submission 8 is class 2's: its instructor Bea reads it.
	bea := "Bearer " + createMCPToken(t, gw, env.SessionToken(t, gatewaytest.Bea))
	t.Run("globs", func(t *testing.T) { testSkillGlobs(t, endpoint, map[int]string{1: "Bearer " + reader, 2: bea}) })
}

// testSkillsClient loads the skills with SkillsClient and compares them
// with the files compiled in.
func testSkillsClient(t *testing.T, endpoint, token string, writer bool) {
	node := modernNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "skills.mjs", endpoint, token)
	cmd.Dir = modernClientDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node skills.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got skillsSummary
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, stdout.String())
	}
	if got.NegotiatedProtocol != "2026-07-28" || !got.Supported || got.CacheScope != "private" || got.TTLMs <= 0 {
		t.Errorf("protocol %q, supported %v, cacheScope %q, ttlMs %d: want 2026-07-28, true, private (the write tools are on), > 0",
			got.NegotiatedProtocol, got.Supported, got.CacheScope, got.TTLMs)
	}
	for _, sk := range skills.For(false) {
		if !strings.Contains(got.Instructions, sk.URI) {
			t.Errorf("the instructions do not point to %s", sk.URI)
		}
	}
	want := skills.For(writer)
	if len(got.Skills) != len(want) {
		t.Fatalf("%d skills, want %d", len(got.Skills), len(want))
	}
	for i, sk := range want {
		g := got.Skills[i]
		wantScope := "public"
		if sk.Writes {
			wantScope = "private"
		}
		if g.URI != sk.URI || g.Name != sk.Name || !g.Verified || g.MIMEType != skills.MIMEType || g.GetCacheScope != wantScope {
			t.Errorf("skill %d: %s %s verified=%v %s get cacheScope %s, want %s %s true %s %s",
				i, g.URI, g.Name, g.Verified, g.MIMEType, g.GetCacheScope, sk.URI, sk.Name, skills.MIMEType, wantScope)
		}
		if g.Text != sk.Text {
			t.Errorf("%s: the text read differs from the file compiled in", sk.URI)
		}
	}
}

// rpcResult posts one JSON-RPC request at MCP-Protocol-Version version ("":
// none) and returns its result.
func rpcResult(t *testing.T, endpoint, auth, version, body string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Result map[string]any
		Error  any
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || a.Error != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d, error %v %v", body, resp.StatusCode, a.Error, err)
	}
	return a.Result
}

// testSkillResources reads the skills as plain resources at 2025-11-25.
func testSkillResources(t *testing.T, endpoint, token string) {
	list := rpcResult(t, endpoint, "Bearer "+token, "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)
	var listed []string
	for _, r := range list["resources"].([]any) {
		if uri := r.(map[string]any)["uri"].(string); strings.HasPrefix(uri, "skill://") {
			listed = append(listed, uri)
		}
	}
	var want []string
	for _, sk := range skills.For(false) {
		want = append(want, sk.URI)
	}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("skill:// resources listed (-want +got):\n%s", diff)
	}
	for _, sk := range skills.For(false) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": map[string]any{"uri": sk.URI}})
		read := rpcResult(t, endpoint, "Bearer "+token, "2025-11-25", string(body))
		c := read["contents"].([]any)[0].(map[string]any)
		if c["text"] != sk.Text || c["mimeType"] != skills.MIMEType {
			t.Errorf("%s: resources/read differs from the file (mimeType %v)", sk.URI, c["mimeType"])
		}
	}
}

// toolText calls a tool at 2025-11-25 and returns its text, failing on
// an error.
func toolText(t *testing.T, endpoint, auth, name string, args map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	res := rpcResult(t, endpoint, auth, "2025-11-25", string(body))
	if res["isError"] == true {
		t.Fatalf("%s: isError: %v", name, res["content"])
	}
	return res["content"].([]any)[0].(map[string]any)["text"].(string)
}

// testSkillTools calls every read tool the skills call, with seeded
// arguments, as an instructor: each answers with a value, none with an
// error.
func testSkillTools(t *testing.T, endpoint, auth string) {
	var named []string
	for _, sk := range skills.All() {
		for _, c := range skills.Mentioned(sk.Text).Calls {
			// The write tools only propose; writes_e2e_test.go calls them.
			if !slices.Contains(tools.WriteNames(), c.Tool) && !slices.Contains(named, c.Tool) {
				named = append(named, c.Tool)
			}
		}
	}
	for _, name := range named {
		args, ok := skillToolCall(name)
		if !ok {
			t.Errorf("a skill calls %s, which has no seeded call in skillToolCalls and no Example", name)
			continue
		}
		if text := toolText(t, endpoint, auth, name, args); text == "null" || text == "" {
			t.Errorf("%s %v: %q, want a value from the seed", name, args, text)
		}
	}
}

// testSkillGlobs calls get_submission_files with every pattern the skills
// suggest on its seeded target, as an instructor of the submission's class
// (auth by class id), and compares the files returned.
func testSkillGlobs(t *testing.T, endpoint string, auth map[int]string) {
	for _, gt := range skills.GlobTargets {
		class := 1
		if gt.Submission == 8 {
			class = 2
		}
		text := toolText(t, endpoint, auth[class], "get_submission_files", map[string]any{"submission_id": gt.Submission, "class_id": class, "glob_pattern": gt.Pattern})
		var v struct {
			Files []struct{ Name string } `json:"files"`
		}
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("%s: %v\n%s", gt.Pattern, err, text)
		}
		var got []string
		for _, f := range v.Files {
			got = append(got, f.Name)
		}
		slices.Sort(got) // contents come back in fetch order
		if diff := cmp.Diff(gt.Files, got); diff != "" {
			t.Errorf("%s on submission %d (-want +got):\n%s", gt.Pattern, gt.Submission, diff)
		}
	}
}
