package answers

import (
	"encoding/json"
	"testing"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/writesext"
)

// TestEncodeOrder pins the one encoder's member order: at a handshake
// revision the result's members alone (also what MarshalJSON prints); at a
// stateless revision resultType first, the members, the caching hints when
// given, and the server's identity last. An interim input_required result
// has its own resultType and no caching hints.
func TestEncodeOrder(t *testing.T) {
	const info = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"pawtograder","version":"0.1.0"}}`
	list := List{"tools", nil}
	call := ToolCall{Text: "[]", Structured: []any{}, HasStructured: true}
	proposal := writesext.InputRequired{Proposal: &tools.Proposed{Message: "Post", URL: "https://gw.test/a", RequestState: "s"}}
	for _, tc := range []struct {
		name, rev string
		r         Result
		cache     *Cache
		want      string
	}{
		{"list, handshake", "2025-11-25", list, &Cache{1, ScopePublic}, `{"tools":[]}`},
		{"list, stateless", "2026-07-28", list, &Cache{1, ScopePublic}, `{"resultType":"complete","tools":[],"ttlMs":1,"cacheScope":"public",` + info + `}`},
		{"tool call, handshake", "2025-06-18", call, nil, `{"content":[{"type":"text","text":"[]"}],"structuredContent":[]}`},
		{"tool error, stateless", "2026-07-28", ToolCall{Text: "no", IsError: true}, nil,
			`{"resultType":"complete","content":[{"type":"text","text":"no"}],"isError":true,` + info + `}`},
		{"initialize", "2025-03-26", Initialize{Version: "2025-03-26"}, nil,
			`{"protocolVersion":"2025-03-26","serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{}}}`},
		{"input_required", "2026-07-28", proposal, nil,
			`{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"url","message":"Post. Nothing is written until you approve it on this page.","url":"https://gw.test/a"}}},"requestState":"s",` + info + `}`},
	} {
		got, err := Encode(tc.rev, tc.r, tc.cache)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s, %v\nwant %s", tc.name, got, err, tc.want)
		}
		if m, ok := tc.r.(json.Marshaler); ok {
			plain, err := m.MarshalJSON()
			want, _ := Encode("", tc.r, nil)
			if err != nil || string(plain) != string(want) {
				t.Errorf("%s: MarshalJSON %s, want the handshake form %s", tc.name, plain, want)
			}
		}
	}
}
