package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Answers of the real catalogue over the empty fake PostgREST.
const (
	callAssignment  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}}}`
	callMissingArg  = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1}}}`
	callUnknownTool = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`
	listTools       = `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`
	pingRequest     = `{"jsonrpc":"2.0","id":5,"method":"ping"}`

	msgMissingArg = "Invalid params: missing required argument 'class_id' for tool get_assignment"

	answerAssignment           = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"null"}]}}`
	answerAssignmentStructured = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"null"}],"structuredContent":{"result":null}}}`
	answerMissingArgRPC        = `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"` + msgMissingArg + `"}}`
	answerMissingArgResult     = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + msgMissingArg + `"}],"isError":true}}`
	answerUnknownTool          = `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"Unknown tool: no_such_tool"}}`
	answerUnknownToolInvalid   = `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: no_such_tool"}}`
	answerPingBatch            = `[{"jsonrpc":"2.0","id":5,"result":{}}]`
)

// TestRevisionRules pins every rule that depends on the revision a request
// is served under: pinned, without the header (2025-03-26) and under each
// supported header value. 2024-11-05 and 2025-03-26 answer exactly as the
// original; 2025-06-18 adds outputSchema and structuredContent and refuses
// batches; 2025-11-25 also turns argument errors into isError results and
// unknown tools into -32602.
func TestRevisionRules(t *testing.T) {
	legacyList, err := os.ReadFile(filepath.Join("testdata", "tools_list.golden"))
	if err != nil {
		t.Fatal(err)
	}
	legacyList = bytes.Replace(legacyList, []byte(`"id":1,`), []byte(`"id":4,`), 1)
	batchRefused := func(v string) string {
		return envJSON(-32600, "Invalid Request: batching is not supported in protocol version "+v)
	}
	for _, tc := range []struct {
		name      string
		pin       bool
		header    string
		structure bool // outputSchema and structuredContent
		missing   string
		unknown   string
		batch     string
		batchCode int
	}{
		{"pinned", true, "", false, answerMissingArgRPC, answerUnknownTool, answerPingBatch, 200},
		{"pinned ignores 2025-11-25", true, "2025-11-25", false, answerMissingArgRPC, answerUnknownTool, answerPingBatch, 200},
		{"pinned ignores unknown header", true, "2099-01-01", false, answerMissingArgRPC, answerUnknownTool, answerPingBatch, 200},
		{"no header is 2025-03-26", false, "", false, answerMissingArgRPC, answerUnknownTool, answerPingBatch, 200},
		{"2024-11-05", false, "2024-11-05", false, answerMissingArgRPC, answerUnknownTool, answerPingBatch, 200},
		{"2025-03-26", false, "2025-03-26", false, answerMissingArgRPC, answerUnknownTool, answerPingBatch, 200},
		{"2025-06-18", false, "2025-06-18", true, answerMissingArgRPC, answerUnknownTool, batchRefused("2025-06-18"), 400},
		{"2025-11-25", false, "2025-11-25", true, answerMissingArgResult, answerUnknownToolInvalid, batchRefused("2025-11-25"), 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = tc.pin })
			h := hdr("Authorization", authGood)
			if tc.header != "" {
				h[headerProtocolVersion] = tc.header
			}
			post := func(body string) (int, string) {
				rec := env.do(http.MethodPost, "", h, body)
				return rec.Code, rec.Body.String()
			}
			wantCall := answerAssignment
			if tc.structure {
				wantCall = answerAssignmentStructured
			}
			for _, c := range []struct{ what, body, want string }{
				{"tools/call", callAssignment, wantCall},
				{"missing argument", callMissingArg, tc.missing},
				{"unknown tool", callUnknownTool, tc.unknown},
			} {
				code, got := post(c.body)
				if code != 200 {
					t.Errorf("%s: status %d", c.what, code)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", c.what, diff)
				}
			}
			code, got := post(`[` + pingRequest + `]`)
			if code != tc.batchCode || got != tc.batch {
				t.Errorf("batch: %d %s, want %d %s", code, got, tc.batchCode, tc.batch)
			}
			code, got = post(listTools)
			if code != 200 {
				t.Errorf("tools/list: status %d", code)
			}
			if tc.structure {
				golden(t, "tools_list_apps.golden" /* _meta.ui on the view tools: apps_test.go */, []byte(strings.Replace(got, `"id":4,`, `"id":1,`, 1)))
				if n := strings.Count(got, `,"outputSchema":{"type":"object","properties":{"result":`); n != len(tools.Names()) {
					t.Errorf("tools/list has %d outputSchemas after inputSchema, want %d", n, len(tools.Names()))
				}
			} else if diff := cmp.Diff(string(legacyList), got); diff != "" {
				t.Errorf("tools/list differs from the original's (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNegotiationThenRequests follows a client through initialize and its
// next request, for each revision it may ask for: the answer's revision,
// then the shape of a tools/call sent with that revision's header.
func TestNegotiationThenRequests(t *testing.T) {
	initReq := func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	}
	for _, tc := range []struct {
		pin            bool
		asked, got     string
		wantStructured bool
	}{
		{false, "2024-11-05", "2024-11-05", false},
		{false, "2025-03-26", "2025-03-26", false},
		{false, "2025-06-18", "2025-06-18", true},
		{false, "2025-11-25", "2025-11-25", true},
		{false, "2026-07-28", "2025-11-25", true},
		{false, "2024-10-07", "2025-11-25", true},
		{true, "2024-11-05", "2024-11-05", false},
		{true, "2025-11-25", "2024-11-05", false},
		{true, "2026-07-28", "2024-11-05", false},
	} {
		t.Run(fmt.Sprintf("pin=%v/%s", tc.pin, tc.asked), func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = tc.pin })
			rec := env.do(http.MethodPost, "", hdr("Authorization", authGood), initReq(tc.asked))
			want := initializeAnswer(tc.got, false)
			if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
				t.Fatalf("initialize (-want +got):\n%s", diff)
			}
			// 2024-11-05 clients send no header; later ones send the
			// negotiated revision.
			h := hdr("Authorization", authGood)
			if tc.got != "2024-11-05" {
				h[headerProtocolVersion] = tc.got
			}
			rec = env.do(http.MethodPost, "", h, callAssignment)
			wantCall := answerAssignment
			if tc.wantStructured {
				wantCall = answerAssignmentStructured
			}
			if diff := cmp.Diff(wantCall, rec.Body.String()); diff != "" {
				t.Errorf("tools/call (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStructuredContentOfEmptyAnswers calls every tool through the
// transport at 2025-11-25 against the fake backend, whose queries return no
// rows, so each tool gives its not-found or empty answer. It checks the
// wrapping: structuredContent is {"result": <the text block's value>} and
// satisfies the outputSchema the same server listed (draft 2020-12). The
// schemas are validated against real seeded answers of every tool by
// TestOutputSchemasAcceptSeededResults in package tools.
func TestStructuredContentOfEmptyAnswers(t *testing.T) {
	env := newTestEnv(t, nil)
	h := hdr("Authorization", authGood, headerProtocolVersion, "2025-11-25")
	rec := env.do(http.MethodPost, "", h, listTools)
	for _, tool := range listedTools(t, rec.Body.Bytes()) {
		t.Run(tool.Name, func(t *testing.T) {
			schema := compileSchema(t, tool.Name, tool.OutputSchema)
			args := placeholderArgs(tool.InputSchema)
			if tool.Name == "get_test_output" { // needs one of two optional arguments
				args.Set("test_id", float64(1))
			}
			body, err := jsjson.Marshal(jsjson.NewObject(4).Set("jsonrpc", "2.0").Set("id", float64(1)).Set("method", "tools/call").
				Set("params", jsjson.NewObject(2).Set("name", tool.Name).Set("arguments", args)))
			if err != nil {
				t.Fatal(err)
			}
			rec := env.do(http.MethodPost, "", h, string(body))
			var resp struct {
				Result struct {
					Content []struct {
						Type, Text string
					}
					StructuredContent json.RawMessage
					IsError           bool
				}
				Error any
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Error != nil || resp.Result.IsError || len(resp.Result.Content) != 1 {
				t.Fatalf("tools/call: %v %s", err, rec.Body)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(resp.Result.StructuredContent))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("structuredContent does not satisfy the outputSchema: %v\n%s", err, resp.Result.StructuredContent)
			}
			var text, structured any
			if err := json.Unmarshal([]byte(resp.Result.Content[0].Text), &text); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(resp.Result.StructuredContent, &structured); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]any{"result": text}, structured); diff != "" {
				t.Errorf("structuredContent is not {result: <text value>} (-text +structured):\n%s", diff)
			}
		})
	}
}

// compileSchema compiles a JSON Schema document (draft 2020-12).
func compileSchema(t *testing.T, name string, doc json.RawMessage) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem://" + name + ".json"
	if err := c.AddResource(url, v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// TestToolResultShapes pins the structured and error result encodings.
func TestToolResultShapes(t *testing.T) {
	for _, tc := range []struct{ name, got, want string }{
		{"structured", string(toolCallResult([]byte("[\n  1\n]"), []byte(`{"result":[1]}`))),
			`{"content":[{"type":"text","text":"[\n  1\n]"}],"structuredContent":{"result":[1]}}`},
		{"error", string(toolErrorResult("Invalid params: argument 'a\"b' of tool t must be a number\n")),
			`{"content":[{"type":"text","text":"Invalid params: argument 'a\"b' of tool t must be a number\n"}],"isError":true}`},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
