package mcpserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skills"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
)

// Client capabilities declaring the Skills extension, alone and with MCP
// Apps.
const (
	capsSkills     = `{"extensions":{"io.modelcontextprotocol/skills":{}}}`
	capsSkillsApps = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]},"io.modelcontextprotocol/skills":{}}}`
)

// skillReq is one request of method at version. At 2026-07-28 it carries
// _meta with caps; before, the MCP-Protocol-Version header alone ("" for
// none: the drop-in path).
type skillReq struct {
	version, caps, method, params string
}

// send posts r as auth and decodes the answer.
func (r skillReq) send(t *testing.T, env *testEnv, auth string) (int, rpcAnswer) {
	t.Helper()
	h := hdr("Authorization", auth)
	params := r.params
	if r.version == versionModern {
		h = modernHdr(r.method, "Authorization", auth)
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":` + r.caps + `}`
		if params == "" {
			params = meta
		} else {
			params = meta + "," + params
		}
		if r.method == methodResourcesRead {
			var p struct{ URI string }
			_ = json.Unmarshal([]byte("{"+r.params+"}"), &p)
			h["Mcp-Name"] = p.URI
		}
	} else if r.version != "" {
		h[headerProtocolVersion] = r.version
	}
	rec := env.do(http.MethodPost, "", h, `{"jsonrpc":"2.0","id":1,"method":"`+r.method+`","params":{`+params+`}}`)
	var a rpcAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatalf("%s at %q: %v\n%s", r.method, r.version, err, rec.Body.String())
	}
	a.raw = rec.Body.Bytes()
	return rec.Code, a
}

// rpcAnswer is a decoded JSON-RPC answer.
type rpcAnswer struct {
	Result map[string]any
	Error  *struct {
		Code    int
		Message string
		Data    map[string]any
	}
	raw []byte
}

// uris lists the uri of each object in the result's list key.
func (a rpcAnswer) uris(key string) []string {
	list, _ := a.Result[key].([]any)
	var out []string
	for _, v := range list {
		if m, ok := v.(map[string]any); ok {
			u, _ := m["uri"].(string)
			out = append(out, u)
		}
	}
	return out
}

// skillURIs are the URIs of the skills served to a reader or a writer.
func skillURIs(writer bool) []string {
	var out []string
	for _, s := range skills.For(writer) {
		out = append(out, s.URI)
	}
	return out
}

const (
	viewQueue    = "ui://pawtograder/help-queues"
	readSkillURI = "skill://pawtograder/help-request-triage/SKILL.md"
	writeSkill   = "skill://pawtograder/help-request-reply/SKILL.md"
)

// TestSkillsNegotiation checks where the skills are served: never on the
// drop-in path or before 2025-06-18, as resources at 2025-06-18 and
// 2025-11-25 (the extension's methods unknown there), and at 2026-07-28
// through the extension and as resources to every request, declared or
// not (capabilities describe the server).
func TestSkillsNegotiation(t *testing.T) {
	env := newTestEnv(t, nil)
	readParams := `"uri":"` + readSkillURI + `"`
	for _, tc := range []struct {
		name     string
		req      skillReq
		status   int
		code     int      // JSON-RPC error code, 0 for a result
		listKey  string   // the result's list whose URIs are compared
		wantURIs []string // with listKey
	}{
		{"drop-in resources/list", skillReq{"", "", "resources/list", ""}, 200, codeMethodNotFound, "", nil},
		{"drop-in resources/read", skillReq{"", "", "resources/read", readParams}, 200, codeMethodNotFound, "", nil},
		{"2025-03-26 resources/list", skillReq{"2025-03-26", "", "resources/list", ""}, 200, codeMethodNotFound, "", nil},
		{"2025-06-18 resources/list", skillReq{"2025-06-18", "", "resources/list", ""}, 200, 0, "resources", append(viewURIs(), skillURIs(false)...)},
		{"2025-11-25 resources/list", skillReq{"2025-11-25", "", "resources/list", ""}, 200, 0, "resources", append(viewURIs(), skillURIs(false)...)},
		{"2025-11-25 resources/read", skillReq{"2025-11-25", "", "resources/read", readParams}, 200, 0, "contents", []string{readSkillURI}},
		{"2025-11-25 skills/list", skillReq{"2025-11-25", "", "skills/list", ""}, 200, codeMethodNotFound, "", nil},
		{"2025-11-25 skills/get", skillReq{"2025-11-25", "", "skills/get", readParams}, 200, codeMethodNotFound, "", nil},
		// 2026-07-28: the extensions are declared to every client, and the
		// views and skills served to every request, declared or not.
		{"2026 undeclared skills/list", skillReq{versionModern, `{}`, "skills/list", ""}, 200, 0, "skills", skillURIs(false)},
		{"2026 undeclared skills/get", skillReq{versionModern, `{}`, "skills/get", readParams}, 200, 0, "", nil},
		{"2026 undeclared resources/list", skillReq{versionModern, `{}`, "resources/list", ""}, 200, 0, "resources", append(viewURIs(), skillURIs(false)...)},
		{"2026 undeclared resources/read", skillReq{versionModern, `{}`, "resources/read", readParams}, 200, 0, "contents", []string{readSkillURI}},
		{"2026 apps only resources/list", skillReq{versionModern, capsApps, "resources/list", ""}, 200, 0, "resources", append(viewURIs(), skillURIs(false)...)},
		{"2026 apps only resources/read of a skill", skillReq{versionModern, capsApps, "resources/read", readParams}, 200, 0, "contents", []string{readSkillURI}},
		{"2026 skills/list", skillReq{versionModern, capsSkills, "skills/list", ""}, 200, 0, "skills", skillURIs(false)},
		{"2026 skills resources/list", skillReq{versionModern, capsSkills, "resources/list", ""}, 200, 0, "resources", append(viewURIs(), skillURIs(false)...)},
		{"2026 skills and apps resources/list", skillReq{versionModern, capsSkillsApps, "resources/list", ""}, 200, 0, "resources", append(viewURIs(), skillURIs(false)...)},
		{"2026 skills resources/read", skillReq{versionModern, capsSkills, "resources/read", readParams}, 200, 0, "contents", []string{readSkillURI}},
		{"2026 skills resources/read of a view", skillReq{versionModern, capsSkills, "resources/read", `"uri":"` + viewQueue + `"`}, 200, 0, "contents", []string{viewQueue}},
		{"2026 skills resources/templates/list", skillReq{versionModern, capsSkills, "resources/templates/list", ""}, 200, 0, "resourceTemplates", nil},
		{"2026 skills/get unknown", skillReq{versionModern, capsSkills, "skills/get", `"uri":"skill://pawtograder/nothing/SKILL.md"`}, 400, codeInvalidParams, "", nil},
		{"2026 skills/get without uri", skillReq{versionModern, capsSkills, "skills/get", ""}, 400, codeInvalidParams, "", nil},
		{"2026 skills/get of a write skill, writes off", skillReq{versionModern, capsSkills, "skills/get", `"uri":"` + writeSkill + `"`}, 400, codeInvalidParams, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, a := tc.req.send(t, env, authGood)
			code := 0
			if a.Error != nil {
				code = a.Error.Code
			}
			if status != tc.status || code != tc.code {
				t.Fatalf("HTTP %d, code %d, want %d, %d\n%s", status, code, tc.status, tc.code, a.raw)
			}
			if tc.listKey != "" {
				if diff := cmp.Diff(tc.wantURIs, a.uris(tc.listKey)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tc.listKey, diff)
				}
			}
		})
	}
}

// viewURIs are the MCP Apps views' URIs in resources/list order.
func viewURIs() []string {
	var uris []string
	for _, v := range views.All() {
		uris = append(uris, v.URI)
	}
	return uris
}

// TestSkillsGolden pins the 2026-07-28 answers of the extension with the
// write tools off: server/discover, skills/list, skills/get and
// resources/read of one skill.
func TestSkillsGolden(t *testing.T) {
	env := newTestEnv(t, nil)
	for _, tc := range []struct {
		file string
		req  skillReq
	}{
		{"discover_2026.golden", skillReq{versionModern, capsSkillsApps, "server/discover", ""}},
		{"skills_list_2026.golden", skillReq{versionModern, capsSkills, "skills/list", ""}},
		{"skills_get_2026.golden", skillReq{versionModern, capsSkills, "skills/get", `"uri":"` + readSkillURI + `"`}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, a := tc.req.send(t, env, authGood)
			golden(t, tc.file, a.raw)
		})
	}
	// server/discover describes the server whoever asks: a client that
	// declares nothing gets the same answer, instructions pointing to the
	// skills included.
	_, plain := skillReq{versionModern, `{}`, "server/discover", ""}.send(t, env, authGood)
	_, withSkills := skillReq{versionModern, capsSkills, "server/discover", ""}.send(t, env, authGood)
	if string(plain.raw) != string(withSkills.raw) {
		t.Errorf("server/discover differs with the client's capabilities:\n%s\n%s", plain.raw, withSkills.raw)
	}
	if got, _ := plain.Result["instructions"].(string); got != instructions+" "+skillsInstructions(false, false) {
		t.Errorf("instructions: %q", got)
	}
}

// TestSkillsPerCaller checks the filter: with the write tools on, a token
// with mcp:write gets every skill and one without gets the read skills
// only; the lists are then "private". With the write tools off everyone
// gets the read skills and the lists are "public".
func TestSkillsPerCaller(t *testing.T) {
	on, _ := newWriteEnv(t) // authGood carries mcp:write, authOther does not
	off := newTestEnv(t, nil)
	offWriter := newTestEnv(t, func(o *Options) { o.Auth = writeAuth{o.Auth.(*fakeAuth)} }) // a token with mcp:write, writes off
	getWrite := `"uri":"` + writeSkill + `"`
	for _, tc := range []struct {
		name      string
		env       *testEnv
		auth      string
		wantURIs  []string
		wantScope string
		getWrite  int // JSON-RPC code of skills/get of a write skill, 0: served
		readWrite int // at 2025-11-25, resources/read of it
	}{
		{"writes on, mcp:write", on, authGood, skillURIs(true), "private", 0, 0},
		{"writes on, read only", on, authOther, skillURIs(false), "private", codeInvalidParams, codeResourceNotFound},
		{"writes off", off, authGood, skillURIs(false), "public", codeInvalidParams, codeResourceNotFound},
		{"writes off, mcp:write", offWriter, authGood, skillURIs(false), "public", codeInvalidParams, codeResourceNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, list := skillReq{versionModern, capsSkills, "skills/list", ""}.send(t, tc.env, tc.auth)
			if diff := cmp.Diff(tc.wantURIs, list.uris("skills")); diff != "" {
				t.Errorf("skills/list (-want +got):\n%s", diff)
			}
			if got := list.Result["cacheScope"]; got != tc.wantScope {
				t.Errorf("skills/list cacheScope %v, want %s", got, tc.wantScope)
			}
			_, res := skillReq{versionModern, capsSkills, "resources/list", ""}.send(t, tc.env, tc.auth)
			if diff := cmp.Diff(append(viewURIs(), tc.wantURIs...), res.uris("resources")); diff != "" || res.Result["cacheScope"] != tc.wantScope {
				t.Errorf("resources/list cacheScope %v (-want +got):\n%s", res.Result["cacheScope"], diff)
			}
			_, legacy := skillReq{"2025-11-25", "", "resources/list", ""}.send(t, tc.env, tc.auth)
			if diff := cmp.Diff(append(viewURIs(), tc.wantURIs...), legacy.uris("resources")); diff != "" {
				t.Errorf("resources/list at 2025-11-25 (-want +got):\n%s", diff)
			}
			_, get := skillReq{versionModern, capsSkills, "skills/get", getWrite}.send(t, tc.env, tc.auth)
			if got := errCode(get); got != tc.getWrite {
				t.Errorf("skills/get of a write skill: code %d, want %d", got, tc.getWrite)
			}
			if tc.getWrite == 0 && get.Result["cacheScope"] != "private" {
				t.Errorf("skills/get of a write skill: cacheScope %v, want private", get.Result["cacheScope"])
			}
			_, read := skillReq{"2025-11-25", "", "resources/read", getWrite}.send(t, tc.env, tc.auth)
			if got := errCode(read); got != tc.readWrite {
				t.Errorf("resources/read of a write skill at 2025-11-25: code %d, want %d", got, tc.readWrite)
			}
		})
	}
}

func errCode(a rpcAnswer) int {
	if a.Error == nil {
		return 0
	}
	return a.Error.Code
}

// TestSkillsNameOnlyListedTools holds every skill against the catalogue
// at each revision that serves skills, for each kind of caller: every
// tool a skill calls or names is in that revision's tools/list for that
// caller, every argument it gives is in the tool's inputSchema, and every
// other name in inline code is such a tool, such an argument, or a field
// of a called tool's result (a property anywhere in its outputSchema, such
// as get_help_request's instructors_only). The skills are read as the
// client reads them (listed, then resources/read).
func TestSkillsNameOnlyListedTools(t *testing.T) {
	on, _ := newWriteEnv(t)
	off := newTestEnv(t, nil)
	callers := []struct {
		name string
		env  *testEnv
		auth string
	}{{"writes off", off, authGood}, {"writes on, mcp:write", on, authGood}, {"writes on, read only", on, authOther}}
	for _, version := range []string{"2025-06-18", "2025-11-25", versionModern} {
		for _, c := range callers {
			t.Run(version+"/"+c.name, func(t *testing.T) {
				caps := capsSkills
				_, tl := skillReq{version, caps, "tools/list", ""}.send(t, c.env, c.auth)
				props := map[string][]string{}  // tool → input properties
				fields := map[string][]string{} // tool → its result's property names
				for _, v := range tl.Result["tools"].([]any) {
					tool := v.(map[string]any)
					schema, _ := tool["inputSchema"].(map[string]any)
					p, _ := schema["properties"].(map[string]any)
					var names []string
					for k := range p {
						names = append(names, k)
					}
					props[tool["name"].(string)] = names
					fields[tool["name"].(string)] = schemaPropertyNames(tool["outputSchema"], nil)
				}
				listMethod, key := "resources/list", "resources"
				if version == versionModern {
					listMethod, key = "skills/list", "skills"
				}
				_, list := skillReq{version, caps, listMethod, ""}.send(t, c.env, c.auth)
				uris := list.uris(key)
				if len(uris) == 0 {
					t.Fatal("no skills listed")
				}
				for _, uri := range uris {
					if !strings.HasPrefix(uri, "skill://") {
						continue
					}
					_, read := skillReq{version, caps, "resources/read", `"uri":"` + uri + `"`}.send(t, c.env, c.auth)
					contents, _ := read.Result["contents"].([]any)
					if len(contents) != 1 {
						t.Fatalf("%s: %d contents\n%s", uri, len(contents), read.raw)
					}
					text, _ := contents[0].(map[string]any)["text"].(string)
					checkMentions(t, uri, skills.Mentioned(text), props, fields)
				}
			})
		}
	}
}

// schemaPropertyNames appends every property name anywhere in a JSON
// Schema (nested objects, items, anyOf, $defs) to names.
func schemaPropertyNames(schema any, names []string) []string {
	switch x := schema.(type) {
	case map[string]any:
		if p, ok := x["properties"].(map[string]any); ok {
			for k := range p {
				names = append(names, k)
			}
		}
		for _, v := range x {
			names = schemaPropertyNames(v, names)
		}
	case []any:
		for _, v := range x {
			names = schemaPropertyNames(v, names)
		}
	}
	return names
}

// checkMentions holds one skill's mentions against props (tool → input
// properties) and fields (tool → its result's property names).
func checkMentions(t *testing.T, uri string, m skills.Mentions, props, fields map[string][]string) {
	t.Helper()
	if len(m.Calls) == 0 {
		t.Errorf("%s calls no tool", uri)
	}
	called := map[string]bool{}
	for _, c := range m.Calls {
		args, ok := props[c.Tool]
		if !ok {
			t.Errorf("%s calls %s, which this revision's tools/list does not list for the caller", uri, c.Tool)
			continue
		}
		called[c.Tool] = true
		for _, a := range c.Args {
			if !slices.Contains(args, a) {
				t.Errorf("%s gives %s the argument %q, which its inputSchema lacks", uri, c.Tool, a)
			}
		}
	}
	for _, w := range append(m.Words, m.ToolLike...) {
		if _, isTool := props[w]; isTool {
			continue
		}
		found := false
		for tool := range called {
			found = found || slices.Contains(props[tool], w) || slices.Contains(fields[tool], w)
		}
		if !found {
			t.Errorf("%s names %q, neither a tool this revision's tools/list lists for the caller nor an argument or result field of a tool it calls", uri, w)
		}
	}
}

// TestInitializePointsToSkills: from 2025-06-18 every client may list and
// read the skills as resources, so initialize declares resources (and the
// MCP Apps extension, to every client) and its instructions name the
// skills (here the read server's answer, whole); 2025-03-26 and the
// drop-in answer are unchanged.
func TestInitializePointsToSkills(t *testing.T) {
	env := newTestEnv(t, nil)
	init := func(v string) string {
		return env.do(http.MethodPost, "", hdr("Authorization", authGood),
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`).Body.String()
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{},"resources":{},"extensions":{"io.modelcontextprotocol/ui":{}}},` +
		`"instructions":"Read-only access to Pawtograder course data for instructors and graders: assignments, submissions with their files, test results and build output, help requests, discussion threads, and the grader and handout repositories. Every tool needs the class_id of the course; results only ever contain what the signed-in user may see in Pawtograder. ` +
		`Step-by-step workflows for common tasks are served as skill resources; read the one that fits (resources/read) before starting such a task: ` +
		`skill://pawtograder/failing-tests-diagnosis/SKILL.md, skill://pawtograder/grading-progress/SKILL.md, skill://pawtograder/help-request-triage/SKILL.md, skill://pawtograder/office-hours-prep/SKILL.md, skill://pawtograder/regrade-triage/SKILL.md."}}`
	if diff := cmp.Diff(want, init("2025-11-25")); diff != "" {
		t.Errorf("2025-11-25 (-want +got):\n%s", diff)
	}
	if got, want := init("2025-03-26"), `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{}}}}`; got != want {
		t.Errorf("2025-03-26: %s", got)
	}
}
