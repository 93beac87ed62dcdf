package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// dbKey carries the caller's database client from gosdkHandler's
// authentication to the tool handlers.
type dbKey struct{}

// gosdkHandler serves env's catalogue through the Go SDK's stateless
// streamable HTTP handler (github.com/modelcontextprotocol/go-sdk v1.8.0),
// behind the same fake authentication and per-user client as the
// gateway's path: each tool is registered with its 2025-11-25 entry and a
// handler that runs the registry's Call and returns the text and
// structuredContent the gateway returns.
func gosdkHandler(tb testing.TB, env *testEnv) http.Handler {
	tb.Helper()
	reg := tools.New(tools.Options{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "pawtograder", Version: "0.1.0"}, nil)
	for _, t := range reg.Tools() {
		in, err := jsjson.Marshal(t.InputSchema)
		if err != nil {
			tb.Fatal(err)
		}
		tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.NegotiatedDescription(), InputSchema: json.RawMessage(in)}
		if t.OutputSchema != nil {
			out, err := jsjson.Marshal(t.OutputSchema)
			if err != nil {
				tb.Fatal(err)
			}
			tool.OutputSchema = json.RawMessage(out)
		}
		srv.AddTool(tool, gosdkToolHandler(reg, t.Name))
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := env.auth.Authenticate(r.Context(), r.Header.Get("Authorization"))
		if err != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		db, err := env.srv.users.ForUser(r.Context(), p.UserID)
		if err != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		ctx := context.WithValue(r.Context(), dbKey{}, db)
		ctx = context.WithValue(ctx, principalKey{}, p.Scopes)
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

type principalKey struct{}

// gosdkToolHandler runs the tool called name as the gateway does at
// 2025-11-25: the value as indented text and {"result": value} as
// structuredContent.
func gosdkToolHandler(reg *tools.Registry, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args *jsjson.Object
		if raw := req.Params.Arguments; len(raw) > 0 {
			v, err := jsjson.Decode(raw)
			if err != nil {
				return nil, err
			}
			args, _ = v.(*jsjson.Object)
		}
		db, _ := ctx.Value(dbKey{}).(*userclient.Client)
		scopes, _ := ctx.Value(principalKey{}).([]string)
		v, err := reg.Call(tools.WithNegotiated(ctx), db, scopes, name, args)
		if err != nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, IsError: true}, nil
		}
		text, err := jsjson.MarshalIndent(v)
		if err != nil {
			return nil, err
		}
		structured, err := jsjson.Marshal(tools.StructuredResult(v))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(structured)}, nil
	}
}

// BenchmarkProtocolPaths compares, on the same catalogue and fake
// PostgREST, the drop-in path, the gateway's negotiated path and the Go
// SDK's stateless handler: tools/list and get_assignment at 2025-11-25
// (the newest revision both speak the same way). docs/performance.md
// gives the command and the figures.
func BenchmarkProtocolPaths(b *testing.B) {
	env := newTestEnv(b, nil)
	sdk := gosdkHandler(b, env)
	const (
		list = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
		call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"class_id":1,"assignment_id":2}}}`
	)
	for _, c := range []struct {
		name, version, body string
		h                   http.Handler
	}{
		{"tools-list/dropin", "", list, env.e},
		{"tools-list/gateway", "2025-11-25", list, env.e},
		{"tools-list/gosdk", "2025-11-25", list, sdk},
		{"get_assignment/dropin", "", call, env.e},
		{"get_assignment/gateway", "2025-11-25", call, env.e},
		{"get_assignment/gosdk", "2025-11-25", call, sdk},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := map[string]string{}
			if c.version != "" {
				h["MCP-Protocol-Version"] = c.version
			}
			benchPOST(b, c.h, c.body, h)
		})
	}
}
