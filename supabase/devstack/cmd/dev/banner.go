package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/clientconfig"
)

// inspectorVersion is the MCP Inspector the printed command runs: the one
// gateway client-config prints, which gateway/cmd/gateway's tests drive.
const inspectorVersion = clientconfig.InspectorVersion

// minInspectorNode is the oldest Node.js major version the pinned
// Inspector's CLI runs on: on 18 (Debian 12's own nodejs) it stops with
// "CustomEvent is not defined", a global Node.js added in 19.
const minInspectorNode = 20

// sessionTTL is the lifetime of the printed session token: a working day,
// where Supabase's own access tokens last an hour and are refreshed by the
// web app, which a pasted token cannot be.
const sessionTTL = 24 * time.Hour

// bannerInfo is what the start-up banner shows.
type bannerInfo struct {
	gatewayURL, stackURL, restURL, authURL string
	envFile                                string
	demo                                   demoUser
	token, session                         string
	// inspector is the Inspector step: the command, or a comment saying
	// why it cannot run here.
	inspector    string
	clientConfig string
}

// banner renders what scripts/dev prints once everything is up. The
// commands under "Try it" are meant to be pasted in order into one shell;
// TestPrintedCommandsWork runs each as printed.
func banner(b bannerInfo) string {
	endpoint := b.gatewayURL + "/functions/v1/mcp-server"
	tokens := b.gatewayURL + "/functions/v1/mcp-tokens"
	call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":%s,"class_id":%s}}}`,
		b.demo.assignmentID, b.demo.classID)
	var s strings.Builder
	fmt.Fprintf(&s, `
Gateway:       %s  (health: %s/healthz)
MCP endpoint:  %s
mcp-tokens:    %s
Supabase:      %s  (REST %s, Auth %s)
Settings:      %s
mcp_ token of %s (class %s), $DEMO_TOKEN:
  %s
Session token of %s (a Supabase access token, valid %s), $SESSION_TOKEN:
  %s

Try it: paste these lines, in this order, into one shell.
  # 1. Load the URLs and tokens above into the shell:
  set -a; . %s; set +a
  # 2. Call a tool with the mcp_ token:
  curl -sS --fail-with-body %s -H "Authorization: Bearer $DEMO_TOKEN" -H 'Content-Type: application/json' -d '%s'
  # 3. List the instructor's mcp_ tokens with the session token, as the web app does:
  curl -sS --fail-with-body %s -H "Authorization: Bearer $SESSION_TOKEN"
%s
Connect an OAuth client (the MCP Inspector's UI, Claude Code, mcp-remote,
any client that only takes a URL): paste
  %s
A browser opens the local stand-in sign-in page: choose
alice.instructor@example.edu (an instructor; sam.student@example.edu shows
the refusal students get), then Approve. The grant appears in mcp-tokens'
list as "<client> — connected with OAuth".

%s
Press Ctrl-C to stop everything.
`, b.gatewayURL, b.gatewayURL, endpoint, tokens, b.stackURL, b.restURL, b.authURL, b.envFile,
		b.demo.email, b.demo.classID, b.token, b.demo.email, ttlText(sessionTTL), b.session,
		shellQuote(b.envFile), endpoint, call, tokens, b.inspector, endpoint, b.clientConfig)
	return s.String()
}

func ttlText(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%d h", d/time.Hour)
	}
	return d.String()
}

// nodeMajor reports the major version of the node on PATH, or why the
// Inspector cannot be started with npx.
func nodeMajor() (int, error) {
	if _, err := exec.LookPath("npx"); err != nil {
		return 0, fmt.Errorf("npx is not on PATH (scripts/install-deps installs Node.js and npm)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("node --version failed: %v", err)
	}
	return parseNodeMajor(string(out))
}

// parseNodeMajor reads the major version from `node --version` ("v20.20.2").
func parseNodeMajor(v string) (int, error) {
	v = strings.TrimSpace(v)
	major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	n, err := strconv.Atoi(major)
	if err != nil || !strings.HasPrefix(v, "v") {
		return 0, fmt.Errorf("node --version printed %q, not a version", v)
	}
	return n, nil
}

// inspectorCommand is step 4 of the banner: the pinned Inspector CLI
// listing the tools, or, when it cannot run here, a comment saying why.
// npx's --loglevel=error (before the package: after it, the option would
// go to the Inspector) keeps npm's warnings out of the answer: the pinned
// Inspector and its dependencies declare engines newer than the Node.js 20
// it runs on, and npm warns EBADENGINE for each while installing.
func inspectorCommand(endpoint string, major int, err error) string {
	const step = "  # 4. List the tools with the MCP Inspector CLI " + inspectorVersion + ":\n"
	switch {
	case err != nil:
		return step + "  #    not available here: " + err.Error() + "\n"
	case major < minInspectorNode:
		return fmt.Sprintf("%s  #    not available here: it needs Node.js %d or later and node is %d (on 18 it fails: CustomEvent is not defined)\n",
			step, minInspectorNode, major)
	}
	return fmt.Sprintf("%s  npx -y --loglevel=error @modelcontextprotocol/inspector@%s --cli %s --transport http --header \"Authorization: Bearer $DEMO_TOKEN\" --method tools/list\n",
		step, inspectorVersion, endpoint)
}

// withoutInspector drops the MCP Inspector section from client-config's
// text: its npx line names no version, and the banner prints a pinned one.
func withoutInspector(cfg string) string {
	sections := strings.Split(cfg, "\n\n")
	kept := sections[:0]
	for _, s := range sections {
		if !strings.HasPrefix(s, "# MCP Inspector") {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, "\n\n")
}
