package mcpserver

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// sdkClientDir holds the node project of the official TypeScript SDK client.
var sdkClientDir = filepath.Join("testdata", "sdkclient")

// TestSDKClient drives the server with @modelcontextprotocol/sdk's
// StreamableHTTPClientTransport: connect (initialize, initialized, GET
// stream), list tools, ping, call tools, and connect with a refused token.
// What the client saw is pinned in testdata/sdkclient.<mode>.golden.json,
// with the protocol revision pinned to 2024-11-05 and negotiated. Negotiated
// (2025-11-25), tools/list carries outputSchemas, so the SDK validates every
// call's structuredContent against them (callTool throws on a mismatch), and
// a missing argument comes back as an isError result.
//
// Tools read a fake PostgREST that returns no rows, so a call succeeds with
// the tool's not-found value; the database-backed path is covered by the
// gateway's full-stack tests.
func TestSDKClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node; skipped with -short")
	}
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Fatal("node and npm are not on PATH: the SDK end-to-end test needs Node.js 20+ (scripts/install-deps installs it)")
	}
	if _, err := os.Stat(filepath.Join(sdkClientDir, "node_modules")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts")
		cmd.Dir = sdkClientDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}

	for _, mode := range []struct {
		name, wantHeader string
		pin              bool
	}{
		{"pinned", "2024-11-05", true},      // the original's fixed answer
		{"negotiated", "2025-11-25", false}, // the SDK's newest revision is echoed
	} {
		t.Run(mode.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) {
				o.EdgeFunctionsURL = "https://abc.supabase.co"
				o.PinProtocol2024 = mode.pin
			})
			var mu sync.Mutex
			seen := map[string]bool{} // MCP-Protocol-Version values the client sent
			env.e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
				return func(c echo.Context) error {
					mu.Lock()
					seen[c.Request().Header.Get("MCP-Protocol-Version")] = true
					mu.Unlock()
					return next(c)
				}
			})
			ts, _ := liveServer(t, env)

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "client.mjs", ts.URL+"/functions/v1/mcp-server", "mcp_good")
			cmd.Dir = sdkClientDir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("node client.mjs: %v\nstderr:\n%s", err, stderr.String())
			}
			golden(t, "sdkclient."+mode.name+".golden.json", stdout.Bytes())

			// The client opened the GET stream after notifications/initialized
			// and closed it on exit; nothing may stay open.
			waitFor(t, "the SDK's event stream to be released", func() bool { return env.srv.streams.open() == 0 })
			mu.Lock()
			if !seen[mode.wantHeader] {
				t.Errorf("the client never sent MCP-Protocol-Version: %s (saw %v)", mode.wantHeader, seen)
			}
			mu.Unlock()
			if got := env.auth.touches.Load(); got < 5 {
				t.Errorf("TouchLastUsed called %d times, want one per authenticated request (≥ 5)", got)
			}
		})
	}
}
