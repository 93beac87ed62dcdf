package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// modernMeta is the _meta of a well-formed 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// modernReq returns a 2026-07-28 request body with the given id, method and
// extra params members (a leading comma included).
func modernReq(id, method, extra string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + modernMeta + extra + `}}`
}

// modernHdr returns the headers of a well-formed 2026-07-28 request plus kv.
func modernHdr(method string, kv ...string) map[string]string {
	h := hdr("Authorization", authGood, headerProtocolVersion, "2026-07-28", "Mcp-Method", method)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(h, kv[i])
			continue
		}
		h[kv[i]] = kv[i+1]
	}
	return h
}

const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"pawtograder","version":"0.1.0"}}`

func rpcErr(id string, code, msg string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + code + `,"message":"` + msg + `"}}`
}

const unsupportedData = `"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":`

// TestRevision2026Answers pins every status and message of the 2026-07-28
// request rules: version header and _meta, Mcp-Method and Mcp-Name, removed
// and unknown methods, tool results, subscriptions/listen, GET and batches.
func TestRevision2026Answers(t *testing.T) {
	call := func(id, name, args string) string {
		return modernReq(id, "tools/call", `,"name":"`+name+`","arguments":`+args)
	}
	const listen = `,"notifications":{"toolsListChanged":true}`
	sse := map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
	cases := []httpCase{
		// Version information.
		{name: "discover", header: modernHdr("server/discover"), body: modernReq("1", "server/discover", ""), wantStatus: 200, wantHeader: jsonHeader,
			wantBody: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
				`"capabilities":{"tools":{},"resources":{},"extensions":{"io.modelcontextprotocol/ui":{},"io.modelcontextprotocol/skills":{}}},"instructions":"` +
				instructions + ` ` + skillsInstructions(false, false) + `","ttlMs":3600000,"cacheScope":"public",` + serverInfo + `}}`},
		{name: "_meta without the version header", header: modernHdr("server/discover", headerProtocolVersion, ""), body: modernReq("1", "server/discover", ""),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: the MCP-Protocol-Version header is required when _meta names a protocol version")},
		{name: "_meta and a handshake header disagree", header: modernHdr("server/discover", headerProtocolVersion, "2025-11-25"), body: modernReq("1", "server/discover", ""),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'")},
		{name: "header without _meta", header: modernHdr("server/discover"), body: `{"jsonrpc":"2.0","id":"a","method":"server/discover","params":{}}`,
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr(`"a"`, "-32602", `Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] is required at protocol version 2026-07-28`)},
		{name: "header without params", header: modernHdr("tools/list"), body: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("2", "-32602", `Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] is required at protocol version 2026-07-28`)},
		{name: "_meta version not a string", header: modernHdr("server/discover"), body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body value '20260728'")},
		{name: "_meta names another revision than the header", header: modernHdr("server/discover"), body: strings.Replace(modernReq("1", "server/discover", ""), `protocolVersion":"2026-07-28"`, `protocolVersion":"v999.0.0"`, 1),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body value 'v999.0.0'")},
		{name: "unsupported revision", header: modernHdr("server/discover", headerProtocolVersion, "v999.0.0"), body: strings.Replace(modernReq("301", "server/discover", ""), `protocolVersion":"2026-07-28"`, `protocolVersion":"v999.0.0"`, 1),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":301,"error":{"code":-32022,"message":"Unsupported protocol version: v999.0.0 (supported versions: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)",` + unsupportedData + `"v999.0.0"}}}`},
		{name: "no client capabilities", header: modernHdr("server/discover"), body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32602", `Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] is required and must be an object`)},
		{name: "client capabilities not an object", header: modernHdr("server/discover"), body: strings.Replace(modernReq("1", "server/discover", ""), `clientCapabilities":{}`, `clientCapabilities":[]`, 1),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32602", `Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] is required and must be an object`)},
		{name: "no client info is fine", header: modernHdr("tools/list"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `*`},
		{name: "log level is accepted and nothing is logged to the client", header: modernHdr("tools/list"), body: strings.Replace(modernReq("1", "tools/list", ""), `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"`, 1),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `*`},

		// Standard headers.
		{name: "no Mcp-Method", header: modernHdr("x", "Mcp-Method", ""), body: modernReq("1", "tools/list", ""),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: the Mcp-Method header is required")},
		{name: "Mcp-Method differs", header: modernHdr("prompts/list"), body: modernReq("1", "tools/list", ""),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: Mcp-Method header value 'prompts/list' does not match body value 'tools/list'")},
		{name: "Mcp-Method values are case-sensitive", header: modernHdr("TOOLS/LIST"), body: modernReq("1", "tools/list", ""),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: Mcp-Method header value 'TOOLS/LIST' does not match body value 'tools/list'")},
		{name: "Mcp-Method names are not", header: modernHdr("x", "Mcp-Method", "", "mcp-method", "tools/list"), body: modernReq("1", "tools/list", ""),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `*`},
		{name: "method not a string", header: modernHdr("5"), body: `{"jsonrpc":"2.0","id":1,"method":5,"params":{` + modernMeta + `}}`,
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: Mcp-Method header value '5' does not match body value '5'")},
		{name: "no Mcp-Name", header: modernHdr("tools/call"), body: call("1", "get_assignment", `{}`),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: the Mcp-Name header is required for tools/call")},
		{name: "Mcp-Name differs", header: modernHdr("tools/call", "Mcp-Name", "wrong_tool_name"), body: call("1", "get_assignment", `{}`),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: Mcp-Name header value 'wrong_tool_name' does not match body value 'get_assignment'")},
		{name: "Mcp-Name without a name in the body", header: modernHdr("tools/call", "Mcp-Name", "get_assignment"), body: modernReq("1", "tools/call", ""),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: Mcp-Name header value 'get_assignment' does not match body value 'undefined'")},
		{name: "Mcp-Name with whitespace around it", header: modernHdr("tools/call", "Mcp-Name", "  get_assignment\t"), body: call("1", "get_assignment", `{}`),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `*`},
		{name: "Mcp-Name in Base64", header: modernHdr("tools/call", "Mcp-Name", "=?base64?Z2V0X2Fzc2lnbm1lbnQ=?="), body: call("1", "get_assignment", `{}`),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `*`},
		{name: "Mcp-Name in bad Base64", header: modernHdr("tools/call", "Mcp-Name", "=?base64?Z2V0X2Fzc2lnbm1lbnQ?="), body: call("1", "get_assignment", `{}`),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: Mcp-Name header value is not valid Base64")},
		{name: "Mcp-Name not visible ASCII", header: modernHdr("tools/call", "Mcp-Name", "get_assignmént"), body: call("1", "get_assignmént", `{}`),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: Mcp-Name header value contains characters outside visible ASCII; send it as =?base64?…?=")},
		{name: "Mcp-Name for resources/read", header: modernHdr("resources/read"), body: modernReq("1", "resources/read", `,"uri":"ui://x"`),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32020", "Header mismatch: the Mcp-Name header is required for resources/read")},

		// Methods.
		{name: "unknown method", header: modernHdr("unknown/method"), body: modernReq("601", "unknown/method", ""),
			wantStatus: 404, wantHeader: jsonHeader, wantBody: rpcErr("601", "-32601", "Method not found: unknown/method")},
		{name: "initialize removed", header: modernHdr("initialize"), body: modernReq("500", "initialize", ""),
			wantStatus: 404, wantHeader: jsonHeader, wantBody: rpcErr("500", "-32601", "Method not found: initialize (removed in protocol version 2026-07-28)")},
		{name: "ping removed", header: modernHdr("ping"), body: modernReq("500", "ping", ""),
			wantStatus: 404, wantHeader: jsonHeader, wantBody: rpcErr("500", "-32601", "Method not found: ping (removed in protocol version 2026-07-28)")},
		{name: "notifications/initialized removed", header: modernHdr("notifications/initialized"), body: modernReq("500", "notifications/initialized", ""),
			wantStatus: 404, wantHeader: jsonHeader, wantBody: rpcErr("500", "-32601", "Method not found: notifications/initialized (removed in protocol version 2026-07-28)")},
		{name: "logging/setLevel", header: modernHdr("logging/setLevel"), body: modernReq("500", "logging/setLevel", `,"level":"debug"`),
			wantStatus: 404, wantHeader: jsonHeader, wantBody: rpcErr("500", "-32601", "Method not found: logging/setLevel")},
		{name: "resources/subscribe", header: modernHdr("resources/subscribe"), body: modernReq("500", "resources/subscribe", ""),
			wantStatus: 404, wantHeader: jsonHeader, wantBody: rpcErr("500", "-32601", "Method not found: resources/subscribe")},
		{name: "a notification is accepted", header: modernHdr("notifications/cancelled"), body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{` + modernMeta + `}}`,
			wantStatus: 202, wantBody: ``},

		// tools/call.
		{name: "tool result", header: modernHdr("tools/call", "Mcp-Name", "get_assignment"), body: call("1", "get_assignment", `{"assignment_id":1,"class_id":1}`),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"null"}],"structuredContent":null,` + serverInfo + `}}`},
		{name: "invalid arguments", header: modernHdr("tools/call", "Mcp-Name", "get_assignment"), body: call("1", "get_assignment", `{"assignment_id":1}`),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Invalid params: missing required argument 'class_id' for tool get_assignment"}],"isError":true,` + serverInfo + `}}`},
		{name: "unknown tool", header: modernHdr("tools/call", "Mcp-Name", "no_such_tool"), body: call("1", "no_such_tool", `{}`),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32602", "Unknown tool: no_such_tool")},

		// subscriptions/listen: nothing to notify, so acknowledged with no
		// notification types and ended gracefully at once.
		{name: "listen", header: modernHdr("subscriptions/listen"), body: modernReq(`"sub-1"`, "subscriptions/listen", listen),
			wantStatus: 200, wantHeader: sse, wantBody: "event: message\ndata: " +
				`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"notifications":{}}}` +
				"\n\nevent: message\ndata: " +
				`{"jsonrpc":"2.0","id":"sub-1","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1","io.modelcontextprotocol/serverInfo":{"name":"pawtograder","version":"0.1.0"}}}}` +
				"\n\n"},
		{name: "listen without a filter", header: modernHdr("subscriptions/listen"), body: modernReq("7", "subscriptions/listen", ""),
			wantStatus: 400, wantHeader: jsonHeader, wantBody: rpcErr("7", "-32602", "Invalid params: subscriptions/listen requires a notifications object")},

		// Transport.
		{name: "batch", header: modernHdr("tools/list"), body: `[` + modernReq("1", "tools/list", "") + `]`,
			wantStatus: 400, wantHeader: jsonHeader, wantBody: envJSON(-32600, "Invalid Request: batching is not supported in protocol version 2026-07-28")},
		{name: "GET", method: http.MethodGet, header: hdr("Authorization", authGood, headerProtocolVersion, "2026-07-28", "Accept", "text/event-stream"),
			wantStatus: 405, wantHeader: jsonHeader, wantBody: `{"error":"Method not allowed"}`},
		{name: "unauthenticated first", header: modernHdr("tools/list", "Authorization", authBad), body: modernReq("1", "tools/list", ""),
			wantStatus: 401, wantHeader: jsonHeader, wantBody: envJSON(-32000, "Invalid or expired API token")},

		// The handshake revisions.
		{name: "discover at a handshake revision", header: hdr("Authorization", authGood, headerProtocolVersion, "2025-11-25"), body: `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`,
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `*`},
		{name: "discover without any version", header: hdr("Authorization", authGood), body: `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`,
			wantStatus: 200, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32601", "Method not found: server/discover")},
		{name: "_meta naming a handshake revision its header agrees with", header: hdr("Authorization", authGood, headerProtocolVersion, "2025-11-25"),
			body:       strings.Replace(modernReq("1", "ping", ""), `protocolVersion":"2026-07-28"`, `protocolVersion":"2025-11-25"`, 1),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":1,"result":{}}`},
	}
	for i := range cases {
		cases[i].wantAuthCalls, cases[i].wantTouches = -1, -1
	}
	var exact, loose []httpCase
	for _, tc := range cases {
		if tc.wantBody == "*" {
			loose = append(loose, tc)
		} else {
			exact = append(exact, tc)
		}
	}
	runCases(t, exact, nil)
	// The answers that are results checked elsewhere: only the status and
	// that the result has the revision's shape.
	for _, tc := range loose {
		t.Run(tc.name, func(t *testing.T) {
			rec := newTestEnv(t, nil).do(http.MethodPost, "", tc.header, tc.body)
			if rec.Code != tc.wantStatus || !strings.Contains(rec.Body.String(), `"result":{`) {
				t.Errorf("%d %s, want %d and a result", rec.Code, rec.Body, tc.wantStatus)
			}
		})
	}
}

// TestRevision2026Pinned: with PinProtocol2024 the server is the original,
// so 2026-07-28 requests are answered as 2024-11-05 requests.
func TestRevision2026Pinned(t *testing.T) {
	runCases(t, []httpCase{
		{name: "discover", header: modernHdr("server/discover"), body: modernReq("1", "server/discover", ""),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: rpcErr("1", "-32601", "Method not found: server/discover"), wantAuthCalls: 1, wantTouches: 1},
		{name: "ping", header: modernHdr("ping"), body: modernReq("1", "ping", ""),
			wantStatus: 200, wantHeader: jsonHeader, wantBody: `{"jsonrpc":"2.0","id":1,"result":{}}`, wantAuthCalls: 1, wantTouches: 1},
	}, func(o *Options) { o.PinProtocol2024 = true })
}

// TestRevision2026Golden pins the full JSON text of server/discover and
// tools/list at 2026-07-28.
func TestRevision2026Golden(t *testing.T) {
	env := newTestEnv(t, nil)
	for _, tc := range []struct{ method, golden string }{
		{"server/discover", "discover_2026.golden"},
		{"tools/list", "tools_list_2026.golden"},
	} {
		rec := env.do(http.MethodPost, "", modernHdr(tc.method), modernReq("1", tc.method, ""))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", tc.method, rec.Code, rec.Body)
		}
		golden(t, tc.golden, rec.Body.Bytes())
	}
}

// TestRevision2026ToolOrder: tools/list is deterministic (the revision's
// SHOULD, for client and prompt caches): the catalogue order, every time.
func TestRevision2026ToolOrder(t *testing.T) {
	env := newTestEnv(t, nil)
	var first string
	for i := 0; i < 3; i++ {
		rec := env.do(http.MethodPost, "", modernHdr("tools/list"), modernReq("1", "tools/list", ""))
		var got struct {
			Result struct {
				Tools []struct{ Name string }
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range got.Result.Tools {
			names = append(names, tool.Name)
		}
		if diff := cmp.Diff(tools.Names(), names); diff != "" {
			t.Errorf("order (-catalogue +got):\n%s", diff)
		}
		if i == 0 {
			first = rec.Body.String()
		} else if rec.Body.String() != first {
			t.Error("tools/list differs between calls")
		}
	}
}

// TestStructuredOutput2026MatchesSchema calls every tool at 2026-07-28 and
// validates structuredContent, which is now the tool's value itself,
// against the outputSchema the same server listed (JSON Schema 2020-12);
// the text block holds the same value, unchanged from older revisions.
func TestStructuredOutput2026MatchesSchema(t *testing.T) {
	env := newTestEnv(t, nil)
	rec := env.do(http.MethodPost, "", modernHdr("tools/list"), modernReq("1", "tools/list", ""))
	for _, tool := range listedTools(t, rec.Body.Bytes()) {
		t.Run(tool.Name, func(t *testing.T) {
			schema := compileSchema(t, tool.Name, tool.OutputSchema)
			args := placeholderArgs(tool.InputSchema)
			if tool.Name == "get_test_output" {
				args.Set("test_id", float64(1))
			}
			argText, err := jsjson.Marshal(args)
			if err != nil {
				t.Fatal(err)
			}
			rec := env.do(http.MethodPost, "", modernHdr("tools/call", "Mcp-Name", tool.Name),
				modernReq("1", "tools/call", `,"name":"`+tool.Name+`","arguments":`+string(argText)))
			var resp struct {
				Result struct {
					ResultType string
					Content    []struct{ Type, Text string }
					IsError    bool
				}
				Error any
			}
			var members struct{ Result map[string]json.RawMessage }
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Error != nil || resp.Result.IsError ||
				len(resp.Result.Content) != 1 || resp.Result.ResultType != "complete" {
				t.Fatalf("tools/call: %v %s", err, rec.Body)
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &members); err != nil || members.Result["structuredContent"] == nil {
				t.Fatalf("tools/call: no structuredContent: %v %s", err, rec.Body)
			}
			structured := members.Result["structuredContent"]
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(structured))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("structuredContent does not satisfy the outputSchema: %v\n%s", err, structured)
			}
			var text, value any
			if err := json.Unmarshal([]byte(resp.Result.Content[0].Text), &text); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(structured, &value); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(text, value); diff != "" {
				t.Errorf("structuredContent is not the text's value (-text +structured):\n%s", diff)
			}
		})
	}
}

// TestModernResult pins the wrapping of results at 2026-07-28.
func TestModernResult(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, `{"resultType":"complete",` + serverInfo + `}`},
		{`{"tools":[]}`, `{"resultType":"complete","tools":[],` + serverInfo + `}`},
	} {
		if got := string(modernResult([]byte(tc.in))); got != tc.want {
			t.Errorf("modernResult(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzRevision2026 feeds arbitrary bodies and standard-header values
// through the 2026-07-28 path and checks every answer is well formed: 202
// without a body, JSON with a status the revision defines, or the
// subscriptions/listen event stream.
func FuzzRevision2026(f *testing.F) {
	f.Add([]byte(modernReq("1", "server/discover", "")), "2026-07-28", "server/discover", "")
	f.Add([]byte(modernReq("1", "tools/call", `,"name":"get_assignment","arguments":{"assignment_id":1,"class_id":1}`)), "2026-07-28", "tools/call", "get_assignment")
	f.Add([]byte(modernReq("1", "tools/call", `,"name":"x"`)), "2026-07-28", "tools/call", "=?base64?eA==?=")
	f.Add([]byte(modernReq(`"s"`, "subscriptions/listen", `,"notifications":{}`)), "2026-07-28", "subscriptions/listen", "")
	f.Add([]byte(modernReq("1", "ping", "")), "v9", "ping", "")
	f.Add([]byte(`{"id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}`), "", "tools/list", "")
	f.Add([]byte(`[`+modernReq("1", "tools/list", "")+`]`), "2026-07-28", "tools/list", "")
	appsMeta := strings.Replace(modernMeta, `clientCapabilities":{}`, `clientCapabilities":`+capsApps, 1)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{`+appsMeta+`,"uri":"ui://pawtograder/assignment"}}`), "2026-07-28", "resources/read", "ui://pawtograder/assignment")
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{`+appsMeta+`}}`), "2026-07-28", "resources/list", "")
	env := newTestEnv(f, func(o *Options) { o.MaxBodyBytes = 1 << 16 })
	f.Fuzz(func(t *testing.T, body []byte, version, method, name string) {
		for _, v := range []string{version, method, name} {
			if strings.ContainsAny(v, "\r\n\x00") {
				return // not a valid header value
			}
		}
		req := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", bytes.NewReader(body))
		req.Header.Set("Authorization", authGood)
		req.Header.Set(headerProtocolVersion, version)
		req.Header.Set(headerMcpMethod, method)
		req.Header.Set(headerMcpName, name)
		rec := httptest.NewRecorder()
		env.e.ServeHTTP(rec, req)
		out := rec.Body.Bytes()
		switch ct := rec.Header().Get("Content-Type"); {
		case rec.Code == http.StatusAccepted:
			if len(out) != 0 {
				t.Fatalf("202 with body %q", out)
			}
		case ct == "application/json":
			if !json.Valid(out) {
				t.Fatalf("%d: invalid JSON %q", rec.Code, out)
			}
			if rec.Code != 200 && rec.Code != 400 && rec.Code != 404 && rec.Code != 413 {
				t.Fatalf("unexpected status %d: %s", rec.Code, out)
			}
		case ct == "text/event-stream" && rec.Code == 200:
			for _, ev := range strings.Split(strings.TrimSuffix(string(out), "\n\n"), "\n\n") {
				data, ok := strings.CutPrefix(ev, "event: message\ndata: ")
				if !ok || !json.Valid([]byte(data)) {
					t.Fatalf("malformed event %q", ev)
				}
			}
		default:
			t.Fatalf("status %d with Content-Type %q", rec.Code, ct)
		}
	})
}

// TestDecodeHeaderValue pins the Base64 sentinel and the plain-value rule.
func TestDecodeHeaderValue(t *testing.T) {
	for _, tc := range []struct{ in, value, err string }{
		{"get_assignment", "get_assignment", ""},
		{"a b~", "a b~", ""},
		{"=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", ""},
		{"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?=", ""},
		{"=?base64??=", "", ""},
		{"=?base64?!!?=", "", "is not valid Base64"},
		{"=?BASE64?eA==?=", "=?BASE64?eA==?=", ""}, // the markers are case-sensitive
		{"é", "", "contains characters outside visible ASCII; send it as =?base64?…?="},
		{"a\x7f", "", "contains characters outside visible ASCII; send it as =?base64?…?="},
	} {
		value, err := decodeHeaderValue(tc.in)
		if value != tc.value || err != tc.err {
			t.Errorf("decodeHeaderValue(%q) = %q, %q; want %q, %q", tc.in, value, err, tc.value, tc.err)
		}
	}
}

// BenchmarkToolsListPOST2026 measures tools/list at 2026-07-28 (the _meta
// and header checks included), beside BenchmarkToolsListPOST.
func BenchmarkToolsListPOST2026(b *testing.B) {
	env := newTestEnv(b, nil)
	body := []byte(modernReq("1", "tools/list", ""))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", bytes.NewReader(body))
		req.Header.Set("Authorization", authGood)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(headerProtocolVersion, versionModern)
		req.Header.Set(headerMcpMethod, "tools/list")
		rec := httptest.NewRecorder()
		env.e.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// TestMethodTableEntry: a method is one table entry, and a 2026-07-28
// handler sees the capabilities the request declared (what MCP Apps
// views are gated on); before that revision there are none to see.
func TestMethodTableEntry(t *testing.T) {
	echoCaps := func(_ *Server, _ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
		text, err := jsjson.Marshal(cl.clientCapabilities)
		if err != nil {
			t.Fatal(err)
		}
		return resultResponse(msg.Value("id"), eraResult(cl, []byte(`{"caps":`+string(text)+`}`)))
	}
	methods["test/caps"] = method{handshake: echoCaps, stateless: echoCaps}
	defer delete(methods, "test/caps")
	env := newTestEnv(t, nil)
	caps := `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	rec := env.do(http.MethodPost, "", modernHdr("test/caps"),
		strings.Replace(modernReq("1", "test/caps", ""), `clientCapabilities":{}`, `clientCapabilities":`+caps, 1))
	if want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","caps":` + caps + `,` + serverInfo + `}}`; rec.Code != 200 || rec.Body.String() != want {
		t.Errorf("2026-07-28: %d %s\nwant %s", rec.Code, rec.Body, want)
	}
	rec = env.do(http.MethodPost, "", hdr("Authorization", authGood, headerProtocolVersion, "2025-11-25"), `{"jsonrpc":"2.0","id":1,"method":"test/caps"}`)
	if want := `{"jsonrpc":"2.0","id":1,"result":{"caps":null}}`; rec.Body.String() != want {
		t.Errorf("2025-11-25: %s, want %s", rec.Body, want)
	}
}
