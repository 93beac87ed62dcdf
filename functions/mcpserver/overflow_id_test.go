package mcpserver

import (
	"testing"
)

// TestOverflowingIDs: an id that is a number too large for a double (1e999,
// which JavaScript reads as Infinity and prints as null) is echoed exactly
// as sent, in results and errors, single or batched, JSON or SSE, so the
// client can match the answer to its request (issue 15 item 4). Finite
// numbers are still re-printed the way JavaScript prints them.
func TestOverflowingIDs(t *testing.T) {
	ok := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }
	cases := []httpCase{
		{name: "1e999", body: `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, wantBody: ok("1e999")},
		{name: "-1e999", body: `{"jsonrpc":"2.0","id":-1e999,"method":"ping"}`, wantBody: ok("-1e999")},
		{name: "upper-case exponent and fraction", body: `{"id":1.50E+400,"method":"ping"}`, wantBody: ok("1.50E+400")},
		{name: "long integer beyond a double", body: `{"id":` + longInt + `,"method":"ping"}`, wantBody: ok(longInt)},
		{name: "white space around the id", body: "{\"id\" : \t1e999 ,\"method\":\"ping\"}", wantBody: ok("1e999")},
		{name: "error answer", body: `{"id":1e999,"method":"nope"}`, wantBody: `{"jsonrpc":"2.0","id":1e999,"error":{"code":-32601,"message":"Method not found: nope"}}`},
		{name: "tool error answer", body: `{"id":1e999,"method":"tools/call","params":{"name":"nope"}}`, wantBody: `{"jsonrpc":"2.0","id":1e999,"error":{"code":-32000,"message":"Unknown tool: nope"}}`},
		{name: "duplicate id, overflow last", body: `{"id":2,"method":"ping","id":1e999}`, wantBody: ok("1e999")},
		{name: "duplicate id, overflow first", body: `{"id":1e999,"method":"ping","id":2}`, wantBody: ok("2")},
		{name: "underflow prints as JavaScript does", body: `{"id":1e-999,"method":"ping"}`, wantBody: ok("0")},
		{name: "finite exponent re-printed", body: `{"id":1e3,"method":"ping"}`, wantBody: ok("1000")},
		{name: "overflow inside an object id", body: `{"id":{"n":1e999},"method":"ping"}`, wantBody: ok(`{"n":null}`)},
		{name: "batch", body: `[{"id":1e999,"method":"ping"},{"id":-1e999,"method":"nope"}]`,
			wantBody: `[` + ok("1e999") + `,{"jsonrpc":"2.0","id":-1e999,"error":{"code":-32601,"message":"Method not found: nope"}}]`},
		{name: "batch over SSE", header: hdr("Accept", "text/event-stream"), body: `[{"id":1e999,"method":"ping"}]`,
			wantBody: "id: 1\nevent: message\ndata: " + ok("1e999") + "\n\n", wantHeader: map[string]string{"Content-Type": "text/event-stream"}},
	}
	for i := range cases {
		tc := &cases[i]
		if tc.header == nil {
			tc.header = hdr("Authorization", authGood)
		} else {
			tc.header["Authorization"] = authGood
		}
		tc.wantStatus = 200
		if tc.wantHeader == nil {
			tc.wantHeader = jsonHeader
		}
		tc.wantAuthCalls, tc.wantTouches = 1, 1
	}
	runCases(t, cases, func(o *Options) { o.PinProtocol2024 = true })
}

// longInt has 400 digits: a valid JSON number that overflows a double.
var longInt = "1" + zeros(399)

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}
