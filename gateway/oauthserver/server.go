package oauthserver

import (
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/pawtograder/mcp-gateway/gateway/supabasesignin"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// Defaults for Options.
const (
	DefaultAccessTokenTTL     = time.Hour
	DefaultGrantTTL           = 30 * 24 * time.Hour
	DefaultCodeTTL            = 60 * time.Second
	DefaultPendingTTL         = 10 * time.Minute
	DefaultCIMDTimeout        = 5 * time.Second
	DefaultRegisterPerMinute  = 20
	DefaultAuthorizePerMinute = 60
	DefaultFailedPerMinute    = 600
	DefaultRefreshPerMinute   = 10
	maxFormBytes              = 16 << 10
	maxStateLen               = 1024
)

// Minter signs an mcp_ access token: mcpauth.MintAPIToken with the
// configured MCP_JWT_SECRET, so OAuth access tokens are ordinary API
// tokens to every verifier.
type Minter func(sub string, scopes []string, tokenID string, days float64, now time.Time) (string, error)

// Options configures the authorization server.
type Options struct {
	// Issuer is the authorization server's issuer URL, built from
	// GATEWAY_PUBLIC_URL: <public>/functions/v1/mcp-server/oauth. Every
	// endpoint URL is derived from it.
	Issuer string
	// ResourceURL is the MCP endpoint; a resource parameter (RFC 8707)
	// must equal it.
	ResourceURL string
	// Secrets are GATEWAY_OAUTH_SECRET's values (first signs, all verify).
	Secrets []string
	// AuthURL is where the gateway reaches Supabase Auth (…/auth/v1).
	AuthURL string
	// AuthPublicURL is where browsers reach Supabase Auth (default AuthURL).
	AuthPublicURL string
	// AnonKey is sent as apikey to Supabase Auth.
	AnonKey string
	// Providers are the Supabase Auth providers offered for sign-in.
	Providers []string
	Store     Store
	Mint      Minter
	// Verify checks an access token and returns its jti (for revocation):
	// mcpauth.VerifyAPIToken with MCP_JWT_SECRET. Optional.
	Verify func(token string, now time.Time) (tokenID string, err error)
	// HTTPClient reaches Supabase Auth.
	HTTPClient *http.Client

	AccessTokenTTL time.Duration // default 1 h
	GrantTTL       time.Duration // lifetime of a grant and its refresh tokens; default 30 days
	CodeTTL        time.Duration // default 60 s
	PendingTTL     time.Duration // sign-in plus consent; default 10 min

	// TrustedProxies are the peers whose X-Forwarded-For is believed
	// (none: the peer address is the client's).
	TrustedProxies []netip.Prefix
	// Limits per minute and per replica, as token buckets that refill
	// evenly and hold a minute's worth; 0 means the default, <0 no limit.
	// Registration and authorization count per client address (a
	// person's browser or machine). Token and revocation requests that
	// find nothing (an unknown, used or expired code, an unknown, revoked
	// or another client's token) count per client and address together:
	// a client_id is public, so a count per client alone could be spent
	// by anyone for all its users, and a host such as claude.ai sends
	// every user's requests from a few shared addresses, so a count per
	// address alone would make its users share one budget. Refreshes that
	// find their grant count per grant (one refresh-token family).
	RegisterPerMinute  int
	AuthorizePerMinute int
	FailedPerMinute    int
	RefreshPerMinute   int

	// AllowPrivateCIMD lets metadata documents live on private and
	// loopback addresses. Tests only.
	AllowPrivateCIMD bool
	CIMDTimeout      time.Duration
	// CIMDTLS overrides the TLS configuration of document fetches (tests).
	CIMDTLS *tls.Config

	Logger *slog.Logger
	Now    func() time.Time
}

// Server is the authorization server.
type Server struct {
	opts     Options
	log      *slog.Logger
	keys     *keyring
	cimd     *cimdFetcher
	issuer   *url.URL
	secure   bool
	supabase supabasesignin.Auth
	metadata []byte
	oidc     []byte

	registerLimit  *limiter
	authorizeLimit *limiter
	failLimit      *limiter // token and revocation requests that find nothing, per (client, address)
	refreshLimit   *limiter // per grant
	extractIP      echo.IPExtractor
}

// New validates opts.
func New(opts Options) (*Server, error) {
	iss, err := url.Parse(opts.Issuer)
	if err != nil || (iss.Scheme != "https" && iss.Scheme != "http") || iss.Host == "" || iss.RawQuery != "" || iss.Fragment != "" {
		return nil, errors.New("oauthserver: Issuer must be an absolute http(s) URL without query or fragment")
	}
	opts.Issuer = strings.TrimRight(opts.Issuer, "/")
	if opts.ResourceURL == "" || opts.AuthURL == "" || opts.Store == nil || opts.Mint == nil {
		return nil, errors.New("oauthserver: ResourceURL, AuthURL, Store and Mint are required")
	}
	if len(opts.Providers) == 0 {
		return nil, errors.New("oauthserver: at least one sign-in provider is required")
	}
	keys, err := newKeyring(opts.Secrets)
	if err != nil {
		return nil, err
	}
	opts.AuthURL = strings.TrimRight(opts.AuthURL, "/")
	if opts.AuthPublicURL == "" {
		opts.AuthPublicURL = opts.AuthURL
	}
	opts.AuthPublicURL = strings.TrimRight(opts.AuthPublicURL, "/")
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.AccessTokenTTL, DefaultAccessTokenTTL)
	def(&opts.GrantTTL, DefaultGrantTTL)
	def(&opts.CodeTTL, DefaultCodeTTL)
	def(&opts.PendingTTL, DefaultPendingTTL)
	def(&opts.CIMDTimeout, DefaultCIMDTimeout)
	defN := func(n *int, v int) {
		if *n == 0 {
			*n = v
		}
	}
	defN(&opts.RegisterPerMinute, DefaultRegisterPerMinute)
	defN(&opts.AuthorizePerMinute, DefaultAuthorizePerMinute)
	defN(&opts.FailedPerMinute, DefaultFailedPerMinute)
	defN(&opts.RefreshPerMinute, DefaultRefreshPerMinute)
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{
		supabase:       supabasesignin.Auth{URL: opts.AuthURL, PublicURL: opts.AuthPublicURL, AnonKey: opts.AnonKey, HTTP: opts.HTTPClient},
		opts:           opts,
		log:            opts.Logger,
		keys:           keys,
		issuer:         iss,
		secure:         iss.Scheme == "https",
		cimd:           newCIMDFetcher(opts.CIMDTimeout, opts.AllowPrivateCIMD, opts.CIMDTLS, opts.Now),
		registerLimit:  newLimiter(opts.RegisterPerMinute, opts.Now),
		authorizeLimit: newLimiter(opts.AuthorizePerMinute, opts.Now),
		failLimit:      newLimiter(opts.FailedPerMinute, opts.Now),
		refreshLimit:   newLimiter(opts.RefreshPerMinute, opts.Now),
		extractIP:      newIPExtractor(opts.TrustedProxies),
	}
	if s.metadata, s.oidc, err = s.renderMetadata(); err != nil {
		return nil, fmt.Errorf("oauthserver: metadata: %w", err)
	}
	return s, nil
}

// Issuer is the issuer URL, for the protected-resource metadata.
func (s *Server) Issuer() string { return s.opts.Issuer }

// Path is the issuer's path, e.g. /functions/v1/mcp-server/oauth.
func (s *Server) Path() string { return strings.TrimRight(s.issuer.Path, "/") }

// endpoint is the absolute URL of an endpoint below the issuer.
func (s *Server) endpoint(rel string) string { return s.opts.Issuer + rel }

// Register mounts the endpoints on g at prefix (the issuer's path relative
// to g, e.g. "/oauth" in mcp-server's group).
func (s *Server) Register(g *echo.Group, prefix string) {
	g.Any(prefix+"/.well-known/oauth-authorization-server", s.serveMetadata)
	g.Any(prefix+"/.well-known/openid-configuration", s.serveOIDC)
	g.Any(prefix+"/jwks.json", s.serveJWKS)
	g.Any(prefix+"/register", s.register)
	g.Any(prefix+"/authorize", s.authorize)
	g.Any(prefix+"/signin", s.signin)
	g.Any(prefix+"/callback", s.callback)
	g.Any(prefix+"/consent", s.consent)
	g.Any(prefix+"/token", s.token)
	g.Any(prefix+"/revoke", s.revoke)
}

// RootPaths are the RFC 8414 path-inserted well-known locations of the
// metadata (and the OpenID form), which only reach the gateway when it is
// addressed directly or the API gateway routes them to it.
func (s *Server) RootPaths() []string {
	return []string{"/.well-known/oauth-authorization-server" + s.Path(), "/.well-known/openid-configuration" + s.Path()}
}

// RegisterRoot mounts the root well-known locations on e.
func (s *Server) RegisterRoot(e *echo.Echo) {
	p := s.RootPaths()
	e.Any(p[0], s.serveMetadata)
	e.Any(p[1], s.serveOIDC)
}

// methodNotAllowed answers a method an endpoint does not take.
func (s *Server) methodNotAllowed(c echo.Context, allow string) error {
	c.Response().Header().Set("Allow", allow)
	return s.writeError(c, oauthErr(http.StatusMethodNotAllowed, codeInvalidRequest, "Method not allowed; use "+allow))
}
