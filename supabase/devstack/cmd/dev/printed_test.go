package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/clientconfig"
)

// tryCommands returns the command lines of the banner's "Try it" section,
// in order, as a user would paste them (comment lines left out).
func tryCommands(banner string) []string {
	_, rest, ok := strings.Cut(banner, "\nTry it:")
	if !ok {
		return nil
	}
	var cmds []string
	for _, line := range strings.Split(rest, "\n")[1:] {
		if line == "" {
			break
		}
		if cmd := strings.TrimPrefix(line, "  "); !strings.HasPrefix(cmd, "#") {
			cmds = append(cmds, cmd)
		}
	}
	return cmds
}

// catalogue is the seeded gateway's tools/list at the revision the
// Inspector negotiates (2025-11-25), in order: the registry's read tools
// (the original's sixteen, then the tools listed only on negotiated
// revisions; the dev gateway's write tools are off).
func catalogue() []string {
	var names []string
	for _, t := range tools.New(tools.Options{}).Tools() {
		names = append(names, t.Name)
	}
	return names
}

// TestPrintedCommandsWork starts the dev environment, takes the commands it
// prints under "Try it" and runs each with bash from the repository root in
// a fresh shell into which the lines before it were pasted: the env line
// alone, then each command after it. Each must exit 0 with the expected
// answer (the curls use --fail-with-body, so an HTTP error fails them).
func TestPrintedCommandsWork(t *testing.T) {
	dev := seededDev(t)
	cmds := tryCommands(dev.banner)
	wantPrefixes := []string{
		"set -a; . ",
		"curl -sS --fail-with-body http://127.0.0.1:",
		"curl -sS --fail-with-body http://127.0.0.1:",
		"npx -y --loglevel=error @modelcontextprotocol/inspector@" + inspectorVersion + " --cli http://127.0.0.1:",
	}
	if len(cmds) != len(wantPrefixes) {
		t.Fatalf("Try it commands:\n%s\nwant %d; banner:\n%s", strings.Join(cmds, "\n"), len(wantPrefixes), dev.banner)
	}
	for i, p := range wantPrefixes {
		if !strings.HasPrefix(cmds[i], p) {
			t.Fatalf("command %d = %q, want it to start with %q", i+1, cmds[i], p)
		}
	}
	envLine := cmds[0]

	t.Run("env line", func(t *testing.T) {
		out := bash(t, envLine+"\nprintf '%s %s\\n' \"${DEMO_TOKEN:0:4}\" \"${SESSION_TOKEN:0:3}\"", time.Minute)
		if got := string(out); got != "mcp_ eyJ\n" {
			t.Errorf("after the env line, the token prefixes are %q, want %q", got, "mcp_ eyJ\n")
		}
	})
	t.Run("mcp-server curl", func(t *testing.T) {
		if !strings.Contains(cmds[1], "/functions/v1/mcp-server ") {
			t.Errorf("command %q does not call mcp-server", cmds[1])
		}
		var resp struct {
			JSONRPC string
			ID      int
			Result  struct{ Content []struct{ Type, Text string } }
		}
		out := bash(t, envLine+"\n"+cmds[1], time.Minute)
		if err := json.Unmarshal(out, &resp); err != nil || len(resp.Result.Content) != 1 {
			t.Fatalf("answer %s: %v, want a tool result with one content item", out, err)
		}
		var got struct {
			ID      int    `json:"id"`
			Title   string `json:"title"`
			ClassID int    `json:"class_id"`
		}
		if err := json.Unmarshal([]byte(resp.Result.Content[0].Text), &got); err != nil {
			t.Fatalf("content text %q: %v", resp.Result.Content[0].Text, err)
		}
		want := struct {
			ID      int    `json:"id"`
			Title   string `json:"title"`
			ClassID int    `json:"class_id"`
		}{1, "Hello World", 1}
		if diff := cmp.Diff(want, got); diff != "" || resp.JSONRPC != "2.0" || resp.ID != 1 {
			t.Errorf("get_assignment (-want +got):\n%s\nanswer: %s", diff, out)
		}
	})
	t.Run("mcp-tokens curl", func(t *testing.T) {
		if !strings.HasSuffix(cmds[2], `/functions/v1/mcp-tokens -H "Authorization: Bearer $SESSION_TOKEN"`) {
			t.Errorf("command %q does not list tokens with the session token", cmds[2])
		}
		type token struct {
			Name      string   `json:"name"`
			Scopes    []string `json:"scopes"`
			RevokedAt *string  `json:"revoked_at"`
		}
		var resp struct{ Tokens []token }
		out := bash(t, envLine+"\n"+cmds[2], time.Minute)
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("answer %s: %v", out, err)
		}
		revoked := "2026-01-20T10:00:00+00:00"
		want := []token{ // the demo token, then Alice's two of the seed (supabase/fixtures/SEED.md)
			{Name: "scripts/dev demo", Scopes: []string{"mcp:read", "mcp:write"}},
			{Name: "Claude Desktop", Scopes: []string{"mcp:read"}},
			{Name: "Old laptop", Scopes: []string{"mcp:read", "mcp:write"}, RevokedAt: &revoked},
		}
		if diff := cmp.Diff(want, resp.Tokens); diff != "" {
			t.Errorf("tokens (-want +got):\n%s\nanswer: %s", diff, out)
		}
	})
	t.Run("inspector", func(t *testing.T) {
		var resp struct{ Tools []struct{ Name string } }
		// The first run downloads the Inspector. npm's warnings (such as
		// EBADENGINE while installing) would go to standard error.
		stderr := filepath.Join(t.TempDir(), "stderr")
		out := bash(t, envLine+"\n"+cmds[3]+" 2>"+shellQuote(stderr), 5*time.Minute)
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("answer %s: %v", out, err)
		}
		if warnings, err := os.ReadFile(stderr); err != nil || strings.Contains(string(warnings), "npm warn") {
			t.Errorf("the Inspector command's standard error (%v):\n%s", err, warnings)
		}
		var names []string
		for _, tool := range resp.Tools {
			names = append(names, tool.Name)
		}
		if diff := cmp.Diff(catalogue(), names); diff != "" {
			t.Errorf("tools/list (-want +got):\n%s", diff)
		}
	})
}

// TestBannerOrder: the banner shows the settings file, the mcp_ token and
// the session token before the commands that use them, and no Inspector
// command other than the pinned one.
func TestBannerOrder(t *testing.T) {
	dev := seededDev(t)
	env := readEnv(t, dev.envFile)
	order := []string{"Settings:", env["DEMO_TOKEN"], env["SESSION_TOKEN"], "Try it:", "set -a; .", "$DEMO_TOKEN\" -H", "$SESSION_TOKEN\"", "npx -y --loglevel=error @modelcontextprotocol/inspector@"}
	at := 0
	for _, s := range order {
		i := strings.Index(dev.banner[at:], s)
		if s == "" || i < 0 {
			t.Fatalf("%q missing after offset %d of the banner:\n%s", s, at, dev.banner)
		}
		at += i + len(s)
	}
	if n := strings.Count(dev.banner, "@modelcontextprotocol/inspector"); n != 1 {
		t.Errorf("the banner names the Inspector package %d times, want once (pinned):\n%s", n, dev.banner)
	}
}

func TestInspectorCommand(t *testing.T) {
	const endpoint = "http://127.0.0.1:9000/functions/v1/mcp-server"
	const step = "  # 4. List the tools with the MCP Inspector CLI 2.12.0:\n"
	tests := []struct {
		name  string
		major int
		err   error
		want  string
	}{
		{"node 20", 20, nil, step + `  npx -y --loglevel=error @modelcontextprotocol/inspector@2.12.0 --cli ` + endpoint + ` --transport http --header "Authorization: Bearer $DEMO_TOKEN" --method tools/list` + "\n"},
		{"node 22", 22, nil, step + `  npx -y --loglevel=error @modelcontextprotocol/inspector@2.12.0 --cli ` + endpoint + ` --transport http --header "Authorization: Bearer $DEMO_TOKEN" --method tools/list` + "\n"},
		{"node 18", 18, nil, step + "  #    not available here: it needs Node.js 20 or later and node is 18 (on 18 it fails: CustomEvent is not defined)\n"},
		{"no npx", 0, errors.New("npx is not on PATH"), step + "  #    not available here: npx is not on PATH\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, inspectorCommand(endpoint, tt.major, tt.err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseNodeMajor(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"v20.20.2\n", 20, false},
		{"v22.23.3", 22, false},
		{"20.1.0", 0, true},
		{"", 0, true},
		{"vx.1", 0, true},
	}
	for _, tt := range tests {
		got, err := parseNodeMajor(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("parseNodeMajor(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestWithoutInspector: client-config's text loses exactly its Inspector
// section.
func TestWithoutInspector(t *testing.T) {
	cfg, err := clientconfig.Render(clientconfig.Options{URL: "http://127.0.0.1:9000/functions/v1/mcp-server", Token: "mcp_x"})
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, s := range strings.Split(withoutInspector(cfg), "\n\n") {
		head, _, _ := strings.Cut(s, ":")
		heads = append(heads, head)
	}
	want := []string{"# Claude Desktop (claude_desktop_config.json), through the mcp-remote bridge", "# Claude Code",
		"# Clients that take a URL and headers (Cursor, Windsurf, the web app's snippet)",
		"# VS Code (.vscode/mcp.json, or the user mcp.json), which asks for the token once and keeps it in its secret storage",
		"# ChatGPT in developer mode (Settings → Apps → Advanced settings → Developer mode, then Settings → Apps → Create app), with the name pawtograder, this MCP server URL and authentication OAuth",
		"# OAuth-capable clients (Claude connectors, ChatGPT, VS Code without headers, the Inspector's OAuth flow) need only the URL"}
	if diff := cmp.Diff(want, heads); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
}
