package config

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const oauthSecret = "0123456789abcdef0123456789abcdef"

// gatewayEnv is a complete environment for the gateway mode.
func gatewayEnv(extra map[string]string) map[string]string {
	env := map[string]string{
		"SUPABASE_URL":              "https://project.supabase.co",
		"SUPABASE_SERVICE_ROLE_KEY": "service",
		"MCP_JWT_SECRET":            "mcp-secret-with-at-least-32-characters",
		"GATEWAY_OAUTH_SECRET":      oauthSecret,
	}
	for k, v := range extra {
		if v == "" {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	return env
}

func TestOAuthServerSettings(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want OAuthServer
	}{
		{"no secret keeps supabase", nil, OAuthServer{Mode: OAuthServerSupabase, Providers: []string{"github"}, ProvidersDefault: true, AccessTokenTTL: time.Hour}},
		{"a secret defaults to gateway", gatewayEnv(nil), OAuthServer{Mode: OAuthServerGateway, Secrets: []string{oauthSecret}, Providers: []string{"github"}, ProvidersDefault: true, AccessTokenTTL: time.Hour}},
		{"explicit supabase wins", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SERVER": "supabase"}),
			OAuthServer{Mode: OAuthServerSupabase, Secrets: []string{oauthSecret}, Providers: []string{"github"}, ProvidersDefault: true, AccessTokenTTL: time.Hour}},
		{"off", map[string]string{"GATEWAY_OAUTH_SERVER": "OFF"}, OAuthServer{Mode: OAuthServerOff, Providers: []string{"github"}, ProvidersDefault: true, AccessTokenTTL: time.Hour}},
		{"everything", gatewayEnv(map[string]string{
			"GATEWAY_OAUTH_SECRET":             oauthSecret + " , " + strings.Repeat("b", 32),
			"GATEWAY_OAUTH_PROVIDERS":          "github, azure",
			"GATEWAY_TRUSTED_PROXIES":          "10.0.0.0/8, 192.168.1.7, fd00::1/64",
			"GATEWAY_OAUTH_CIMD_ALLOW_PRIVATE": "true",
		}), OAuthServer{Mode: OAuthServerGateway, Secrets: []string{oauthSecret, strings.Repeat("b", 32)}, Providers: []string{"github", "azure"},
			TrustedProxies:   []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32"), netip.MustParsePrefix("fd00::/64")},
			CIMDAllowPrivate: true, AccessTokenTTL: time.Hour}},
		{"gateway mode with the MCP server off needs nothing", map[string]string{"GATEWAY_OAUTH_SERVER": "gateway", "MCP_SERVER_ENABLED": "false"},
			OAuthServer{Mode: OAuthServerGateway, Providers: []string{"github"}, ProvidersDefault: true, AccessTokenTTL: time.Hour}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.OAuthServer, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOAuthServerMalformed(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"unknown mode", map[string]string{"GATEWAY_OAUTH_SERVER": "keycloak"}, `GATEWAY_OAUTH_SERVER must be gateway, supabase or off (got "keycloak")`},
		{"short secret", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SECRET": "short"}),
			"GATEWAY_OAUTH_SECRET must be one or more comma-separated secrets of at least 32 bytes each, e.g. from openssl rand -base64 32 (entry 1 has 5 bytes)"},
		{"bad provider", map[string]string{"GATEWAY_OAUTH_PROVIDERS": "github,Azure AD"},
			`GATEWAY_OAUTH_PROVIDERS must be a comma-separated list of Supabase Auth provider names such as github,azure (got "github,Azure AD")`},
		{"bad proxy", map[string]string{"GATEWAY_TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal"},
			`GATEWAY_TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges such as 10.0.0.0/8 (got "proxy.internal")`},
		{"access token ttl too long", map[string]string{"GATEWAY_OAUTH_ACCESS_TOKEN_TTL": "48h"},
			`GATEWAY_OAUTH_ACCESS_TOKEN_TTL must be at most 24h: access tokens are short-lived and refreshed (got "48h")`},
		{"bad allowance", map[string]string{"GATEWAY_OAUTH_CIMD_ALLOW_PRIVATE": "maybe"}, `GATEWAY_OAUTH_CIMD_ALLOW_PRIVATE must be true or false (got "maybe")`},
		{"gateway without secret", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SERVER": "gateway", "GATEWAY_OAUTH_SECRET": ""}),
			"GATEWAY_OAUTH_SECRET is required when GATEWAY_OAUTH_SERVER is gateway (it signs registered clients and seals sign-in cookies)"},
		{"gateway without service role", gatewayEnv(map[string]string{"SUPABASE_SERVICE_ROLE_KEY": ""}),
			"SUPABASE_SERVICE_ROLE_KEY is required when GATEWAY_OAUTH_SERVER is gateway (grants are written with the service role)"},
		{"gateway with a short MCP secret", gatewayEnv(map[string]string{"MCP_JWT_SECRET": "short"}),
			"MCP_JWT_SECRET must be at least 32 characters, counted in UTF-16 code units as JavaScript counts them, e.g. from openssl rand -base64 32 (got 5)"},
		{"gateway without any URL", map[string]string{"GATEWAY_OAUTH_SERVER": "gateway", "GATEWAY_OAUTH_SECRET": oauthSecret, "SUPABASE_SERVICE_ROLE_KEY": "s", "MCP_JWT_SECRET": strings.Repeat("m", 32)},
			"GATEWAY_PUBLIC_URL is required when GATEWAY_OAUTH_SERVER is gateway (every OAuth URL is built from it)\n" +
				"GATEWAY_AUTH_URL is required when GATEWAY_OAUTH_SERVER is gateway (users sign in through Supabase Auth; set SUPABASE_URL or GATEWAY_AUTH_URL)\n" +
				"SUPABASE_URL is required when GATEWAY_OAUTH_SERVER is gateway (grants are stored through PostgREST)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.env)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
