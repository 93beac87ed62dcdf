package main

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/toolcall"
	"github.com/pawtograder/mcp-gateway/gateway/calllimit"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/metrics"
)

// buildCallHooks builds what watches mcp-server's tool calls
// (docs/activity.md): the per-connection limit when
// GATEWAY_TOOL_CALLS_PER_MINUTE is not 0. nil when nothing watches.
func buildCallHooks(cfg config.Config, m *metrics.Metrics) (toolcall.Hook, error) {
	var hooks toolcall.Hooks
	if cfg.ToolCallsPerMinute > 0 {
		lim, err := calllimit.New(calllimit.Options{PerMinute: cfg.ToolCallsPerMinute, Metrics: m.Registry()})
		if err != nil {
			return nil, err
		}
		hooks = append(hooks, lim)
	}
	if len(hooks) == 0 {
		return nil, nil
	}
	return hooks, nil
}
