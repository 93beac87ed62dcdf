package config

import (
	"fmt"
	"strconv"
	"time"
)

// writeTools parses GATEWAY_WRITE_TOOLS (on or off, default off): the MCP
// write tools whose every write a person approves on a gateway page
// (docs/writes.md). On needs what the approval page needs: mcp-server, a
// public URL for the links, the service role for the pending actions and
// GATEWAY_OAUTH_SECRET, which seals the page's sign-in cookie and the
// 2026-07-28 requestState. c must already hold those.
func (p *parser) writeTools(c *Config) bool {
	return p.onOff(c, pageFeature{name: "GATEWAY_WRITE_TOOLS", publicURL: "the approval links", serviceRole: "the pending actions", oauth: "the approval page's sign-in"})
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
