package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Clients that speak MCP revision 2026-07-28 natively, as users run them,
// against the wired gateway and the seeded stack (called from
// TestSDKClientsFullStack): the TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.4.0 pinned to the revision) and the MCP
// Inspector CLI 2.12.0 with --protocol-era modern. Both are installed from
// testdata/modernclient's committed package-lock.json; the node package
// there provides the Node.js 22 the Inspector needs.

// modernClientDir is the node project of the 2026-07-28 clients.
var modernClientDir = filepath.Join("testdata", "modernclient")

// modernNode installs modernClientDir when needed and returns its node.
// A missing npm fails the test: CI installs Node.js (scripts/install-deps).
func modernNode(t *testing.T) string {
	t.Helper()
	node, err := filepath.Abs(filepath.Join(modernClientDir, "node_modules", ".bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	installOnce.Do(func() {
		if _, err := os.Stat(node); err == nil {
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			installErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		// Install scripts stay on: the node package's preinstall puts the
		// Node.js 22 binary in place.
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = modernClientDir
		if out, err := cmd.CombinedOutput(); err != nil {
			installErr = &installError{err: err, out: out}
		}
	})
	if installErr != nil {
		t.Fatalf("installing %s (npm ci): %v", modernClientDir, installErr)
	}
	return node
}

var (
	installOnce sync.Once
	installErr  error
)

type installError struct {
	err error
	out []byte
}

func (e *installError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// modernSummary is what testdata/modernclient/client.mjs prints.
type modernSummary struct {
	Era                   string   `json:"era"`
	NegotiatedProtocol    string   `json:"negotiatedProtocol"`
	SupportedVersions     []string `json:"supportedVersions"`
	Tools                 []string `json:"tools"`
	ToolsWithOutputSchema int      `json:"toolsWithOutputSchema"`
	Calls                 map[string]struct {
		Error             *string `json:"error"`
		IsError           bool    `json:"isError"`
		Text              *string `json:"text"`
		StructuredContent any     `json:"structuredContent"`
	} `json:"calls"`
	Sent []sentRequest `json:"sent"`
}

// sentRequest is one HTTP request a client made, as recorded.
type sentRequest struct {
	Method          *string `json:"method"`
	HTTPMethod      string  `json:"httpMethod"`
	ProtocolVersion *string `json:"protocolVersion"`
	McpMethod       *string `json:"mcpMethod"`
	McpName         *string `json:"mcpName"`
	Status          int     `json:"status"`
}

// testTypeScriptSDKv2 runs every call of sdkCalls through the TypeScript
// SDK v2 client at 2026-07-28. The client validates each structuredContent
// against the tool's outputSchema itself (a failure is a thrown error);
// the test checks that it is the text's value and that the text equals
// the raw POST's.
func testTypeScriptSDKv2(t *testing.T, endpoint, token string, raw map[string]string) {
	node := modernNode(t)
	callsJSON, err := json.Marshal(sdkCalls)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", endpoint, token, string(callsJSON))
	cmd.Dir = modernClientDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got modernSummary
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, stdout.String())
	}
	if got.Era != "modern" || got.NegotiatedProtocol != "2026-07-28" {
		t.Errorf("era %q at %q, want modern at 2026-07-28", got.Era, got.NegotiatedProtocol)
	}
	if diff := cmp.Diff([]string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, got.SupportedVersions); diff != "" {
		t.Errorf("discovered versions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(negotiatedCatalogue, got.Tools); diff != "" {
		t.Errorf("tools/list names (-want +got):\n%s", diff)
	}
	if got.ToolsWithOutputSchema != len(negotiatedCatalogue) {
		t.Errorf("%d tools declare an outputSchema, want %d", got.ToolsWithOutputSchema, len(negotiatedCatalogue))
	}
	for _, c := range sdkCalls {
		s, ok := got.Calls[c.Name]
		switch {
		case !ok:
			t.Errorf("%s: not called", c.Name)
			continue
		case s.Error != nil:
			t.Errorf("%s: callTool threw (includes the SDK's outputSchema validation): %s", c.Name, *s.Error)
			continue
		case s.IsError || s.Text == nil || *s.Text != negotiatedText(t, c.Name, hiddentext.Mark(raw[c.Name])): // S30, S31
			t.Errorf("%s: isError=%v, text differs from the raw POST's", c.Name, s.IsError)
			continue
		}
		var value any
		if err := json.Unmarshal([]byte(*s.Text), &value); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(value, s.StructuredContent); diff != "" {
			t.Errorf("%s: structuredContent is not the text's value (-want +got):\n%s", c.Name, diff)
		}
	}
	// No initialize: discover, then every request with the revision's
	// headers.
	if len(got.Sent) == 0 || got.Sent[0].Method == nil || *got.Sent[0].Method != "server/discover" {
		t.Fatalf("first request: %+v, want server/discover", got.Sent)
	}
	for _, s := range got.Sent {
		if s.ProtocolVersion == nil || *s.ProtocolVersion != "2026-07-28" || s.McpMethod == nil || s.Method == nil || *s.McpMethod != *s.Method || s.Status != http.StatusOK {
			t.Errorf("request %+v: want MCP-Protocol-Version 2026-07-28, Mcp-Method = method, 200", s)
		}
	}
}

// recordingProxy forwards to target and records, per request, the JSON-RPC
// method of the body and the revision headers.
type recordingProxy struct {
	mu   sync.Mutex
	seen []sentRequest
}

func (rp *recordingProxy) start(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	origin := &url.URL{Scheme: u.Scheme, Host: u.Host} // SetURL appends the request's path
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(origin) }}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct{ Method *string }
		_ = json.Unmarshal(body, &msg)
		rec := httptest.NewRecorder()
		proxy.ServeHTTP(rec, r)
		str := func(name string) *string {
			if v := r.Header.Get(name); v != "" {
				return &v
			}
			return nil
		}
		rp.mu.Lock()
		rp.seen = append(rp.seen, sentRequest{Method: msg.Method, HTTPMethod: r.Method, ProtocolVersion: str("MCP-Protocol-Version"),
			McpMethod: str("Mcp-Method"), McpName: str("Mcp-Name"), Status: rec.Code})
		rp.mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(ts.Close)
	return ts.URL + u.Path
}

func (rp *recordingProxy) requests() []sentRequest {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]sentRequest(nil), rp.seen...)
}

// testInspectorModern runs the MCP Inspector CLI with --protocol-era modern:
// tools/list, then tools/call of get_assignment, through a recording proxy
// that shows the CLI stayed at 2026-07-28 (server/discover, no initialize).
func testInspectorModern(t *testing.T, endpoint, token string, raw map[string]string) {
	node := modernNode(t)
	rp := &recordingProxy{}
	front := rp.start(t, endpoint)
	home := t.TempDir() // the CLI keeps a catalog and settings under $HOME
	inspector := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		all := append([]string{filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"),
			"--cli", front, "--transport", "http", "--header", "Authorization: Bearer " + token, "--protocol-era", "modern", "--format", "json"}, args...)
		cmd := exec.CommandContext(ctx, node, all...)
		cmd.Dir = modernClientDir
		cmd.Env = append(os.Environ(), "HOME="+home, "NO_COLOR=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
		}
		return stdout.Bytes()
	}

	var listed struct {
		Result struct {
			Tools []struct {
				Name         string
				OutputSchema map[string]any
			}
		}
	}
	if out := inspector("--method", "tools/list"); json.Unmarshal(out, &listed) != nil {
		t.Fatalf("tools/list output: %s", out)
	}
	var names []string
	for _, tool := range listed.Result.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil {
			t.Errorf("%s: no outputSchema", tool.Name)
		}
	}
	if diff := cmp.Diff(negotiatedCatalogue, names); diff != "" {
		t.Errorf("tools/list names (-want +got):\n%s", diff)
	}

	var called struct {
		Result struct {
			Content []struct{ Type, Text string }
			// The Inspector validated it against the tool's outputSchema.
			StructuredContent map[string]any
			Meta              map[string]any `json:"_meta"`
		}
	}
	out := inspector("--method", "tools/call", "--tool-name", "get_assignment", "--tool-args-json", `{"assignment_id":1,"class_id":1}`)
	if err := json.Unmarshal(out, &called); err != nil || len(called.Result.Content) != 1 {
		t.Fatalf("tools/call output: %v %s", err, out)
	}
	if called.Result.Content[0].Text != raw["get_assignment"] {
		t.Errorf("text differs from the raw POST's: %q", called.Result.Content[0].Text)
	}
	if called.Result.StructuredContent["title"] != "Hello World" {
		t.Errorf("structuredContent %v, want the assignment itself", called.Result.StructuredContent)
	}
	if called.Result.Meta["io.modelcontextprotocol/serverInfo"] == nil {
		t.Errorf("result _meta %v, want the server's identity", called.Result.Meta)
	}

	seen := rp.requests()
	if len(seen) == 0 || seen[0].Method == nil || *seen[0].Method != "server/discover" {
		t.Fatalf("first request %+v, want server/discover", seen)
	}
	for _, s := range seen {
		if s.Method != nil && *s.Method == "initialize" {
			t.Errorf("the Inspector sent initialize: %+v", seen)
		}
		if s.ProtocolVersion == nil || *s.ProtocolVersion != "2026-07-28" || s.Status != http.StatusOK {
			t.Errorf("request %+v: want MCP-Protocol-Version 2026-07-28 and 200", s)
		}
	}
}
