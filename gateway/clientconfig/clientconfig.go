// Package clientconfig renders ready-to-paste MCP client configurations for
// the gateway's MCP endpoint, so the instructions users follow are produced
// by the same binary that serves them and cannot drift from it.
package clientconfig

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Placeholder stands in for a real token when none is given.
const Placeholder = "mcp_YOUR_TOKEN_HERE"

// Options selects what to render.
type Options struct {
	// URL is the MCP endpoint, e.g. https://x.supabase.co/functions/v1/mcp-server.
	URL string
	// Token is the API token to embed; Placeholder when empty.
	Token string
	// Name is the server's key in client configs (default "pawtograder").
	Name string
}

// InspectorVersion is the MCP Inspector the printed command runs. Without
// a version npx picks the newest release whose declared engines match the
// installed Node.js, which on Node.js 20 is 0.15.0, whose CLI refuses
// --header for a URL ("Arguments cannot be passed to a URL-based MCP
// server"). 2.12.0 declares Node.js >= 22.19 but its CLI runs on Node.js 20
// (the dev command's TestPrintedCommandsWork runs it).
const InspectorVersion = "2.12.0"

// Render returns a text with one section per client: Claude Desktop,
// Claude Code, clients that take a URL and headers, VS Code, the MCP
// Inspector, ChatGPT, and the URL alone for clients that sign in with
// OAuth.
func Render(opts Options) (string, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("clientconfig: --url must be the absolute http(s) URL of the MCP endpoint")
	}
	if opts.Token == "" {
		opts.Token = Placeholder
	}
	if opts.Name == "" {
		opts.Name = "pawtograder"
	}
	if strings.ContainsAny(opts.Token, " \t\r\n\"") {
		return "", errors.New("clientconfig: the token must not contain spaces or quotes")
	}
	bearer := "Bearer " + opts.Token

	servers := func(cfg *jsjson.Object) *jsjson.Object {
		return jsjson.NewObject(1).Set("mcpServers", jsjson.NewObject(1).Set(opts.Name, cfg))
	}
	direct := servers(jsjson.NewObject(2).
		Set("url", opts.URL).
		Set("headers", jsjson.NewObject(1).Set("Authorization", bearer)))
	desktop := servers(jsjson.NewObject(3).
		Set("command", "npx").
		Set("args", []string{"-y", "mcp-remote", opts.URL, "--header", "Authorization:${AUTH_HEADER}"}).
		Set("env", jsjson.NewObject(1).Set("AUTH_HEADER", bearer)))

	var b strings.Builder
	fmt.Fprintf(&b, "# Claude Desktop (claude_desktop_config.json), through the mcp-remote bridge:\n%s\n\n", indent(desktop))
	fmt.Fprintf(&b, "# Claude Code:\nclaude mcp add --transport http %s %s --header \"Authorization: %s\"\n\n", opts.Name, opts.URL, bearer)
	fmt.Fprintf(&b, "# Clients that take a URL and headers (Cursor, Windsurf, the web app's snippet):\n%s\n\n", indent(direct))
	fmt.Fprintf(&b, "# VS Code (.vscode/mcp.json, or the user mcp.json), which asks for the token once and keeps it in its secret storage:\n%s\n\n", indent(vscode(opts)))
	fmt.Fprintf(&b, "# MCP Inspector (UI: transport Streamable HTTP, this URL, header Authorization):\nnpx -y @modelcontextprotocol/inspector@%s --cli %s --transport http --header \"Authorization: %s\" --method tools/list\n\n", InspectorVersion, opts.URL, bearer)
	fmt.Fprintf(&b, "# ChatGPT in developer mode (Settings → Apps → Advanced settings → Developer mode, then Settings → Apps → Create app), with the name %s, this MCP server URL and authentication OAuth:\n%s%s\n\n", opts.Name, reachableNote(u), opts.URL)
	fmt.Fprintf(&b, "# OAuth-capable clients (Claude connectors, ChatGPT, VS Code without headers, the Inspector's OAuth flow) need only the URL:\n%s\n", opts.URL)
	return b.String(), nil
}

// vscode is VS Code's mcp.json entry: a Streamable HTTP server ("type":
// "http") whose Authorization header comes from a password input, so the
// token is typed once and never written into a file a workspace may
// commit.
func vscode(opts Options) *jsjson.Object {
	input := opts.Name + "-token"
	server := jsjson.NewObject(3).
		Set("type", "http").
		Set("url", opts.URL).
		Set("headers", jsjson.NewObject(1).Set("Authorization", "Bearer ${input:"+input+"}"))
	return jsjson.NewObject(2).
		Set("servers", jsjson.NewObject(1).Set(opts.Name, server)).
		Set("inputs", []any{jsjson.NewObject(4).
			Set("type", "promptString").
			Set("id", input).
			Set("description", "Pawtograder MCP token (mcp_…)").
			Set("password", true)})
}

// reachableNote warns, for a URL ChatGPT cannot reach (it connects from
// OpenAI's servers, over HTTPS), what the person must do first.
func reachableNote(u *url.URL) string {
	host := u.Hostname()
	local := host == "localhost" || strings.HasSuffix(host, ".localhost")
	if ip := net.ParseIP(host); ip != nil {
		local = ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast()
	}
	if u.Scheme == "https" && !local {
		return ""
	}
	return "# This URL is not reachable from ChatGPT, which connects from OpenAI's servers over HTTPS: deploy the gateway at a public HTTPS URL (GATEWAY_PUBLIC_URL), or put an HTTPS tunnel in front of it, and use that URL.\n"
}

func indent(v any) string {
	b, _ := jsjson.MarshalIndent(v) // only strings and objects: cannot fail
	return string(b)
}
