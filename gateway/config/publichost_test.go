package config

import (
	"strings"
	"testing"
)

// TestAdvertisedHostsRefused: start-up refuses OAuth URLs that clients
// cannot reach, naming the variable to set and the host that is wrong.
func TestAdvertisedHostsRefused(t *testing.T) {
	const (
		signIn   = "GATEWAY_OAUTH_ISSUER must be the public URL browsers reach Supabase Auth at (…/auth/v1)"
		supabase = "GATEWAY_OAUTH_ISSUER must be the public URL of Supabase Auth that MCP clients are sent to (…/auth/v1), or set GATEWAY_OAUTH_SERVER=off"
	)
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"gateway mode: sign-in URL derived from SUPABASE_URL inside Docker",
			gatewayEnv(map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_PUBLIC_URL": "http://127.0.0.1:54321"}),
			signIn + ": http://kong:8000/auth/v1 has the single-label host kong"},
		{"gateway mode: sign-in URL derived from a direct Auth upstream",
			gatewayEnv(map[string]string{"GATEWAY_AUTH_URL": "http://auth:9999"}),
			signIn + ": http://auth:9999 has the single-label host auth"},
		{"gateway mode: explicit sign-in URL with a short name and a trailing dot",
			gatewayEnv(map[string]string{"GATEWAY_OAUTH_ISSUER": "http://kong.:8000/auth/v1"}),
			signIn + ": http://kong.:8000/auth/v1 has the single-label host kong."},
		{"gateway mode: loopback sign-in URL behind a public gateway",
			gatewayEnv(map[string]string{"GATEWAY_PUBLIC_URL": "https://mcp.example.edu", "GATEWAY_OAUTH_ISSUER": "http://127.0.0.1:54321/auth/v1"}),
			signIn + ": http://127.0.0.1:54321/auth/v1 has the loopback address 127.0.0.1, but GATEWAY_PUBLIC_URL https://mcp.example.edu is public"},
		{"gateway mode: localhost sign-in URL behind a public gateway",
			gatewayEnv(map[string]string{"GATEWAY_OAUTH_ISSUER": "http://localhost:54321/auth/v1"}),
			signIn + ": http://localhost:54321/auth/v1 has the loopback host localhost, but GATEWAY_PUBLIC_URL https://project.supabase.co is public"},
		{"gateway mode: private sign-in URL",
			gatewayEnv(map[string]string{"GATEWAY_OAUTH_ISSUER": "http://10.0.3.7:9999"}),
			signIn + ": http://10.0.3.7:9999 has the private address 10.0.3.7, but GATEWAY_PUBLIC_URL https://project.supabase.co is public"},
		{"gateway mode: link-local sign-in URL",
			gatewayEnv(map[string]string{"GATEWAY_OAUTH_ISSUER": "http://169.254.1.2/auth/v1"}),
			signIn + ": http://169.254.1.2/auth/v1 has the link-local address 169.254.1.2, but GATEWAY_PUBLIC_URL https://project.supabase.co is public"},
		{"gateway mode: unique local IPv6 sign-in URL",
			gatewayEnv(map[string]string{"GATEWAY_OAUTH_ISSUER": "http://[fd12::5]:9999"}),
			signIn + ": http://[fd12::5]:9999 has the private address fd12::5, but GATEWAY_PUBLIC_URL https://project.supabase.co is public"},
		{"gateway mode: a public URL that is a service name",
			gatewayEnv(map[string]string{"GATEWAY_PUBLIC_URL": "http://mcp-gateway:9000", "GATEWAY_OAUTH_ISSUER": "http://127.0.0.1:54321/auth/v1"}),
			"GATEWAY_PUBLIC_URL must be the public URL clients reach the gateway at: http://mcp-gateway:9000 has the single-label host mcp-gateway"},
		{"gateway mode: both wrong, both reported",
			gatewayEnv(map[string]string{"SUPABASE_URL": "http://kong:8000"}),
			"GATEWAY_PUBLIC_URL must be the public URL clients reach the gateway at: http://kong:8000 has the single-label host kong\n" +
				signIn + ": http://kong:8000/auth/v1 has the single-label host kong"},
		{"supabase mode: the advertised authorization server",
			map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_PUBLIC_URL": "https://project.supabase.co"},
			supabase + ": http://kong:8000/auth/v1 has the single-label host kong"},
		{"supabase mode: a loopback authorization server behind a public gateway",
			map[string]string{"SUPABASE_URL": "http://127.0.0.1:54321", "GATEWAY_PUBLIC_URL": "https://mcp.example.edu"},
			supabase + ": http://127.0.0.1:54321/auth/v1 has the loopback address 127.0.0.1, but GATEWAY_PUBLIC_URL https://mcp.example.edu is public"},
		{"supabase mode: a public URL derived from an internal SUPABASE_URL",
			map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_OAUTH_ISSUER": "https://project.supabase.co/auth/v1"},
			"GATEWAY_PUBLIC_URL must be the public URL clients reach the gateway at, or set GATEWAY_OAUTH_SERVER=off: http://kong:8000 has the single-label host kong"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.env)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestAdvertisedHostsAccepted: public names, a local stack that is local
// throughout, and set-ups that advertise nothing start.
func TestAdvertisedHostsAccepted(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
	}{
		{"gateway mode on hosted Supabase", gatewayEnv(nil)},
		{"gateway mode inside Docker with the public sign-in URL",
			gatewayEnv(map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_PUBLIC_URL": "https://api.example.edu", "GATEWAY_OAUTH_ISSUER": "https://api.example.edu/auth/v1"})},
		{"gateway mode on a local stack: loopback throughout",
			gatewayEnv(map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_PUBLIC_URL": "http://127.0.0.1:54321", "GATEWAY_OAUTH_ISSUER": "http://127.0.0.1:54321/auth/v1"})},
		{"gateway mode on localhost", gatewayEnv(map[string]string{"SUPABASE_URL": "http://localhost:54321", "GATEWAY_PUBLIC_URL": "http://localhost:54321"})},
		{"gateway mode on a private network", gatewayEnv(map[string]string{"SUPABASE_URL": "http://127.0.0.1:54321", "GATEWAY_PUBLIC_URL": "http://192.168.1.20:8000"})},
		{"supabase mode with a public issuer", map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_PUBLIC_URL": "https://project.supabase.co", "GATEWAY_OAUTH_ISSUER": "https://project.supabase.co/auth/v1"}},
		{"OAuth off", map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_OAUTH_SERVER": "off"}},
		{"mcp-server off", map[string]string{"SUPABASE_URL": "http://kong:8000", "MCP_SERVER_ENABLED": "false"}},
		{"no public URL", map[string]string{"GATEWAY_AUTH_URL": "http://auth:9999"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := load(tc.env); err != nil {
				t.Errorf("Load: %v", err)
			}
		})
	}
}

// TestAdvertisedHostsMalformedNotRepeated: a malformed URL has its own
// message only, not a second one about the default it fell back to.
func TestAdvertisedHostsMalformedNotRepeated(t *testing.T) {
	_, err := load(gatewayEnv(map[string]string{"SUPABASE_URL": "http://kong:8000", "GATEWAY_PUBLIC_URL": "https://x.example/?a", "GATEWAY_OAUTH_ISSUER": "auth/v1"}))
	want := strings.Join([]string{
		`GATEWAY_PUBLIC_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "https://x.example/?a")`,
		`GATEWAY_OAUTH_ISSUER must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "auth/v1")`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
