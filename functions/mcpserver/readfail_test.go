package mcpserver

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// TestReadFailedIsAToolError: a staff tool that could not read what its
// answer needs is answered as a tool execution error with the tool's
// fixed message, and the audit line's outcome says read_failed.
func TestReadFailedIsAToolError(t *testing.T) {
	audit := &lockedBuffer{}
	env := newTestEnv(t, func(o *Options) { o.Audit = slog.New(slog.NewJSONHandler(audit, nil)) })
	env.srv.callTool = func(context.Context, *userclient.Client, []string, string, *jsjson.Object) (any, error) {
		return nil, &tools.ReadFailedError{What: "the help requests"}
	}
	rec := env.do(http.MethodPost, "", hdr("Authorization", authGood, headerProtocolVersion, "2025-11-25"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_help_queue_overview","arguments":{"class_id":1}}}`)
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Pawtograder could not read the help requests just now, so no answer is given: nothing was inferred from what could be read. Try again in a moment."}],"isError":true}}`
	if got := strings.TrimSpace(rec.Body.String()); rec.Code != http.StatusOK || got != want {
		t.Errorf("got %d %s\nwant 200 %s", rec.Code, got, want)
	}
	if !strings.Contains(audit.String(), `"outcome":"read_failed"`) {
		t.Errorf("no read_failed outcome in the audit line:\n%s", audit.String())
	}
}
