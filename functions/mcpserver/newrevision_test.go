package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
)

// TestNewRevisionIsARow adds a test-only stateless revision as one row of
// revision.Served and checks that every method answers it, with the
// extensions the request declares, and that initialize is as removed there
// as at 2026-07-28: nothing else had to change for it.
func TestNewRevisionIsARow(t *testing.T) {
	const next = "2099-01-01"
	defer revision.ServeForTest(next)()
	env := newTestEnv(t, nil)
	caps := `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]},"io.modelcontextprotocol/skills":{}}}`
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + next + `","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	const view, skill = "ui://pawtograder/assignment", "skill://pawtograder/grading-progress/SKILL.md"
	for _, tc := range []struct {
		method, name, params string
		want                 []string // result members besides resultType and _meta
	}{
		{"tools/list", "", "", []string{"tools", "ttlMs", "cacheScope"}},
		{"server/discover", "", "", []string{"supportedVersions", "capabilities", "instructions", "ttlMs", "cacheScope"}},
		{"resources/list", "", "", []string{"resources", "ttlMs", "cacheScope"}},
		{"resources/templates/list", "", "", []string{"resourceTemplates", "ttlMs", "cacheScope"}},
		{"resources/read", view, `"uri":"` + view + `",`, []string{"contents", "ttlMs", "cacheScope"}},
		{"resources/read", skill, `"uri":"` + skill + `",`, []string{"contents", "ttlMs", "cacheScope"}},
		{"skills/list", "", "", []string{"skills", "ttlMs", "cacheScope"}},
		{"skills/get", "", `"uri":"` + skill + `",`, []string{"skill", "ttlMs", "cacheScope"}},
		{"tools/call", "get_assignment", `"name":"get_assignment","arguments":{"class_id":1,"assignment_id":2},`, []string{"content", "structuredContent"}},
	} {
		h := hdr("Authorization", authGood, headerProtocolVersion, next, headerMcpMethod, tc.method)
		if tc.name != "" {
			h[headerMcpName] = tc.name
		}
		rec := env.do(http.MethodPost, "", h, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":{`+tc.params+meta+`}}`)
		var resp struct {
			Result json.RawMessage
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); rec.Code != 200 || err != nil || resp.Result == nil {
			t.Errorf("%s at %s: %d %s", tc.method, next, rec.Code, rec.Body)
			continue
		}
		want := append(append([]string{"resultType"}, tc.want...), "_meta")
		if got := memberNames(t, resp.Result); !slices.Equal(got, want) {
			t.Errorf("%s at %s: members %v, want %v", tc.method, next, got, want)
		}
	}
	rec := env.do(http.MethodPost, "", hdr("Authorization", authGood, headerProtocolVersion, next, headerMcpMethod, "initialize"),
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{`+meta+`}}`)
	if rec.Code != http.StatusNotFound {
		t.Errorf("initialize at %s: %d %s, want 404", next, rec.Code, rec.Body)
	}
}

// memberNames are the member names of a JSON object, in order.
func memberNames(t *testing.T, obj json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	var names []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}
