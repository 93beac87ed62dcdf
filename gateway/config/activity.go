package config

import (
	"fmt"
	"strconv"
	"time"
)

// DefaultToolCallsPerMinute is GATEWAY_TOOL_CALLS_PER_MINUTE's default: two
// calls a second sustained, which a person working with an assistant never
// reaches and a runaway loop reaches within a minute.
const DefaultToolCallsPerMinute = 120

// DefaultActivityRetention is GATEWAY_ACTIVITY_RETENTION's default.
const DefaultActivityRetention = 90 * 24 * time.Hour

// toolCallsPerMinute parses GATEWAY_TOOL_CALLS_PER_MINUTE: the tool calls
// one connection may make per minute on one replica (docs/activity.md), 0
// for no limit. The bound keeps a typo from meaning "unlimited".
func (p *parser) toolCallsPerMinute() int {
	v := p.lookup("GATEWAY_TOOL_CALLS_PER_MINUTE")
	if v == "" {
		return DefaultToolCallsPerMinute
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 100000 {
		p.fail("GATEWAY_TOOL_CALLS_PER_MINUTE", fmt.Sprintf("must be a whole number from 0 (no limit) to 100000 (got %q)", v))
		return DefaultToolCallsPerMinute
	}
	return n
}

// activityRecord parses GATEWAY_ACTIVITY_RECORD (on or off, default off):
// the record of tool calls in PostgreSQL and the Connections and class
// activity pages (docs/activity.md). On needs mcp-server, the service role
// (the recorder's batches), a public URL (the pages' sign-in return) and
// GATEWAY_OAUTH_SECRET (their sign-in cookie). c must already hold those.
func (p *parser) activityRecord(c *Config) bool {
	return p.onOff(c, pageFeature{name: "GATEWAY_ACTIVITY_RECORD", publicURL: "the pages' sign-in", serviceRole: "the record's writes", oauth: "the pages' sign-in"})
}

// activityRetention parses GATEWAY_ACTIVITY_RETENTION: how long recorded
// calls are kept, at least a week so that the pages' seven days are whole.
func (p *parser) activityRetention() time.Duration {
	d := p.duration("GATEWAY_ACTIVITY_RETENTION", DefaultActivityRetention, false)
	if d < 7*24*time.Hour {
		p.fail("GATEWAY_ACTIVITY_RETENTION", fmt.Sprintf("must be at least 168h, so that the pages' last seven days are whole (got %q)", p.lookup("GATEWAY_ACTIVITY_RETENTION")))
		return DefaultActivityRetention
	}
	return d
}
