package config

import (
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// defaults is the Config that an environment holding only the two
// required secrets (secretsEnv) produces.
func defaults() Config {
	return Config{
		MCPJWTSecret:       testMCPSecret,
		JWTSecret:          testSigningJWK,
		SigningKey:         testSigningKey,
		ListenAddr:         ":9000",
		LogLevel:           slog.LevelInfo,
		LogFormat:          LogFormatJSON,
		BodyLimit:          16 << 20,
		UpstreamTimeout:    10 * time.Second,
		ShutdownTimeout:    25 * time.Second,
		MCPServerEnabled:   true,
		MaxStreams:         1024,
		MaxStreamsPerToken: 16,
		OAuthServer:        OAuthServer{Mode: OAuthServerSupabase, Providers: []string{"github"}, ProvidersDefault: true, AccessTokenTTL: time.Hour},
		WriteMaxPending:    20,
		WriteRetention:     30 * 24 * time.Hour,
		ToolCallsPerMinute: 120,
		ActivityRetention:  90 * 24 * time.Hour,
	}
}

// load is Load of secretsEnv overlaid with env; an entry "" in env unsets
// the variable.
func load(env map[string]string) (Config, error) {
	all := secretsEnv()
	for k, v := range env {
		all[k] = v
	}
	return Load(func(k string) string { return all[k] })
}

var cmpURL = cmp.Comparer(func(a, b *url.URL) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
})

func TestLoadValid(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		modify func(t *testing.T, c *Config)
	}{
		{"only the required secrets give the defaults", nil, func(*testing.T, *Config) {}},
		{
			"function settings are kept verbatim",
			map[string]string{
				"SUPABASE_ANON_KEY":         " anon ",
				"SUPABASE_SERVICE_ROLE_KEY": "service",
				"MCP_JWT_SECRET":            " " + testMCPSecret + " ",
				"JWT_SECRET":                testSigningJWK + "\n",
				"EDGE_FUNCTIONS_URL":        "not a url",
				"SENTRY_DSN":                "https://k@sentry.example/1",
				"GITHUB_APP_ID":             "abc",
				"GITHUB_PRIVATE_KEY_STRING": "-----BEGIN PRIVATE KEY-----",
			},
			func(_ *testing.T, c *Config) {
				c.SupabaseAnonKey = " anon "
				c.SupabaseServiceRoleKey = "service"
				c.MCPJWTSecret = " " + testMCPSecret + " "
				c.JWTSecret = testSigningJWK + "\n"
				c.EdgeFunctionsURL = "not a url"
				c.SentryDSN = "https://k@sentry.example/1"
				c.GitHubAppID = "abc"
				c.GitHubPrivateKey = "-----BEGIN PRIVATE KEY-----"
			},
		},
		{
			"SUPABASE_URL derives public, PostgREST and Auth URLs",
			// OAuth off: it would advertise the internal host kong.
			map[string]string{"SUPABASE_URL": "http://kong:8000/", "GATEWAY_OAUTH_SERVER": "off"},
			func(t *testing.T, c *Config) {
				c.OAuthServer.Mode = OAuthServerOff
				c.SupabaseURLRaw = "http://kong:8000/"
				c.SupabaseURL = mustURL(t, "http://kong:8000")
				c.PublicURL = mustURL(t, "http://kong:8000")
				c.PostgRESTURL = mustURL(t, "http://kong:8000/rest/v1")
				c.AuthURL = mustURL(t, "http://kong:8000/auth/v1")
				c.OAuthIssuer = "http://kong:8000/auth/v1"
			},
		},
		{
			"EDGE_FUNCTIONS_URL beats SUPABASE_URL as the public URL",
			map[string]string{"SUPABASE_URL": "http://kong:8000", "EDGE_FUNCTIONS_URL": "https://api.example.edu/", "GATEWAY_OAUTH_SERVER": "off"},
			func(t *testing.T, c *Config) {
				c.OAuthServer.Mode = OAuthServerOff
				c.SupabaseURLRaw = "http://kong:8000"
				c.EdgeFunctionsURL = "https://api.example.edu/"
				c.SupabaseURL = mustURL(t, "http://kong:8000")
				c.PublicURL = mustURL(t, "https://api.example.edu")
				c.PostgRESTURL = mustURL(t, "http://kong:8000/rest/v1")
				c.AuthURL = mustURL(t, "http://kong:8000/auth/v1")
				c.OAuthIssuer = "http://kong:8000/auth/v1"
			},
		},
		{
			"explicit upstreams and public URL win",
			map[string]string{
				"SUPABASE_URL":          "http://kong:8000",
				"GATEWAY_PUBLIC_URL":    "https://project.supabase.co",
				"GATEWAY_POSTGREST_URL": "http://rest:3000/",
				"GATEWAY_AUTH_URL":      "http://auth:9999",
				"GATEWAY_OAUTH_SERVER":  "off",
			},
			func(t *testing.T, c *Config) {
				c.OAuthServer.Mode = OAuthServerOff
				c.SupabaseURLRaw = "http://kong:8000"
				c.SupabaseURL = mustURL(t, "http://kong:8000")
				c.PublicURL = mustURL(t, "https://project.supabase.co")
				c.PostgRESTURL = mustURL(t, "http://rest:3000")
				c.AuthURL = mustURL(t, "http://auth:9999")
				c.OAuthIssuer = "http://auth:9999"
				c.PostgRESTDirect = true
				c.AuthDirect = true
			},
		},
		{
			"OAuth issuer, legacy secret and redaction keys",
			map[string]string{
				"SUPABASE_URL":                    "http://kong:8000",
				"GATEWAY_PUBLIC_URL":              "http://127.0.0.1:54321",
				"GATEWAY_OAUTH_ISSUER":            "http://127.0.0.1:54321/auth/v1/",
				"GATEWAY_OAUTH_LEGACY_JWT_SECRET": "legacy-secret",
				"GATEWAY_REDACT_KEYS":             " token, ssn ,,",
			},
			func(t *testing.T, c *Config) {
				c.SupabaseURLRaw = "http://kong:8000"
				c.SupabaseURL = mustURL(t, "http://kong:8000")
				c.PublicURL = mustURL(t, "http://127.0.0.1:54321")
				c.PostgRESTURL = mustURL(t, "http://kong:8000/rest/v1")
				c.AuthURL = mustURL(t, "http://kong:8000/auth/v1")
				c.OAuthIssuer = "http://127.0.0.1:54321/auth/v1"
				c.OAuthLegacySecret = "legacy-secret"
				c.RedactKeys = []string{"token", "ssn"}
			},
		},
		{
			"every gateway setting",
			map[string]string{
				"GATEWAY_LISTEN_ADDR":           "127.0.0.1:8080",
				"GATEWAY_LOG_LEVEL":             "DEBUG",
				"GATEWAY_LOG_FORMAT":            "text",
				"GATEWAY_BODY_LIMIT":            "4MiB",
				"GATEWAY_UPSTREAM_TIMEOUT":      "3s",
				"GATEWAY_SHUTDOWN_TIMEOUT":      "1m",
				"MCP_SERVER_ENABLED":            "false",
				"GATEWAY_MAX_STREAMS":           "0",
				"GATEWAY_MAX_STREAMS_PER_TOKEN": "4",
				"GATEWAY_SSE_KEEPALIVE":         "15s",
				"GATEWAY_METRICS_ADDR":          ":9100",
				"GATEWAY_FALLBACK_URL":          "http://functions:9000",
				"GATEWAY_ALLOWED_ORIGINS":       "https://app.example.edu/, http://localhost:3000",
				"MCP_PIN_PROTOCOL_2024":         "1",
			},
			func(t *testing.T, c *Config) {
				c.ListenAddr = "127.0.0.1:8080"
				c.LogLevel = slog.LevelDebug
				c.LogFormat = LogFormatText
				c.BodyLimit = 4 << 20
				c.UpstreamTimeout = 3 * time.Second
				c.ShutdownTimeout = time.Minute
				c.MCPServerEnabled = false
				c.MaxStreams = 0
				c.MaxStreamsPerToken = 4
				c.SSEKeepalive = 15 * time.Second
				c.MetricsAddr = ":9100"
				c.FallbackURL = mustURL(t, "http://functions:9000")
				c.AllowedOrigins = []string{"https://app.example.edu", "http://localhost:3000"}
				c.PinProtocol2024 = true
			},
		},
		{"log level warn", map[string]string{"GATEWAY_LOG_LEVEL": "warn"}, func(_ *testing.T, c *Config) { c.LogLevel = slog.LevelWarn }},
		{"log level error", map[string]string{"GATEWAY_LOG_LEVEL": "error"}, func(_ *testing.T, c *Config) { c.LogLevel = slog.LevelError }},
		{"body limit in plain bytes", map[string]string{"GATEWAY_BODY_LIMIT": "1048576"}, func(_ *testing.T, c *Config) { c.BodyLimit = 1 << 20 }},
		{"body limit in SI megabytes", map[string]string{"GATEWAY_BODY_LIMIT": "10MB"}, func(_ *testing.T, c *Config) { c.BodyLimit = 10_000_000 }},
		{"body limit with a space and KiB", map[string]string{"GATEWAY_BODY_LIMIT": "512 KiB"}, func(_ *testing.T, c *Config) { c.BodyLimit = 512 << 10 }},
		{"body limit echo-style 2M", map[string]string{"GATEWAY_BODY_LIMIT": "2M"}, func(_ *testing.T, c *Config) { c.BodyLimit = 2 << 20 }},
		{"keepalive 0 is off", map[string]string{"GATEWAY_SSE_KEEPALIVE": "0"}, func(_ *testing.T, c *Config) { c.SSEKeepalive = 0 }},
		{"surrounding blanks are ignored", map[string]string{"GATEWAY_LISTEN_ADDR": " :8000 "}, func(_ *testing.T, c *Config) { c.ListenAddr = ":8000" }},
		{"GitHub API URL", map[string]string{"GITHUB_API_URL": "https://ghe.example.edu/api/v3/"}, func(t *testing.T, c *Config) { c.GitHubAPIURL = mustURL(t, "https://ghe.example.edu/api/v3") }},
		{"issuer URL", map[string]string{"GATEWAY_ISSUER_URL": " https://project.supabase.co/functions/v1/mcp-server/oidc/ "}, func(_ *testing.T, c *Config) {
			c.IssuerURL = "https://project.supabase.co/functions/v1/mcp-server/oidc"
		}},
		{"issuer URL at a host's root", map[string]string{"GATEWAY_ISSUER_URL": "https://mcp.example.edu"}, func(_ *testing.T, c *Config) { c.IssuerURL = "https://mcp.example.edu" }},
		{"pprof on the metrics listener", map[string]string{"GATEWAY_METRICS_ADDR": "127.0.0.1:9100", "GATEWAY_PPROF": "true"}, func(_ *testing.T, c *Config) {
			c.MetricsAddr = "127.0.0.1:9100"
			c.Profiling = true
		}},
		{"wildcard origin spelled out", map[string]string{"GATEWAY_ALLOWED_ORIGINS": "*"}, func(_ *testing.T, c *Config) { c.AllowedOrigins = []string{"*"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load(tt.env)
			if err != nil {
				t.Fatalf("Load: unexpected error: %v", err)
			}
			want := defaults()
			tt.modify(t, &want)
			if diff := cmp.Diff(want, got, cmpURL); diff != "" {
				t.Errorf("Load mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadMalformed(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"SUPABASE_URL not http", map[string]string{"SUPABASE_URL": "ftp://x"},
			`SUPABASE_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "ftp://x")`},
		{"SUPABASE_URL relative", map[string]string{"SUPABASE_URL": "kong:8000"},
			`SUPABASE_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "kong:8000")`},
		{"GATEWAY_LISTEN_ADDR without port", map[string]string{"GATEWAY_LISTEN_ADDR": "9000"},
			`GATEWAY_LISTEN_ADDR must be host:port or :port, e.g. :9000 (got "9000")`},
		{"GATEWAY_LISTEN_ADDR bad port", map[string]string{"GATEWAY_LISTEN_ADDR": ":http"},
			`GATEWAY_LISTEN_ADDR must have a numeric port from 0 to 65535 (got ":http")`},
		{"GATEWAY_LOG_LEVEL", map[string]string{"GATEWAY_LOG_LEVEL": "verbose"},
			`GATEWAY_LOG_LEVEL must be one of debug, info, warn, error (got "verbose")`},
		{"GATEWAY_LOG_FORMAT", map[string]string{"GATEWAY_LOG_FORMAT": "logfmt"},
			`GATEWAY_LOG_FORMAT must be json or text (got "logfmt")`},
		{"GATEWAY_BODY_LIMIT fraction", map[string]string{"GATEWAY_BODY_LIMIT": "1.5MiB"},
			`GATEWAY_BODY_LIMIT must be a positive byte count such as 1048576, 512KiB, 4MiB or 10MB (got "1.5MiB")`},
		{"GATEWAY_BODY_LIMIT zero", map[string]string{"GATEWAY_BODY_LIMIT": "0"},
			`GATEWAY_BODY_LIMIT must be a positive byte count such as 1048576, 512KiB, 4MiB or 10MB (got "0")`},
		{"GATEWAY_BODY_LIMIT unknown unit", map[string]string{"GATEWAY_BODY_LIMIT": "4TB"},
			`GATEWAY_BODY_LIMIT must be a positive byte count such as 1048576, 512KiB, 4MiB or 10MB (got "4TB")`},
		{"GATEWAY_UPSTREAM_TIMEOUT without unit", map[string]string{"GATEWAY_UPSTREAM_TIMEOUT": "10"},
			`GATEWAY_UPSTREAM_TIMEOUT must be a positive duration such as 10s or 1m30s (got "10")`},
		{"GATEWAY_UPSTREAM_TIMEOUT zero", map[string]string{"GATEWAY_UPSTREAM_TIMEOUT": "0s"},
			`GATEWAY_UPSTREAM_TIMEOUT must be a positive duration such as 10s or 1m30s (got "0s")`},
		{"GATEWAY_SHUTDOWN_TIMEOUT negative", map[string]string{"GATEWAY_SHUTDOWN_TIMEOUT": "-1s"},
			`GATEWAY_SHUTDOWN_TIMEOUT must be a positive duration such as 10s or 1m30s (got "-1s")`},
		{"GATEWAY_PUBLIC_URL with query", map[string]string{"GATEWAY_PUBLIC_URL": "https://x.example/?a=1"},
			`GATEWAY_PUBLIC_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "https://x.example/?a=1")`},
		{"GATEWAY_POSTGREST_URL", map[string]string{"GATEWAY_POSTGREST_URL": "rest:3000"},
			`GATEWAY_POSTGREST_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "rest:3000")`},
		{"GATEWAY_AUTH_URL with credentials", map[string]string{"GATEWAY_AUTH_URL": "http://u:p@auth:9999"},
			`GATEWAY_AUTH_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "http://u:p@auth:9999")`},
		{"MCP_SERVER_ENABLED", map[string]string{"MCP_SERVER_ENABLED": "yes"},
			`MCP_SERVER_ENABLED must be true or false (got "yes")`},
		{"GATEWAY_MAX_STREAMS negative", map[string]string{"GATEWAY_MAX_STREAMS": "-1"},
			`GATEWAY_MAX_STREAMS must be a whole number, 0 for unlimited (got "-1")`},
		{"GATEWAY_MAX_STREAMS_PER_TOKEN", map[string]string{"GATEWAY_MAX_STREAMS_PER_TOKEN": "many"},
			`GATEWAY_MAX_STREAMS_PER_TOKEN must be a whole number, 0 for unlimited (got "many")`},
		{"GATEWAY_SSE_KEEPALIVE", map[string]string{"GATEWAY_SSE_KEEPALIVE": "often"},
			`GATEWAY_SSE_KEEPALIVE must be a duration such as 15s or 1m, or 0 to turn it off (got "often")`},
		{"GATEWAY_METRICS_ADDR", map[string]string{"GATEWAY_METRICS_ADDR": "metrics"},
			`GATEWAY_METRICS_ADDR must be host:port or :port, e.g. :9000 (got "metrics")`},
		{"GATEWAY_METRICS_ADDR equal to the listener", map[string]string{"GATEWAY_METRICS_ADDR": ":9000"},
			`GATEWAY_METRICS_ADDR must differ from GATEWAY_LISTEN_ADDR (metrics are never served on the public listener)`},
		{"GATEWAY_PPROF not a boolean", map[string]string{"GATEWAY_METRICS_ADDR": ":9100", "GATEWAY_PPROF": "yes please"},
			`GATEWAY_PPROF must be true or false (got "yes please")`},
		{"GATEWAY_PPROF without a metrics listener", map[string]string{"GATEWAY_PPROF": "true"},
			`GATEWAY_PPROF needs GATEWAY_METRICS_ADDR (profiles are served only on the metrics listener)`},
		{"GITHUB_API_URL", map[string]string{"GITHUB_API_URL": "api.github.com"},
			`GITHUB_API_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "api.github.com")`},
		{"GATEWAY_OAUTH_ISSUER", map[string]string{"GATEWAY_OAUTH_ISSUER": "auth/v1"},
			`GATEWAY_OAUTH_ISSUER must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "auth/v1")`},
		{"GATEWAY_ISSUER_URL relative", map[string]string{"GATEWAY_ISSUER_URL": "/functions/v1/mcp-server/oidc"},
			`GATEWAY_ISSUER_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "/functions/v1/mcp-server/oidc")`},
		{"GATEWAY_ISSUER_URL with a fragment", map[string]string{"GATEWAY_ISSUER_URL": "https://x.example/oidc#k"},
			`GATEWAY_ISSUER_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "https://x.example/oidc#k")`},
		{"GATEWAY_FALLBACK_URL", map[string]string{"GATEWAY_FALLBACK_URL": "functions:9000"},
			`GATEWAY_FALLBACK_URL must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got "functions:9000")`},
		{"GATEWAY_ALLOWED_ORIGINS with a path", map[string]string{"GATEWAY_ALLOWED_ORIGINS": "https://a.example/app"},
			`GATEWAY_ALLOWED_ORIGINS must be * or a comma-separated list of origins such as https://app.example.edu (got "https://a.example/app")`},
		{"GATEWAY_ALLOWED_ORIGINS only commas", map[string]string{"GATEWAY_ALLOWED_ORIGINS": ", ,"},
			`GATEWAY_ALLOWED_ORIGINS must be * or a comma-separated list of origins such as https://app.example.edu (got ", ,")`},
		{"MCP_PIN_PROTOCOL_2024", map[string]string{"MCP_PIN_PROTOCOL_2024": "on"},
			`MCP_PIN_PROTOCOL_2024 must be true or false (got "on")`},
		{
			"every problem is reported at once, in a stable order",
			map[string]string{"GATEWAY_LOG_LEVEL": "loud", "GATEWAY_BODY_LIMIT": "big", "MCP_SERVER_ENABLED": "maybe"},
			strings.Join([]string{
				`GATEWAY_LOG_LEVEL must be one of debug, info, warn, error (got "loud")`,
				`GATEWAY_BODY_LIMIT must be a positive byte count such as 1048576, 512KiB, 4MiB or 10MB (got "big")`,
				`MCP_SERVER_ENABLED must be true or false (got "maybe")`,
			}, "\n"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load(tt.env)
			if err == nil {
				t.Fatalf("Load: got no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Load error:\n got: %s\nwant: %s", err, tt.want)
			}
			if diff := cmp.Diff(Config{}, got, cmpURL); diff != "" {
				t.Errorf("Load returned a partial Config on error (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseSize checks that any GATEWAY_BODY_LIMIT text either fails or
// yields a positive byte count that cannot overflow later arithmetic.
func FuzzParseSize(f *testing.F) {
	for _, seed := range []string{"1", "4MiB", "10MB", "512 KiB", "2M", "9223372036854775807", "4611686018427387904gib", "-1", "1.5M", "GiB"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		n, ok := parseSize(v)
		if ok && (n <= 0 || n > 1<<62) {
			t.Fatalf("parseSize(%q) = %d, true; want 0 < n <= 2^62", v, n)
		}
		if !ok && n != 0 {
			t.Fatalf("parseSize(%q) = %d, false; want 0 on failure", v, n)
		}
	})
}

// TestLoadListenAddr: the healthcheck's one setting parses as Load parses
// it, and nothing else is read.
func TestLoadListenAddr(t *testing.T) {
	read := map[string]bool{}
	for _, tt := range []struct{ value, want, err string }{
		{"", ":9000", ""},
		{"127.0.0.1:8080", "127.0.0.1:8080", ""},
		{"9000", "", `GATEWAY_LISTEN_ADDR must be host:port or :port, e.g. :9000 (got "9000")`},
	} {
		got, err := LoadListenAddr(func(name string) string {
			read[name] = true
			if name == "GATEWAY_LISTEN_ADDR" {
				return tt.value
			}
			return ""
		})
		if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) || (tt.err == "" && got != tt.want) {
			t.Errorf("GATEWAY_LISTEN_ADDR=%q: %q, %v; want %q, %q", tt.value, got, err, tt.want, tt.err)
		}
	}
	if len(read) != 1 {
		t.Errorf("read %v, want only GATEWAY_LISTEN_ADDR", read)
	}
}
