package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
)

// exchange is one HTTP round trip the Go SDK client made, as the test
// records it.
type exchange struct {
	HTTPMethod, RPCMethod, Version string
	Status                         int
}

// recordingTransport adds the bearer header (the SDK has no option for a
// static one) and records each round trip.
type recordingTransport struct {
	base   http.RoundTripper
	bearer string

	mu   sync.Mutex
	seen []exchange
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", rt.bearer)
	ex := exchange{HTTPMethod: r.Method, Version: r.Header.Get(headerProtocolVersion)}
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct{ Method string }
		if json.Unmarshal(body, &msg) == nil {
			ex.RPCMethod = msg.Method
		}
	}
	resp, err := rt.base.RoundTrip(r)
	if resp != nil {
		ex.Status = resp.StatusCode
	}
	rt.mu.Lock()
	rt.seen = append(rt.seen, ex)
	rt.mu.Unlock()
	return resp, err
}

func (rt *recordingTransport) exchanges() []exchange {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]exchange(nil), rt.seen...)
}

// TestGoSDKClient drives the server with the official Go SDK's streamable
// client (github.com/modelcontextprotocol/go-sdk v1.8), which first sends
// 2026-07-28's server/discover. Negotiated, the server answers it, so the
// client stays at 2026-07-28 with no initialize, sends every request with
// that revision's _meta and headers, and gets the tools' values as
// structuredContent. Pinned (the original), discover is an unknown method,
// the client falls back to initialize and runs at 2024-11-05 without
// structured results.
func TestGoSDKClient(t *testing.T) {
	for _, mode := range []struct {
		name        string
		pin         bool
		wantVersion string
	}{
		{"negotiated", false, "2026-07-28"},
		{"pinned", true, "2024-11-05"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = mode.pin })
			ts, hc := liveServer(t, env)
			rt := &recordingTransport{base: hc.Transport, bearer: authGood}

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-e2e", Version: "1.0.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint:   ts.URL + "/functions/v1/mcp-server",
				HTTPClient: &http.Client{Transport: rt},
				MaxRetries: -1,
			}, nil)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != mode.wantVersion {
				t.Errorf("negotiated %q, want %q", got, mode.wantVersion)
			}
			structured := !mode.pin

			listed, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			// The original's 16 at 2024-11-05; the whole catalogue negotiated.
			wantTools := 16
			if structured {
				wantTools = len(tools.Names())
			}
			if len(listed.Tools) != wantTools {
				t.Errorf("listed %d tools, want %d", len(listed.Tools), wantTools)
			}
			for _, tool := range listed.Tools {
				if (tool.OutputSchema != nil) != structured {
					t.Errorf("%s: outputSchema present = %v, want %v", tool.Name, tool.OutputSchema != nil, structured)
				}
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_assignment", Arguments: map[string]any{"assignment_id": 1, "class_id": 1}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			got := map[string]any{"text": textOf(res), "structuredContent": res.StructuredContent, "isError": res.IsError}
			// At 2026-07-28 structuredContent is the value itself, here null.
			want := map[string]any{"text": "null", "structuredContent": nil, "isError": false}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("get_assignment (-want +got):\n%s", diff)
			}

			// A missing argument: a tool execution error the model can read at
			// 2025-11-25, the original's -32602 before.
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_assignment", Arguments: map[string]any{"assignment_id": 1}})
			const missing = "Invalid params: missing required argument 'class_id' for tool get_assignment"
			if structured {
				if err != nil || !res.IsError || textOf(res) != missing {
					t.Errorf("missing argument: %v %+v, want an isError result %q", err, res, missing)
				}
			} else if err == nil || !strings.Contains(err.Error(), missing) {
				t.Errorf("missing argument: %v, want a JSON-RPC error %q", err, missing)
			}

			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
			if err == nil || !strings.Contains(err.Error(), "Unknown tool: no_such_tool") {
				t.Errorf("unknown tool: %v", err)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}

			// The start: negotiated, server/discover is answered and the
			// client goes straight on at 2026-07-28; pinned, it is the
			// original's -32601 (HTTP 200) and initialize follows.
			ex := rt.exchanges()
			if len(ex) < 3 {
				t.Fatalf("exchanges: %+v", ex)
			}
			wantStart := []exchange{
				{"POST", "server/discover", "2026-07-28", http.StatusOK},
				{"POST", "tools/list", "2026-07-28", http.StatusOK},
			}
			if mode.pin {
				wantStart[1] = exchange{"POST", "initialize", "", http.StatusOK}
			}
			if diff := cmp.Diff(wantStart, ex[:2]); diff != "" {
				t.Errorf("start (-want +got):\n%s", diff)
			}
			rest := ex[2:] // after the handshake
			if !mode.pin {
				rest = ex[1:] // every request after discover
			}
			for _, e := range rest {
				if e.Version != mode.wantVersion {
					t.Errorf("%s %s sent MCP-Protocol-Version %q, want %q", e.HTTPMethod, e.RPCMethod, e.Version, mode.wantVersion)
				}
			}
			waitFor(t, "the SDK's event stream to be released", func() bool { return env.srv.streams.open() == 0 })
		})
	}
}

// textOf returns the text of a result's only content block.
func textOf(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) != 1 {
		return ""
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return ""
	}
	return tc.Text
}
