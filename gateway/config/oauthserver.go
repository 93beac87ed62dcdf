package config

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"time"
)

// OAuthServerMode is GATEWAY_OAUTH_SERVER: which authorization server the
// protected-resource metadata names (docs/oauth.md).
type OAuthServerMode string

// The modes.
const (
	// OAuthServerGateway: the gateway is its own authorization server and
	// grants revocable mcp_ tokens.
	OAuthServerGateway OAuthServerMode = "gateway"
	// OAuthServerSupabase: the metadata names Supabase Auth's OAuth 2.1
	// server, whose access tokens the gateway verifies (the behaviour
	// before the gateway had its own).
	OAuthServerSupabase OAuthServerMode = "supabase"
	// OAuthServerOff: no OAuth metadata; only mcp_ tokens work.
	OAuthServerOff OAuthServerMode = "off"
)

// OAuthServer holds the settings of the gateway's authorization server.
type OAuthServer struct {
	// Mode is GATEWAY_OAUTH_SERVER. Default: gateway when
	// GATEWAY_OAUTH_SECRET is set, else supabase, so a deployment that
	// predates the setting keeps its metadata byte for byte and one that
	// follows docs/oauth.md gets the working flow.
	Mode OAuthServerMode
	// Secrets is GATEWAY_OAUTH_SECRET, comma-separated: the first signs
	// client ids and seals cookies, all are accepted (rotation).
	Secrets []string
	// Providers is GATEWAY_OAUTH_PROVIDERS: the Supabase Auth providers
	// offered for sign-in. Default github.
	Providers []string
	// ProvidersDefault is true when GATEWAY_OAUTH_PROVIDERS is unset and
	// Providers is the default: main warns, since a provider that is not
	// enabled in the project's Supabase Auth fails every sign-in, and
	// Pawtograder's own configuration does not enable github.
	ProvidersDefault bool
	// TrustedProxies is GATEWAY_TRUSTED_PROXIES: addresses or CIDR ranges
	// whose X-Forwarded-For is believed for rate limiting.
	TrustedProxies []netip.Prefix
	// CIMDAllowPrivate is GATEWAY_OAUTH_CIMD_ALLOW_PRIVATE: fetch client
	// metadata documents from private and loopback addresses. For tests
	// only; it turns off the SSRF protection of document fetches.
	CIMDAllowPrivate bool
	// AccessTokenTTL is GATEWAY_OAUTH_ACCESS_TOKEN_TTL, the lifetime of an
	// access token (an mcp_ JWT). Default 1h; at most 24h.
	AccessTokenTTL time.Duration
}

var providerID = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

// oauthServer parses the OAuth server settings; c must already hold the
// URLs and secrets they depend on.
func (p *parser) oauthServer(c *Config) OAuthServer {
	secretSet := p.lookup("GATEWAY_OAUTH_SECRET") != ""
	o := OAuthServer{
		Secrets:          p.oauthSecrets(),
		Mode:             p.oauthMode(secretSet),
		Providers:        p.oauthProviders(),
		ProvidersDefault: p.lookup("GATEWAY_OAUTH_PROVIDERS") == "",
		TrustedProxies:   p.trustedProxies(),
		CIMDAllowPrivate: p.boolean("GATEWAY_OAUTH_CIMD_ALLOW_PRIVATE", false),
		AccessTokenTTL:   p.duration("GATEWAY_OAUTH_ACCESS_TOKEN_TTL", time.Hour, false),
	}
	if o.AccessTokenTTL > 24*time.Hour {
		p.fail("GATEWAY_OAUTH_ACCESS_TOKEN_TTL", fmt.Sprintf("must be at most 24h: access tokens are short-lived and refreshed (got %q)", p.lookup("GATEWAY_OAUTH_ACCESS_TOKEN_TTL")))
	}
	if o.Mode == OAuthServerGateway && c.MCPServerEnabled {
		p.gatewayModeNeeds(c, secretSet)
	}
	return o
}

// oauthSecrets parses GATEWAY_OAUTH_SECRET; a problem names the entry by
// position, never by value.
func (p *parser) oauthSecrets() []string {
	v := p.lookup("GATEWAY_OAUTH_SECRET")
	if v == "" {
		return nil
	}
	var secrets, bad []string
	for i, s := range strings.Split(v, ",") {
		switch s = strings.TrimSpace(s); {
		case s == "":
			bad = append(bad, fmt.Sprintf("entry %d is empty", i+1))
		case len(s) < 32:
			unit := "bytes"
			if len(s) == 1 {
				unit = "byte"
			}
			bad = append(bad, fmt.Sprintf("entry %d has %d %s", i+1, len(s), unit))
		default:
			secrets = append(secrets, s)
		}
	}
	if len(bad) > 0 {
		p.fail("GATEWAY_OAUTH_SECRET", "must be one or more comma-separated secrets of at least 32 bytes each, e.g. from openssl rand -base64 32 ("+strings.Join(bad, "; ")+")")
	}
	return secrets
}

// oauthMode parses GATEWAY_OAUTH_SERVER: by default the gateway's own
// server once its secret is set, else Supabase Auth's.
func (p *parser) oauthMode(secretSet bool) OAuthServerMode {
	switch v := strings.ToLower(p.lookup("GATEWAY_OAUTH_SERVER")); v {
	case "":
		if secretSet {
			return OAuthServerGateway
		}
		return OAuthServerSupabase
	case "gateway", "supabase", "off":
		return OAuthServerMode(v)
	default:
		p.fail("GATEWAY_OAUTH_SERVER", fmt.Sprintf("must be gateway, supabase or off (got %q)", p.lookup("GATEWAY_OAUTH_SERVER")))
		return ""
	}
}

// oauthProviders parses GATEWAY_OAUTH_PROVIDERS (default github).
func (p *parser) oauthProviders() []string {
	v := p.lookup("GATEWAY_OAUTH_PROVIDERS")
	if v == "" {
		return []string{"github"}
	}
	var providers []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if !providerID.MatchString(s) {
			p.fail("GATEWAY_OAUTH_PROVIDERS", fmt.Sprintf("must be a comma-separated list of Supabase Auth provider names such as github,azure (got %q)", v))
			return []string{"github"}
		}
		providers = append(providers, s)
	}
	return providers
}

// trustedProxies parses GATEWAY_TRUSTED_PROXIES: addresses and CIDR
// ranges, an address being its own one-address range.
func (p *parser) trustedProxies() []netip.Prefix {
	v := p.lookup("GATEWAY_TRUSTED_PROXIES")
	if v == "" {
		return nil
	}
	var out []netip.Prefix
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				p.fail("GATEWAY_TRUSTED_PROXIES", fmt.Sprintf("must be a comma-separated list of IP addresses or CIDR ranges such as 10.0.0.0/8 (got %q)", s))
				continue
			}
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, pfx.Masked())
	}
	return out
}

// gatewayModeNeeds refuses start-up when the gateway's own OAuth server
// lacks anything it will use: refusing to start beats advertising a flow
// that fails at its last step. MCP_JWT_SECRET, which signs the access
// tokens, is checked for every mode (secrets.go).
func (p *parser) gatewayModeNeeds(c *Config, secretSet bool) {
	need := func(ok bool, name, why string) {
		if !ok {
			p.fail(name, "is required when GATEWAY_OAUTH_SERVER is gateway ("+why+")")
		}
	}
	need(secretSet, "GATEWAY_OAUTH_SECRET", "it signs registered clients and seals sign-in cookies")
	need(c.PublicURL != nil, "GATEWAY_PUBLIC_URL", "every OAuth URL is built from it")
	need(c.AuthURL != nil, "GATEWAY_AUTH_URL", "users sign in through Supabase Auth; set SUPABASE_URL or GATEWAY_AUTH_URL")
	need(c.PostgRESTURL != nil, "SUPABASE_URL", "grants are stored through PostgREST")
	need(c.SupabaseServiceRoleKey != "", "SUPABASE_SERVICE_ROLE_KEY", "grants are written with the service role")
}
