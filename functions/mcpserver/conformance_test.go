package mcpserver

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// conformanceDir holds the node project of the official conformance suite
// (@modelcontextprotocol/conformance) and the Node.js 22 it needs (the
// `node` npm package).
var conformanceDir = filepath.Join("testdata", "conformance")

// conformanceScenarios are the suite's server scenarios that apply to a
// tools-only server whose tools read a database: the others need the
// suite's own test tools, prompts, resources, logging, sampling or
// elicitation, none of which this server has.
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"}

// TestConformance runs the official MCP conformance suite's applicable
// server scenarios against the server. The suite cannot send a bearer
// token, so a reverse proxy in front of the server adds one; the server
// allows the proxy's own origin only, which the DNS-rebinding scenario
// checks (a foreign Origin must get 4xx, the local one 2xx).
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node; skipped with -short")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm is not on PATH: the conformance suite needs Node.js 20+ (scripts/install-deps installs it)")
	}
	node, err := filepath.Abs(filepath.Join(conformanceDir, "node_modules", ".bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(node); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		// Install scripts stay on: the node package's preinstall puts the
		// Node.js 22 binary in place.
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = conformanceDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci failed (is the npm registry reachable?): %v\n%s", err, out)
		}
	}

	// The proxy listens first, so the server can allow exactly its origin.
	front := httptest.NewUnstartedServer(nil)
	defer front.Close()
	frontURL := "http://" + front.Listener.Addr().String()
	env := newTestEnv(t, func(o *Options) { o.AllowedOrigins = []string{frontURL} })
	back, _ := liveServer(t, env)
	target, err := url.Parse(back.URL)
	if err != nil {
		t.Fatal(err)
	}
	front.Config.Handler = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host // the server sees the Host the suite sent
			pr.Out.Header.Set("Authorization", authGood)
		},
		FlushInterval: -1, // event streams pass through at once
	}
	front.Start()

	for _, scenario := range conformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
				"server", "--url", frontURL+"/functions/v1/mcp-server", "--scenario", scenario, "--output-dir", t.TempDir())
			cmd.Dir = conformanceDir
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Errorf("conformance %s: %v\n%s", scenario, err, out.String())
				return
			}
			t.Logf("conformance %s:\n%s", scenario, out.String())
		})
	}
	waitFor(t, "event streams to be released", func() bool { return env.srv.streams.open() == 0 })
}
