package mcpserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
)

// prototypeNames are the members of JavaScript's Object.prototype. The
// original looked tool names up in a plain object, so these names were
// "found" and failed with "Missing required scope: undefined"
// (docs/contract/tools.md §0.1).
var prototypeNames = []string{
	"constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf",
	"propertyIsEnumerable", "toLocaleString", "__proto__",
	"__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
}

// TestPrototypeToolNames pins the answer to tools/call for every
// Object.prototype member name at every revision, for a caller with
// mcp:read and one without any scope: the unknown-tool answer of that
// revision, never the original's "Missing required scope: undefined".
func TestPrototypeToolNames(t *testing.T) {
	legacy := func(id, name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"Unknown tool: ` + name + `"}}`
	}
	invalid := func(id, name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"Unknown tool: ` + name + `"}}`
	}
	for _, tc := range []struct {
		name   string
		pin    bool
		header string // MCP-Protocol-Version; "" for none
		status int
		want   func(id, name string) string
	}{
		{"drop-in (pinned)", true, "", http.StatusOK, legacy},
		{"drop-in (no header)", false, "", http.StatusOK, legacy},
		{"2024-11-05", false, "2024-11-05", http.StatusOK, legacy},
		{"2025-03-26", false, "2025-03-26", http.StatusOK, legacy},
		{"2025-06-18", false, "2025-06-18", http.StatusOK, legacy},
		{"2025-11-25", false, "2025-11-25", http.StatusOK, invalid},
		{"2026-07-28", false, "2026-07-28", http.StatusBadRequest, invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = tc.pin })
			for _, auth := range []string{authGood, authNoScope} {
				for _, name := range prototypeNames {
					var h map[string]string
					var body string
					if tc.header == versionModern {
						h = modernHdr("tools/call", "Authorization", auth, "Mcp-Name", name)
						body = modernReq("7", "tools/call", `,"name":"`+name+`","arguments":{}`)
					} else {
						h = hdr("Authorization", auth)
						if tc.header != "" {
							h[headerProtocolVersion] = tc.header
						}
						body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
					}
					rec := env.do(http.MethodPost, "", h, body)
					if rec.Code != tc.status {
						t.Errorf("%s, %s: status %d, want %d", auth, name, rec.Code, tc.status)
					}
					if diff := cmp.Diff(tc.want("7", name), rec.Body.String()); diff != "" {
						t.Errorf("%s, %s (-want +got):\n%s", auth, name, diff)
					}
				}
			}
		})
	}
}

// TestNegotiatedToolsHiddenFromOldRevisions: a tool the original lacks is
// listed only from 2025-06-18, and calling it on the drop-in path or at an
// older revision is calling an unknown tool, byte for byte the original's
// answer; from 2025-06-18 it is found.
func TestNegotiatedToolsHiddenFromOldRevisions(t *testing.T) {
	var names []string
	for _, tl := range tools.New(tools.Options{}).Tools() {
		if tl.NegotiatedOnly {
			names = append(names, tl.Name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no negotiated-only tools in the catalogue")
	}
	for _, tc := range []struct {
		name   string
		pin    bool
		header string
		hidden bool
	}{
		{"drop-in (pinned)", true, "", true},
		{"drop-in (no header)", false, "", true},
		{"2024-11-05", false, "2024-11-05", true},
		{"2025-03-26", false, "2025-03-26", true},
		{"2025-06-18", false, "2025-06-18", false},
		{"2025-11-25", false, "2025-11-25", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = tc.pin })
			for _, name := range names {
				h := hdr("Authorization", authGood)
				if tc.header != "" {
					h[headerProtocolVersion] = tc.header
				}
				rec := env.do(http.MethodPost, "", h, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+name+`","arguments":{}}}`)
				unknown := `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"Unknown tool: ` + name + `"}}`
				if tc.hidden && (rec.Code != http.StatusOK || rec.Body.String() != unknown) {
					t.Errorf("%s: %d %s, want 200 %s", name, rec.Code, rec.Body, unknown)
				}
				if !tc.hidden && strings.Contains(rec.Body.String(), "Unknown tool") {
					t.Errorf("%s: %d %s, want the tool found", name, rec.Code, rec.Body)
				}
			}
		})
	}
}
