package mcpserver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// budgetCase is one request of the CPU budget (issue: every revision within
// 1.15× of the previous layout): the drop-in tools/list, and tools/list
// and get_assignment at 2025-11-25 and 2026-07-28, against the fake
// PostgREST of newTestEnv.
type budgetCase struct {
	name, version, method, tool, body string
}

func budgetCases() []budgetCase {
	const call = `,"params":{"name":"get_assignment","arguments":{"class_id":1,"assignment_id":2}`
	const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	return []budgetCase{
		{"dropin/tools-list", "", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{"2025-11-25/tools-list", "2025-11-25", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{"2025-11-25/get_assignment", "2025-11-25", "tools/call", "get_assignment", `{"jsonrpc":"2.0","id":1,"method":"tools/call"` + call + `}}`},
		{"2026-07-28/tools-list", "2026-07-28", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta[1:] + `}}`},
		{"2026-07-28/get_assignment", "2026-07-28", "tools/call", "get_assignment", `{"jsonrpc":"2.0","id":1,"method":"tools/call"` + call + meta + `}}`},
	}
}

// benchPOST sends body to h as an authenticated POST with the headers h
// gives, once per iteration, and fails on any answer but 200 with a result.
func benchPOST(b *testing.B, handler http.Handler, body string, h map[string]string) {
	raw := []byte(body)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", bytes.NewReader(raw))
		req.Header.Set("Authorization", authGood)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"result"`)) {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}

// BenchmarkBudget runs each budget request through the router.
func BenchmarkBudget(b *testing.B) {
	env := newTestEnv(b, nil)
	for _, c := range budgetCases() {
		b.Run(c.name, func(b *testing.B) {
			h := map[string]string{}
			if c.version != "" {
				h["MCP-Protocol-Version"] = c.version
			}
			if c.version == "2026-07-28" {
				h["Mcp-Method"] = c.method
				if c.tool != "" {
					h["Mcp-Name"] = c.tool
				}
			}
			benchPOST(b, env.e, c.body, h)
		})
	}
}
