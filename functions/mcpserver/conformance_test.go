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
	"strings"
	"testing"
	"time"
)

// conformanceDir holds the node project of the official conformance suite
// (@modelcontextprotocol/conformance) and the Node.js 22 it needs (the
// `node` npm package).
var conformanceDir = filepath.Join("testdata", "conformance")

// conformanceRequirements are the revisions whose requirement sets the
// suite runs as a whole (--requirements: exactly the scenarios the revision
// requires, frozen at its release), as a client would test any server.
// Version 0.2.0-alpha.12 (package.json) is the newest with 2026-07-28's
// server scenarios.
var conformanceRequirements = []string{"2026-07-28", "2025-11-25"}

// conformanceExtensionScenarios are the scenarios of the extensions the
// server declares (the requirement sets cover the core protocol only): the
// Skills extension's (SEP-2640), which must run, not skip, except the
// directory scenario, whose resources/directory/read the server does not
// declare (each skill is its one SKILL.md).
var conformanceExtensionScenarios = []struct {
	name    string
	maySkip bool
}{{"sep-2640-skills-enumeration", false}, {"sep-2640-skills-manifest", false}, {"sep-2640-skills-directory", true}}

// conformanceBaseline lists the checks that cannot pass here, each with
// its reason (the suite fails a run on any other failure,
// and on an entry that passes).
var conformanceBaseline = filepath.Join(conformanceDir, "expected-failures.yml")

// TestConformance runs the official MCP conformance suite's server
// requirements of each revision, whole, against the server. The suite cannot send a bearer
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
	type run struct {
		name    string
		args    []string
		maySkip bool
	}
	var runs []run
	for _, rev := range conformanceRequirements {
		runs = append(runs, run{rev, []string{"--requirements", rev}, true})
	}
	for _, sc := range conformanceExtensionScenarios {
		runs = append(runs, run{sc.name, []string{"--scenario", sc.name}, sc.maySkip})
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			outDir := t.TempDir()
			if d := os.Getenv("CONFORMANCE_OUTPUT_DIR"); d != "" { // to read every check's result
				outDir = filepath.Join(d, r.name)
			}
			args := append([]string{filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
				"server", "--url", frontURL + "/functions/v1/mcp-server"}, r.args...)
			cmd := exec.CommandContext(ctx, node, append(args, "--expected-failures", baseline, "--output-dir", outDir)...)
			cmd.Dir = conformanceDir
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Errorf("conformance %s: %v\n%s", r.name, err, out.String())
				return
			}
			if !r.maySkip && strings.Contains(out.String(), "] SKIPPED ") {
				t.Errorf("conformance %s skipped checks: the extension is not visible to the suite\n%s", r.name, out.String())
			}
			t.Logf("conformance %s:\n%s", r.name, out.String())
		})
	}
	waitFor(t, "event streams to be released", func() bool { return env.srv.streams.open() == 0 })
}
