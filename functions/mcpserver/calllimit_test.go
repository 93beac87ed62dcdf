package mcpserver

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/calllimit"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
)

// recordedCalls is a toolcall.Hook that keeps what Done is told.
type recordedCalls struct {
	mu     sync.Mutex
	events []string
}

func (r *recordedCalls) Admit(*mcpauth.Principal) *toolcall.Refusal { return nil }
func (r *recordedCalls) Done(e *toolcall.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e.Principal.TokenID+" "+e.Tool+" "+e.ClassID+" "+e.Outcome+" "+string(e.Result))
}

// TestCallLimit: a connection past its limit is refused before the tool
// runs, with the drop-in path's JSON-RPC error or a negotiated revision's
// tool error, each saying when to try again and with Retry-After; the same
// person's other connection still works; the hooks hear every call.
func TestCallLimit(t *testing.T) {
	fixed := time.Unix(1_800_000_000, 0)
	lim, err := calllimit.New(calllimit.Options{PerMinute: 2, Now: func() time.Time { return fixed }})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordedCalls{}
	fm := &fakeMetrics{}
	env := newTestEnv(t, func(o *Options) { o.Calls = toolcall.Hooks{lim, rec}; o.Metrics = fm })
	const call = `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"search_help_requests","arguments":{"class_id":5}}}`
	msg := "Too many tool calls from this connection: at most 2 a minute. Nothing was run. Try again in 30 seconds; if an assistant is repeating a call in a loop, stop it first."
	tests := []struct {
		name, auth, version, id string
		body, retryAfter        string
	}{
		{"first", authGood, "", "1", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[]"}]}}`, ""},
		{"second", authGood, "", "2", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"[]"}]}}`, ""},
		{"drop-in refused", authGood, "", "3", `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"` + msg + `"}}`, "30"},
		{"negotiated refused", authGood, "2025-11-25", "4", `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"` + msg + `"}],"isError":true}}`, "30"},
		{"other connection", authOther, "", "5", `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"[]"}]}}`, ""},
	}
	for _, tt := range tests {
		h := hdr("Authorization", tt.auth)
		if tt.version != "" {
			h[headerProtocolVersion] = tt.version
		}
		got := env.do(http.MethodPost, "", h, fmtCall(call, tt.id))
		if got.Code != http.StatusOK || got.Body.String() != tt.body || got.Header().Get("Retry-After") != tt.retryAfter {
			t.Errorf("%s: %d %s Retry-After %q\nwant 200 %s Retry-After %q", tt.name, got.Code, got.Body, got.Header().Get("Retry-After"), tt.body, tt.retryAfter)
		}
	}
	want := []string{
		"token-a search_help_requests 5 ok []", "token-a search_help_requests 5 ok []",
		"token-a search_help_requests 5 rate_limited ", "token-a search_help_requests 5 rate_limited ",
		"token-b search_help_requests 5 ok []",
	}
	if diff := cmp.Diff(want, rec.events); diff != "" {
		t.Errorf("Done events (-want +got):\n%s", diff)
	}
	if got := fm.get(); len(got) != 10 || got[5] != "tool search_help_requests rate_limited" {
		t.Errorf("metrics: %q", got)
	}
}

func fmtCall(format, id string) string {
	out := []byte{}
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) && format[i+1] == 's' {
			out = append(out, id...)
			i++
			continue
		}
		out = append(out, format[i])
	}
	return string(out)
}

// TestCallLimitModern: at 2026-07-28 a refused call is the tool error of
// that revision, with Retry-After.
func TestCallLimitModern(t *testing.T) {
	fixed := time.Unix(1_800_000_000, 0)
	lim, err := calllimit.New(calllimit.Options{PerMinute: 1, Now: func() time.Time { return fixed }})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, func(o *Options) { o.Calls = lim })
	body := modernReq("9", "tools/call", `,"name":"search_help_requests","arguments":{"class_id":5}`)
	h := modernHdr("tools/call", "Mcp-Name", "search_help_requests")
	if r := env.do(http.MethodPost, "", h, body); r.Code != http.StatusOK || strings.Contains(r.Body.String(), "isError") {
		t.Fatalf("first call: %d %s", r.Code, r.Body)
	}
	r := env.do(http.MethodPost, "", h, body)
	msg := "Too many tool calls from this connection: at most 1 a minute. Nothing was run. Try again in 60 seconds; if an assistant is repeating a call in a loop, stop it first."
	want := `{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","content":[{"type":"text","text":"` + msg + `"}],"isError":true,` + serverInfo + `}}`
	if r.Code != http.StatusOK || r.Body.String() != want || r.Header().Get("Retry-After") != "60" {
		t.Errorf("refused: %d %s Retry-After %q\nwant %s", r.Code, r.Body, r.Header().Get("Retry-After"), want)
	}
}
