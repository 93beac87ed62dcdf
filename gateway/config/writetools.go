package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// writeTools parses GATEWAY_WRITE_TOOLS (on or off, default off): the MCP
// write tools whose every write a person approves on a gateway page
// (docs/writes.md). On needs what the approval page needs: mcp-server, a
// public URL for the links, the service role for the pending actions and
// GATEWAY_OAUTH_SECRET, which seals the page's sign-in cookie and the
// 2026-07-28 requestState. c must already hold those.
func (p *parser) writeTools(c *Config) bool {
	v := strings.ToLower(p.lookup("GATEWAY_WRITE_TOOLS"))
	switch v {
	case "", "off":
		return false
	case "on":
	default:
		p.fail("GATEWAY_WRITE_TOOLS", fmt.Sprintf("must be on or off (got %q)", p.lookup("GATEWAY_WRITE_TOOLS")))
		return false
	}
	var missing []string
	if !c.MCPServerEnabled {
		missing = append(missing, "MCP_SERVER_ENABLED=true")
	}
	if c.PublicURL == nil {
		missing = append(missing, "GATEWAY_PUBLIC_URL (the approval links)")
	}
	if c.SupabaseServiceRoleKey == "" {
		missing = append(missing, "SUPABASE_SERVICE_ROLE_KEY (the pending actions)")
	}
	if len(c.OAuthServer.Secrets) == 0 {
		missing = append(missing, "GATEWAY_OAUTH_SECRET (the approval page's sign-in)")
	}
	if c.AuthURL == nil {
		missing = append(missing, "SUPABASE_URL or GATEWAY_AUTH_URL (sign-in)")
	}
	if len(missing) > 0 {
		p.fail("GATEWAY_WRITE_TOOLS", "is on, which needs "+strings.Join(missing, ", "))
		return false
	}
	return true
}

// writeLimits parses GATEWAY_WRITE_MAX_PENDING (a positive whole number,
// default 20) and GATEWAY_WRITE_RETENTION (a duration of at least a day,
// default 720h).
func (p *parser) writeLimits() (int, time.Duration) {
	maxPending := 20
	if v := p.lookup("GATEWAY_WRITE_MAX_PENDING"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			p.fail("GATEWAY_WRITE_MAX_PENDING", fmt.Sprintf("must be a whole number from 1 to 1000 (got %q)", v))
		} else {
			maxPending = n
		}
	}
	retention := p.duration("GATEWAY_WRITE_RETENTION", 30*24*time.Hour, false)
	if retention < 24*time.Hour {
		p.fail("GATEWAY_WRITE_RETENTION", fmt.Sprintf("must be at least 24h, so that a decision stays readable (got %q)", p.lookup("GATEWAY_WRITE_RETENTION")))
		retention = 30 * 24 * time.Hour
	}
	return maxPending, retention
}
