// Package config reads the gateway's environment once, at start-up, into a
// typed Config. It is the only package that looks at the process
// environment; main calls FromEnvironment and hands the parsed values to
// each package's Options.
//
// main calls FromEnvironment; tests call Load with a map-backed getenv.
//
// Two kinds of variable are treated differently on purpose:
//
//   - The gateway's own settings (GATEWAY_*, MCP_SERVER_ENABLED,
//     MCP_PIN_PROTOCOL_2024) are validated here. A malformed value stops
//     start-up with a message that names the variable and the expected form.
//   - The secrets and URLs the original Edge Functions read
//     (SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY, EDGE_FUNCTIONS_URL,
//     GITHUB_*, SENTRY_DSN) are kept as raw strings. The original answers
//     specific HTTP 500 messages at request time when they are missing
//     (docs/contract/protocol.md A7, B8), so the functions check them per
//     request and the process still starts.
//
// The two signing secrets are kept verbatim but checked here
// (secrets.go): MCP_JWT_SECRET (the HS256 secret of mcp_ tokens) and
// JWT_SECRET (the ES256 private JWK of the user JWTs, also parsed once into
// Config.SigningKey by gateway/signingkey, a leaf package and this
// package's only import from the project). Without a usable one every
// authenticated mcp-server request, and every token mcp-tokens issues,
// would fail, so a missing or malformed value stops start-up instead of
// answering 500 to each request (docs/compatibility.md). Their messages
// describe the defect and never quote the value.
//
// SUPABASE_URL sits in between: empty is allowed (request-time 500s, as the
// original), but a non-empty value must be an absolute http(s) URL, because
// the gateway derives its upstream URLs and its readiness probe from it at
// start-up and a typo would otherwise only show up as a 500 on every request.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/signingkey"
)

// Defaults for the gateway's own settings. docs/configuration.md lists the
// same values; config_test.go pins them.
const (
	DefaultListenAddr         = ":9000"
	DefaultBodyLimit          = 16 << 20 // 16 MiB: a generous outer bound; functions apply their own limits.
	DefaultUpstreamTimeout    = 10 * time.Second
	DefaultShutdownTimeout    = 25 * time.Second // below Kubernetes' 30 s grace period (set Docker's stop_grace_period to match)
	DefaultMaxStreams         = 1024
	DefaultMaxStreamsPerToken = 16 // mcp-remote alone opens four streams per start (docs/contract/protocol.md Part D)
)

// LogFormat selects the slog handler main builds.
type LogFormat string

// Log formats accepted by GATEWAY_LOG_FORMAT.
const (
	LogFormatJSON LogFormat = "json"
	LogFormatText LogFormat = "text"
)

// Config is the parsed environment. Zero values of the optional URL fields
// (nil) mean "not configured".
type Config struct {
	// Function settings, under the names the Supabase edge runtime uses,
	// kept raw (see package doc).

	// SupabaseURL is SUPABASE_URL, trailing slashes removed; nil when unset.
	SupabaseURL *url.URL
	// SupabaseURLRaw is SUPABASE_URL exactly as given ("" when unset).
	SupabaseURLRaw string
	// SupabaseAnonKey is SUPABASE_ANON_KEY.
	SupabaseAnonKey string
	// SupabaseServiceRoleKey is SUPABASE_SERVICE_ROLE_KEY.
	SupabaseServiceRoleKey string
	// MCPJWTSecret is MCP_JWT_SECRET, the HS256 secret for mcp_ API tokens,
	// verbatim; Load has checked that it has at least 32 UTF-16 code units.
	MCPJWTSecret string
	// JWTSecret is JWT_SECRET, the ES256 private JWK (JSON text) that signs
	// user JWTs; not Supabase's HS256 secret despite the name. Verbatim;
	// Load has checked that it is a usable key, or that it is empty and
	// nothing needs it (MCP_SERVER_ENABLED false, no GATEWAY_ISSUER_URL).
	JWTSecret string
	// SigningKey is JWT_SECRET parsed, once, by Load: the key gateway/userclient
	// signs user JWTs with. Nil when JWT_SECRET is empty.
	SigningKey *signingkey.Key
	// EdgeFunctionsURL is EDGE_FUNCTIONS_URL verbatim: the original
	// concatenates it as is (a trailing slash gives "//functions").
	EdgeFunctionsURL string
	// SentryDSN is SENTRY_DSN; empty disables error reporting.
	SentryDSN string
	// GitHubAppID is GITHUB_APP_ID verbatim.
	GitHubAppID string
	// GitHubPrivateKey is GITHUB_PRIVATE_KEY_STRING, PEM text.
	GitHubPrivateKey string
	// GitHubAPIURL is GITHUB_API_URL, the GitHub REST API root (GitHub
	// Enterprise, or a fake in tests); nil means https://api.github.com/.
	GitHubAPIURL *url.URL

	// Gateway settings.

	// ListenAddr is GATEWAY_LISTEN_ADDR, host:port for the HTTP listener.
	ListenAddr string
	// LogLevel is GATEWAY_LOG_LEVEL.
	LogLevel slog.Level
	// LogFormat is GATEWAY_LOG_FORMAT.
	LogFormat LogFormat
	// BodyLimit is GATEWAY_BODY_LIMIT in bytes.
	BodyLimit int64
	// UpstreamTimeout is GATEWAY_UPSTREAM_TIMEOUT, the deadline for one call
	// to PostgREST, Auth or GitHub, and for the readiness probe.
	UpstreamTimeout time.Duration
	// ShutdownTimeout is GATEWAY_SHUTDOWN_TIMEOUT, how long in-flight
	// requests may take to finish after SIGTERM.
	ShutdownTimeout time.Duration
	// PublicURL is GATEWAY_PUBLIC_URL (default: EDGE_FUNCTIONS_URL, then
	// SUPABASE_URL), trailing slashes removed; nil when none is set. It is
	// the only source of absolute URLs the gateway emits.
	PublicURL *url.URL
	// PostgRESTURL is GATEWAY_POSTGREST_URL (default <SUPABASE_URL>/rest/v1).
	PostgRESTURL *url.URL
	// AuthURL is GATEWAY_AUTH_URL (default <SUPABASE_URL>/auth/v1).
	AuthURL *url.URL
	// PostgRESTDirect and AuthDirect are true when GATEWAY_POSTGREST_URL or
	// GATEWAY_AUTH_URL is set: those reach the service directly, bypassing
	// the API gateway, so no apikey header is sent there.
	PostgRESTDirect, AuthDirect bool
	// MCPServerEnabled is MCP_SERVER_ENABLED.
	MCPServerEnabled bool
	// MaxStreams is GATEWAY_MAX_STREAMS, the cap on open SSE streams per
	// replica; 0 means unlimited.
	MaxStreams int
	// MaxStreamsPerToken is GATEWAY_MAX_STREAMS_PER_TOKEN; 0 means unlimited.
	MaxStreamsPerToken int
	// SSEKeepalive is GATEWAY_SSE_KEEPALIVE; 0 sends no keep-alive comments,
	// as the original.
	SSEKeepalive time.Duration
	// MetricsAddr is GATEWAY_METRICS_ADDR; empty disables the metrics
	// listener.
	MetricsAddr string
	// Profiling is GATEWAY_PPROF: when true (and MetricsAddr is set) the
	// metrics listener also serves net/http/pprof under /debug/pprof/.
	// Never served on the public listener.
	Profiling bool
	// FallbackURL is GATEWAY_FALLBACK_URL, the edge runtime that serves
	// functions this gateway does not know; nil answers them 404.
	FallbackURL *url.URL
	// AllowedOrigins is GATEWAY_ALLOWED_ORIGINS: the browser origins
	// mcp-server accepts, or ["*"] for every origin (the original's
	// behaviour). Unset is nil: mcp-server's default policy (the gateway's
	// and the project's own origins, and loopback pages over loopback).
	AllowedOrigins []string
	// PinProtocol2024 is MCP_PIN_PROTOCOL_2024: answer every initialize with
	// 2024-11-05, as the original does.
	PinProtocol2024 bool
	// OAuthIssuer is GATEWAY_OAUTH_ISSUER, the issuer of Supabase Auth
	// access tokens accepted from OAuth clients (default: AuthURL). Set it
	// when the gateway reaches Auth at an internal address while tokens
	// carry the public one (e.g. http://kong:8000 vs http://127.0.0.1:54321).
	OAuthIssuer string
	// OAuthServer is the gateway's own OAuth authorization server
	// (GATEWAY_OAUTH_SERVER and related settings, oauthserver.go).
	OAuthServer OAuthServer
	// OAuthLegacySecret is GATEWAY_OAUTH_LEGACY_JWT_SECRET: when set, HS256
	// access tokens signed with the project's legacy secret are accepted
	// too. Empty (the default) accepts only ES256/RS256 from the JWKS.
	OAuthLegacySecret string
	// RedactKeys is GATEWAY_REDACT_KEYS, comma-separated key fragments whose
	// values are scrubbed from tool output; empty uses the built-in list.
	RedactKeys []string
	// WriteTools is GATEWAY_WRITE_TOOLS=on: the write tools, each write
	// approved by a person on a gateway page (writetools.go). Default off.
	WriteTools bool
	// WriteMaxPending is GATEWAY_WRITE_MAX_PENDING: the proposals one
	// person may have waiting for approval at once. Default 20.
	WriteMaxPending int
	// WriteRetention is GATEWAY_WRITE_RETENTION: how long decided and
	// lapsed proposals are kept before they are purged. Default 720h.
	WriteRetention time.Duration
	// IssuerURL is GATEWAY_ISSUER_URL, trailing slashes removed; "" when
	// unset. When set, the user JWTs carry it as "iss" and the gateway
	// serves <path>/.well-known/openid-configuration and jwks.json, so the
	// project can trust the gateway as a third-party auth issuer.
	IssuerURL string
	// ToolCallsPerMinute is GATEWAY_TOOL_CALLS_PER_MINUTE: the tool calls
	// one connection may make per minute per replica; 0 is no limit.
	// Default DefaultToolCallsPerMinute (activity.go).
	ToolCallsPerMinute int
	// ActivityRecord is GATEWAY_ACTIVITY_RECORD=on: every tool call is
	// recorded in PostgreSQL and the Connections and class activity pages
	// are served (activity.go). Default off.
	ActivityRecord bool
	// ActivityRetention is GATEWAY_ACTIVITY_RETENTION: how long recorded
	// calls are kept before they are purged. Default 2160h (90 days).
	ActivityRetention time.Duration
}

// FromEnvironment is Load(os.Getenv): the one place the gateway reads the
// process environment.
func FromEnvironment() (Config, error) { return Load(os.Getenv) }

// ListenAddrFromEnvironment is LoadListenAddr(os.Getenv).
func ListenAddrFromEnvironment() (string, error) { return LoadListenAddr(os.Getenv) }

// LoadListenAddr parses only GATEWAY_LISTEN_ADDR (default :9000), as Load
// does: what `gateway healthcheck` needs to find the local listener. A
// container's health check runs with the serving process's environment,
// but a person trying it by hand need not set the rest of the
// configuration first.
func LoadListenAddr(getenv func(string) string) (string, error) {
	p := parser{getenv: getenv}
	addr := p.addr("GATEWAY_LISTEN_ADDR", DefaultListenAddr)
	return addr, errors.Join(p.errs...)
}

// Load parses the environment through getenv and returns every problem at
// once, joined, each naming its variable and the expected form.
func Load(getenv func(string) string) (Config, error) {
	p := parser{getenv: getenv}
	c := Config{
		SupabaseURLRaw:         getenv("SUPABASE_URL"),
		SupabaseAnonKey:        getenv("SUPABASE_ANON_KEY"),
		SupabaseServiceRoleKey: getenv("SUPABASE_SERVICE_ROLE_KEY"),
		MCPJWTSecret:           getenv("MCP_JWT_SECRET"),
		JWTSecret:              getenv("JWT_SECRET"),
		EdgeFunctionsURL:       getenv("EDGE_FUNCTIONS_URL"),
		SentryDSN:              getenv("SENTRY_DSN"),
		GitHubAppID:            getenv("GITHUB_APP_ID"),
		GitHubPrivateKey:       getenv("GITHUB_PRIVATE_KEY_STRING"),
	}
	c.SupabaseURL = p.baseURL("SUPABASE_URL", nil)
	c.GitHubAPIURL = p.baseURL("GITHUB_API_URL", nil)

	c.ListenAddr = p.addr("GATEWAY_LISTEN_ADDR", DefaultListenAddr)
	c.LogLevel = p.logLevel("GATEWAY_LOG_LEVEL")
	c.LogFormat = p.logFormat("GATEWAY_LOG_FORMAT")
	c.BodyLimit = p.size("GATEWAY_BODY_LIMIT", DefaultBodyLimit)
	c.UpstreamTimeout = p.duration("GATEWAY_UPSTREAM_TIMEOUT", DefaultUpstreamTimeout, false)
	c.ShutdownTimeout = p.duration("GATEWAY_SHUTDOWN_TIMEOUT", DefaultShutdownTimeout, false)

	p.urls(&c)

	c.MCPServerEnabled = p.boolean("MCP_SERVER_ENABLED", true)
	c.MaxStreams = p.count("GATEWAY_MAX_STREAMS", DefaultMaxStreams)
	c.MaxStreamsPerToken = p.count("GATEWAY_MAX_STREAMS_PER_TOKEN", DefaultMaxStreamsPerToken)
	c.SSEKeepalive = p.duration("GATEWAY_SSE_KEEPALIVE", 0, true)
	c.MetricsAddr = p.addr("GATEWAY_METRICS_ADDR", "")
	c.Profiling = p.boolean("GATEWAY_PPROF", false)
	c.FallbackURL = p.baseURL("GATEWAY_FALLBACK_URL", nil)
	c.AllowedOrigins = p.origins("GATEWAY_ALLOWED_ORIGINS")
	c.PinProtocol2024 = p.boolean("MCP_PIN_PROTOCOL_2024", false)
	c.OAuthLegacySecret = getenv("GATEWAY_OAUTH_LEGACY_JWT_SECRET")
	if iss := p.baseURL("GATEWAY_OAUTH_ISSUER", c.AuthURL); iss != nil {
		c.OAuthIssuer = iss.String()
	}
	if iss := p.baseURL("GATEWAY_ISSUER_URL", nil); iss != nil {
		c.IssuerURL = iss.String()
	}
	for _, k := range strings.Split(p.lookup("GATEWAY_REDACT_KEYS"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.RedactKeys = append(c.RedactKeys, k)
		}
	}

	p.secrets(&c)
	c.OAuthServer = p.oauthServer(&c)
	p.advertisedHosts(&c)
	c.WriteTools = p.writeTools(&c)
	c.WriteMaxPending, c.WriteRetention = p.writeLimits()
	c.ToolCallsPerMinute = p.toolCallsPerMinute()
	c.ActivityRecord = p.activityRecord(&c)
	c.ActivityRetention = p.activityRetention()

	if c.MetricsAddr != "" && c.MetricsAddr == c.ListenAddr {
		p.fail("GATEWAY_METRICS_ADDR", "must differ from GATEWAY_LISTEN_ADDR (metrics are never served on the public listener)")
	}
	if c.Profiling && c.MetricsAddr == "" {
		p.fail("GATEWAY_PPROF", "needs GATEWAY_METRICS_ADDR (profiles are served only on the metrics listener)")
	}
	if err := errors.Join(p.errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// urls reads the URLs the gateway serves and calls. The public URL
// defaults to what the original would have used for the same purpose; it
// is never taken from request headers.
func (p *parser) urls(c *Config) {
	var publicDefault *url.URL
	if c.EdgeFunctionsURL != "" {
		if u, err := parseBaseURL(c.EdgeFunctionsURL); err == nil {
			publicDefault = u
		}
	}
	if publicDefault == nil {
		publicDefault = c.SupabaseURL
	}
	c.PublicURL = p.baseURL("GATEWAY_PUBLIC_URL", publicDefault)
	c.PostgRESTURL = p.baseURL("GATEWAY_POSTGREST_URL", join(c.SupabaseURL, "/rest/v1"))
	c.AuthURL = p.baseURL("GATEWAY_AUTH_URL", join(c.SupabaseURL, "/auth/v1"))
	c.PostgRESTDirect = p.lookup("GATEWAY_POSTGREST_URL") != ""
	c.AuthDirect = p.lookup("GATEWAY_AUTH_URL") != ""
}

// parser collects one error per malformed variable.
type parser struct {
	getenv func(string) string
	errs   []error
}

func (p *parser) fail(name, expected string) {
	p.errs = append(p.errs, fmt.Errorf("%s %s", name, expected))
}

// lookup returns the trimmed value; surrounding blanks are a common
// copy-paste accident in env files and never meaningful in a setting.
func (p *parser) lookup(name string) string { return strings.TrimSpace(p.getenv(name)) }

func (p *parser) addr(name, def string) string {
	v := p.lookup(name)
	if v == "" {
		return def
	}
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		p.fail(name, fmt.Sprintf("must be host:port or :port, e.g. :9000 (got %q)", v))
		return def
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		p.fail(name, fmt.Sprintf("must have a numeric port from 0 to 65535 (got %q)", v))
		return def
	}
	return v
}

func (p *parser) logLevel(name string) slog.Level {
	switch v := strings.ToLower(p.lookup(name)); v {
	case "", "info":
		return slog.LevelInfo
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	default:
		p.fail(name, fmt.Sprintf("must be one of debug, info, warn, error (got %q)", p.lookup(name)))
		return slog.LevelInfo
	}
}

func (p *parser) logFormat(name string) LogFormat {
	switch v := strings.ToLower(p.lookup(name)); v {
	case "", "json":
		return LogFormatJSON
	case "text":
		return LogFormatText
	default:
		p.fail(name, fmt.Sprintf("must be json or text (got %q)", p.lookup(name)))
		return LogFormatJSON
	}
}

// sizeUnits maps the accepted suffixes to multipliers. Both SI and IEC
// spellings are accepted because both appear in operators' habits; they
// mean what they say (1MB = 10^6 bytes, 1MiB = 2^20 bytes).
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	// Longest suffixes first so "MiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

func (p *parser) size(name string, def int64) int64 {
	v := p.lookup(name)
	if v == "" {
		return def
	}
	n, ok := parseSize(v)
	if !ok {
		p.fail(name, fmt.Sprintf("must be a positive byte count such as 1048576, 512KiB, 4MiB or 10MB (got %q)", v))
		return def
	}
	return n
}

// parseSize reads "<digits>[unit]". Fractions are refused: "1.5MiB" is
// rare and ambiguous about rounding.
func parseSize(v string) (int64, bool) {
	lower := strings.ToLower(v)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(lower, u.suffix) {
			lower = strings.TrimSpace(strings.TrimSuffix(lower, u.suffix))
			mult = u.mult
			break
		}
	}
	n, err := strconv.ParseInt(lower, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}

func (p *parser) duration(name string, def time.Duration, zeroOK bool) time.Duration {
	v := p.lookup(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil, d < 0, d == 0 && !zeroOK:
		if zeroOK {
			p.fail(name, fmt.Sprintf("must be a duration such as 15s or 1m, or 0 to turn it off (got %q)", v))
		} else {
			p.fail(name, fmt.Sprintf("must be a positive duration such as 10s or 1m30s (got %q)", v))
		}
		return def
	}
	return d
}

func (p *parser) boolean(name string, def bool) bool {
	v := p.lookup(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(name, fmt.Sprintf("must be true or false (got %q)", v))
		return def
	}
	return b
}

func (p *parser) count(name string, def int) int {
	v := p.lookup(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		p.fail(name, fmt.Sprintf("must be a whole number, 0 for unlimited (got %q)", v))
		return def
	}
	return n
}

func (p *parser) baseURL(name string, def *url.URL) *url.URL {
	v := p.lookup(name)
	if v == "" {
		return def
	}
	u, err := parseBaseURL(v)
	if err != nil {
		p.fail(name, fmt.Sprintf("must be an absolute http or https URL without query or fragment, e.g. https://project.supabase.co (got %q)", v))
		return def
	}
	return u
}

// parseBaseURL accepts an absolute http(s) URL with a host and no query,
// fragment or credentials, and drops trailing slashes so callers can append
// paths.
func parseBaseURL(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, errors.New("not a base URL")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// join returns base with suffix appended to its path, or nil for nil.
func join(base *url.URL, suffix string) *url.URL {
	if base == nil {
		return nil
	}
	u := *base
	u.Path += suffix
	return &u
}

func (p *parser) origins(name string) []string {
	v := p.lookup(name)
	if v == "" {
		return nil
	}
	var out []string
	bad := false
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
				(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
				p.fail(name, fmt.Sprintf("must be * or a comma-separated list of origins such as https://app.example.edu (got %q)", o))
				bad = true
				continue
			}
			o = u.Scheme + "://" + u.Host
		}
		out = append(out, o)
	}
	if bad {
		return []string{"*"}
	}
	if len(out) == 0 {
		p.fail(name, fmt.Sprintf("must be * or a comma-separated list of origins such as https://app.example.edu (got %q)", v))
		return []string{"*"}
	}
	return out
}
