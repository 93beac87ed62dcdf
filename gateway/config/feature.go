package config

import (
	"fmt"
	"strings"
)

// pageFeature is an on/off setting whose feature signs people in on a
// gateway page and keeps rows with the service role (the write tools, the
// activity record). Its phrases say, in the start-up error, what each
// missing setting is for.
type pageFeature struct {
	name                          string
	publicURL, serviceRole, oauth string
}

// onOff parses f.name (on or off, default off) and, when on, checks that c
// holds what every page feature needs; c must already hold those settings.
func (p *parser) onOff(c *Config, f pageFeature) bool {
	switch strings.ToLower(p.lookup(f.name)) {
	case "", "off":
		return false
	case "on":
	default:
		p.fail(f.name, fmt.Sprintf("must be on or off (got %q)", p.lookup(f.name)))
		return false
	}
	var missing []string
	if !c.MCPServerEnabled {
		missing = append(missing, "MCP_SERVER_ENABLED=true")
	}
	if c.PublicURL == nil {
		missing = append(missing, "GATEWAY_PUBLIC_URL ("+f.publicURL+")")
	}
	if c.SupabaseServiceRoleKey == "" {
		missing = append(missing, "SUPABASE_SERVICE_ROLE_KEY ("+f.serviceRole+")")
	}
	if len(c.OAuthServer.Secrets) == 0 {
		missing = append(missing, "GATEWAY_OAUTH_SECRET ("+f.oauth+")")
	}
	if c.AuthURL == nil {
		missing = append(missing, "SUPABASE_URL or GATEWAY_AUTH_URL (sign-in)")
	}
	if len(missing) > 0 {
		p.fail(f.name, "is on, which needs "+strings.Join(missing, ", "))
		return false
	}
	return true
}
