package main

import (
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
)

// TestParseBenchGateway reads -gateway NAME=URL,PID,METRICS_URL and refuses
// anything else.
func TestParseBenchGateway(t *testing.T) {
	got, err := parseBenchGateway("before=http://127.0.0.1:9000/,4242,http://127.0.0.1:9101/metrics")
	want := benchGateway{name: "before", url: "http://127.0.0.1:9000", pid: 4242, metricsURL: "http://127.0.0.1:9101/metrics"}
	if err != nil || got != want {
		t.Errorf("parseBenchGateway = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"", "before", "=http://x,1,http://m", "a=http://x,1", "a=http://x,0,http://m", "a=http://x,p,http://m", "a=http://x,1,http://m,extra"} {
		if _, err := parseBenchGateway(bad); err == nil {
			t.Errorf("parseBenchGateway(%q): no error", bad)
		}
	}
}

// TestSeededToolCallsCoverEveryWrite: each write proposal has a row, and
// every row is a tools/call body that names its tool once.
func TestSeededToolCallsCoverEveryWrite(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range seededToolCalls {
		if seen[tc.name] {
			t.Errorf("%s listed twice", tc.name)
		}
		seen[tc.name] = true
		if !strings.HasPrefix(tc.args, "{") || !strings.HasSuffix(tc.args, "}") {
			t.Errorf("%s: arguments %q are not an object", tc.name, tc.args)
		}
	}
	for w := range writeTools {
		if !seen[w] {
			t.Errorf("write tool %s has no row", w)
		}
	}
}

// TestSeededToolCallsCoverEveryTool: the per-tool run has a row for every
// tool the registry offers, read or write, so a new tool is measured too.
func TestSeededToolCallsCoverEveryTool(t *testing.T) {
	rows := map[string]bool{}
	for _, tc := range seededToolCalls {
		rows[tc.name] = true
	}
	for _, tool := range tools.New(tools.Options{}).Tools() {
		if !rows[tool.Name] {
			t.Errorf("%s has no row in seededToolCalls", tool.Name)
		}
		if tool.Write != writeTools[tool.Name] {
			t.Errorf("%s: write %v, but writeTools says %v", tool.Name, tool.Write, writeTools[tool.Name])
		}
	}
}
