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

// conformanceRuns are the suite's server scenarios that apply to a
// tools-only server whose tools read a database, per protocol revision:
// the others need the suite's own test tools, prompts, resources, logging,
// sampling or elicitation, none of which this server has. At 2026-07-28
// the suite speaks the stateless wire (server/discover, per-request _meta,
// Mcp-Method/Mcp-Name); version 0.2.0-alpha.12 (package.json) is the newest
// with that revision's server scenarios.
var conformanceRuns = []struct {
	specVersion string
	scenarios   []string
}{
	{"2025-11-25", []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection"}},
	{"2026-07-28", []string{"server-stateless", "tools-list", "caching", "http-header-validation", "dns-rebinding-protection"}},
}

// conformanceBaseline lists the checks of those scenarios that cannot pass
// here, each with its reason (the suite fails a run on any other failure,
// and on an entry that passes).
var conformanceBaseline = filepath.Join(conformanceDir, "expected-failures.yml")

// TestConformance runs the official MCP conformance suite's applicable
// server scenarios against the server. The suite cannot send a bearer
// token, so a reverse proxy in front of the server adds one. The
// DNS-rebinding scenario checks the default Origin policy: a foreign Origin
// must get 4xx, the local one 2xx.
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

	// The server runs on its default Origin policy, as `scripts/dev` and
	// any deployment without GATEWAY_ALLOWED_ORIGINS do (issue 15): the
	// suite's loopback origin reaches it over loopback and is allowed, its
	// foreign origin is refused.
	front := httptest.NewUnstartedServer(nil)
	defer front.Close()
	frontURL := "http://" + front.Listener.Addr().String()
	env := newTestEnv(t, nil)
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

	baseline, err := filepath.Abs(conformanceBaseline)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range conformanceRuns {
		for _, scenario := range run.scenarios {
			t.Run(run.specVersion+"/"+scenario, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, node, filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
					"server", "--url", frontURL+"/functions/v1/mcp-server", "--scenario", scenario,
					"--spec-version", run.specVersion, "--expected-failures", baseline, "--output-dir", t.TempDir())
				cmd.Dir = conformanceDir
				cmd.Env = append(os.Environ(), "NO_COLOR=1")
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					t.Errorf("conformance %s at %s: %v\n%s", scenario, run.specVersion, err, out.String())
					return
				}
				t.Logf("conformance %s at %s:\n%s", scenario, run.specVersion, out.String())
			})
		}
	}
	waitFor(t, "event streams to be released", func() bool { return env.srv.streams.open() == 0 })
}
