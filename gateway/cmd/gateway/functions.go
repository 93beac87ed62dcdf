package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/redact"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/functions/mcptokens"
	"github.com/pawtograder/mcp-gateway/gateway"
	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/h1transport"
	"github.com/pawtograder/mcp-gateway/gateway/issuer"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/metrics"
	"github.com/pawtograder/mcp-gateway/gateway/oauthserver"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/protectedresource"
	"github.com/pawtograder/mcp-gateway/gateway/supabasejwt"
	"github.com/pawtograder/mcp-gateway/gateway/userdb"
)

// Function slugs, as the edge runtime names them.
const (
	slugMCPServer = "mcp-server"
	slugMCPTokens = "mcp-tokens"
)

// knownTables are the PostgREST tables the gateway queries; they are the
// only values the upstream metrics' endpoint label takes.
var knownTables = []string{
	"api_tokens", "revoked_token_ids", "user_roles", "profiles", "assignments", "autograder",
	"submissions", "submission_files", "grader_results", "grader_result_tests", "grader_result_output",
	"help_queues", "help_requests", "help_request_messages", "discussion_topics", "discussion_threads",
	"mcp_oauth_codes", "mcp_oauth_refresh_tokens", "mcp_oauth_grants",
}

// wiring is everything the functions need, built once from the config.
type wiring struct {
	functions  []gateway.Function
	pre        []echo.MiddlewareFunc
	routes     func(e *echo.Echo)
	onShutdown []func()
	close      func()
	metrics    *metrics.Metrics
}

// newUpstreamTransport is a pooled transport sized for many concurrent
// tool calls. Go's transport already retries an idempotent request (GET,
// HEAD) once when a reused keep-alive connection turns out to be dead, and
// never retries a POST or PATCH, which is the retry policy the gateway
// wants; no retry layer is added on top.
func newUpstreamTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
}

// restTransport is the transport for PostgREST: the look-ups behind every
// authenticated call go through h1transport, which does each exchange on
// the calling goroutine (docs/performance.md), when the URL is plain http
// and no proxy applies to it; anything h1transport does not take (https,
// writes) and every other case goes to base.
func restTransport(restURL *url.URL, base *http.Transport) http.RoundTripper {
	if restURL == nil || restURL.Scheme != "http" {
		return base
	}
	if proxy, err := base.Proxy(&http.Request{URL: restURL}); err != nil || proxy != nil {
		return base
	}
	return &h1transport.Transport{Fallback: base, DialContext: base.DialContext,
		MaxIdlePerHost: base.MaxIdleConnsPerHost, IdleTimeout: base.IdleConnTimeout}
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// authEndpoint and githubEndpoint classify upstream requests into the few
// values the metrics' endpoint label may take.
func authEndpoint(r *http.Request) string {
	switch {
	case strings.HasSuffix(r.URL.Path, "/jwks.json"):
		return "jwks"
	case strings.HasSuffix(r.URL.Path, "/token"):
		return "token" // the OAuth server's sign-in code exchange
	}
	return "user"
}

func githubEndpoint(r *http.Request) string {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/access_tokens"):
		return "token"
	case strings.Contains(p, "/installation"):
		return "installation"
	case strings.Contains(p, "/contents"):
		return "contents"
	}
	return "other"
}

// meteredAuth records each mcp-server authentication outcome by reason
// and credential type.
type meteredAuth struct {
	*mcpauth.Authenticator
	m *metrics.Metrics
}

func (a meteredAuth) Authenticate(ctx context.Context, header string) (*mcpauth.Principal, error) {
	p, err := a.Authenticator.Authenticate(ctx, header)
	credential := "none"
	switch {
	case p != nil:
		credential = string(p.Kind)
	case strings.Contains(header, "mcp_"):
		credential = string(mcpauth.KindAPIToken)
	case header != "":
		credential = "other"
	}
	if err != nil {
		a.m.AuthOutcome(string(apierror.As(err).Reason), credential)
	} else {
		a.m.AuthOutcome("ok", credential)
	}
	return p, err
}

// meteredSessions records mcp-tokens' session look-ups the same way.
type meteredSessions struct {
	*mcpauth.AuthClient
	m *metrics.Metrics
}

func (s meteredSessions) GetUser(ctx context.Context, token string) (*mcpauth.SupabaseUser, error) {
	u, err := s.AuthClient.GetUser(ctx, token)
	if err != nil {
		s.m.AuthOutcome(string(apierror.As(err).Reason), "session")
	} else {
		s.m.AuthOutcome("ok", "session")
	}
	return u, err
}

// buildFunctions turns the configuration into the mounted functions. Every
// function secret is validated at request time, as the original does, so
// nothing here fails on a missing or malformed secret.
func buildFunctions(cfg config.Config, log *slog.Logger, audit auditLogs) (*wiring, error) {
	w := &wiring{}
	w.metrics = metrics.New(metrics.Options{
		Functions: []string{slugMCPServer, slugMCPTokens},
		Tools:     tools.Names(),
		Tables:    knownTables,
	})
	m := w.metrics
	// Upstream requests are counted and timed at the transport; the
	// PostgREST hook only attributes them to the tool call in flight.
	observe := func(ctx context.Context, table string, status int, err error) {
		mcpserver.CountUpstream(ctx)
	}
	base := newUpstreamTransport()
	hc := &http.Client{Timeout: cfg.UpstreamTimeout, CheckRedirect: noRedirects,
		Transport: m.RoundTripper(restTransport(cfg.PostgRESTURL, base), "postgrest", func(r *http.Request) string { return path.Base(r.URL.Path) })}
	authHC := &http.Client{Timeout: cfg.UpstreamTimeout, CheckRedirect: noRedirects,
		Transport: m.RoundTripper(base, "auth", authEndpoint)}
	restURL := urlString(cfg.PostgRESTURL)
	authURL := urlString(cfg.AuthURL)

	sessions := &mcpauth.AuthClient{AuthURL: authURL, AnonKey: cfg.SupabaseAnonKey, HTTPClient: authHC, DirectUpstream: cfg.AuthDirect}

	// OAuth (docs/oauth.md) needs a public resource URL. GATEWAY_OAUTH_SERVER
	// picks the authorization server the metadata names: the gateway's own
	// (which grants mcp_ tokens, so no Supabase token is accepted), Supabase
	// Auth (whose access tokens are then verified), or none.
	var verifier *supabasejwt.Verifier
	var meta *protectedresource.Metadata
	var oauth *oauthserver.Server
	if cfg.PublicURL != nil && cfg.OAuthServer.Mode != config.OAuthServerOff {
		resource := strings.TrimRight(cfg.PublicURL.String(), "/") + "/functions/v1/" + slugMCPServer
		issuer := cfg.OAuthIssuer
		if issuer == "" && authURL != "" {
			issuer = authURL
		}
		if cfg.OAuthServer.Mode == config.OAuthServerGateway && cfg.MCPServerEnabled {
			var err error
			if oauth, err = buildOAuthServer(cfg, log, resource, restURL, authURL, hc, authHC); err != nil {
				return nil, err
			}
			issuer = oauth.Issuer()
		}
		if issuer != "" {
			var err error
			meta, err = protectedresource.New(protectedresource.Options{
				ResourceURL:         resource,
				AuthorizationServer: issuer,
				Scopes:              []string{mcpauth.ScopeMCPRead, mcpauth.ScopeMCPWrite, "offline_access"},
			})
			if err != nil {
				return nil, err
			}
		}
		if issuer != "" && oauth == nil {
			jwks := ""
			if authURL != "" {
				jwks = authURL + "/.well-known/jwks.json"
			}
			var err error
			verifier, err = supabasejwt.New(supabasejwt.Options{
				Issuer:       issuer,
				JWKSURL:      jwks,
				Audiences:    []string{resource, "authenticated"},
				LegacySecret: cfg.OAuthLegacySecret,
				HTTPClient:   authHC,
			})
			if err != nil {
				return nil, err
			}
		}
	}

	auth, err := mcpauth.New(mcpauth.Options{
		RestURL:        restURL,
		ServiceRoleKey: cfg.SupabaseServiceRoleKey,
		MCPJWTSecret:   cfg.MCPJWTSecret,
		HTTPClient:     hc,
		Logger:         log,
		Supabase:       verifier,
		Sessions:       sessions,
		DirectUpstream: cfg.PostgRESTDirect,
	})
	if err != nil {
		return nil, err
	}
	users := userdb.NewFactory(userdb.Options{
		RestURL:        restURL,
		AnonKey:        cfg.SupabaseAnonKey,
		SigningJWK:     cfg.JWTSecret,
		DirectUpstream: cfg.PostgRESTDirect,
		HTTPClient:     hc,
		Observe:        observe,
		OnCache:        m.JWTCache,
		Issuer:         cfg.IssuerURL,
	})
	w.close = auth.Close

	// The OIDC issuer documents for third-party auth (GATEWAY_ISSUER_URL):
	// inside mcp-server's group when the issuer path lies there (the only
	// gateway path hosted Supabase forwards), else at the root.
	mountIssuer, err := buildIssuer(cfg, log, users, w)
	if err != nil {
		return nil, err
	}

	// mcp-tokens reads and writes as the signed-in web user.
	var anonBase *postgrest.Client
	if restURL != "" {
		opts := postgrest.Options{BaseURL: restURL, APIKey: cfg.SupabaseAnonKey, HTTPClient: hc, Observe: observe}
		if cfg.PostgRESTDirect {
			opts.APIKey = "" // PostgREST itself reads only Authorization
		}
		if anonBase, err = postgrest.New(opts); err != nil {
			return nil, err
		}
	}
	tokens, err := mcptokens.New(mcptokens.Options{
		Users: meteredSessions{sessions, m},
		ForSession: func(userID, token string) *userdb.Client {
			if anonBase == nil {
				return nil
			}
			return userdb.NewClient(anonBase, userID, token)
		},
		Mint: func(sub string, scopes []string, id string, days float64, now time.Time) (string, error) {
			return mcpauth.MintAPIToken(cfg.MCPJWTSecret, sub, scopes, id, days, now)
		},
		Revoker: auth,
		Logger:  log,
	})
	if err != nil {
		return nil, err
	}
	// Unrouted: the original answers every method, FOO included, with its
	// own 405 (docs/contract/protocol.md B1).
	w.functions = append(w.functions, gateway.Function{Slug: slugMCPTokens, Register: tokens.Register, Unrouted: tokens.Serve})

	if !cfg.MCPServerEnabled {
		// Off means gone: the server and its metadata answer 404, rather
		// than falling through to a fallback upstream.
		notFound := func(c echo.Context) error {
			return c.JSON(http.StatusNotFound, map[string]string{"code": "NOT_FOUND", "message": "Requested function was not found"})
		}
		w.functions = append(w.functions,
			gateway.Function{Slug: slugMCPServer, Register: func(g *echo.Group) {
				mountIssuer(g)
				g.Any("", notFound)
				g.Any("/*", notFound)
			}},
		)
		addRoutes(w, func(e *echo.Echo) {
			for _, p := range protectedresource.Paths("/functions/v1/" + slugMCPServer)[:2] {
				e.Any(p, notFound)
			}
			// The authorization server's root metadata is off as well.
			for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
				e.Any(p+"/functions/v1/"+slugMCPServer+oauthPrefix, notFound)
			}
		})
		return w, nil
	}

	repos, err := repofiles.New(repofiles.Options{
		AppID:         cfg.GitHubAppID,
		PrivateKeyPEM: cfg.GitHubPrivateKey,
		BaseURL:       urlString(cfg.GitHubAPIURL),
		HTTPClient: &http.Client{Timeout: cfg.UpstreamTimeout,
			Transport: m.RoundTripper(newUpstreamTransport(), "github", githubEndpoint)},
		Logger: log,
	})
	if err != nil {
		// A malformed GitHub App key is an operator error worth stopping
		// for; an absent one only empties the repository tools.
		return nil, err
	}
	registry := tools.New(tools.Options{Repos: repos, Logger: log})
	metadataURL := ""
	if meta != nil {
		metadataURL = meta.URL()
	}
	maxStreams := cfg.MaxStreams
	if maxStreams == 0 {
		maxStreams = 1 << 30 // configured as unlimited
	}
	perToken := cfg.MaxStreamsPerToken
	if perToken == 0 {
		perToken = 1 << 30
	}
	server, err := mcpserver.New(mcpserver.Options{
		Auth:                meteredAuth{auth, m},
		Users:               users,
		Tools:               registry,
		EdgeFunctionsURL:    cfg.EdgeFunctionsURL,
		MaxStreams:          maxStreams,
		MaxStreamsPerToken:  perToken,
		KeepAlive:           cfg.SSEKeepalive,
		ResourceMetadataURL: metadataURL,
		PinProtocol2024:     cfg.PinProtocol2024,
		Logger:              log,
		Metrics:             m,
		Audit:               audit.log,
		AuditLine:           audit.line,
		Redact:              redact.New(cfg.RedactKeys),
		AllowedOrigins:      cfg.AllowedOrigins,
		TrustedOrigins:      ownOrigins(cfg),
	})
	if err != nil {
		return nil, err
	}
	w.functions = append(w.functions, gateway.Function{Slug: slugMCPServer, Register: func(g *echo.Group) {
		if meta != nil {
			g.Any(protectedresource.WellKnownPath, meta.Serve)
		}
		if oauth != nil {
			oauth.Register(g, oauthPrefix)
		}
		mountIssuer(g)
		server.Register(g)
	}, Unrouted: server.Handle}) // the original's 405 for FOO, QUERY … (docs/contract/protocol.md A1)
	if meta != nil {
		addRoutes(w, func(e *echo.Echo) {
			for _, p := range protectedresource.Paths("/functions/v1/" + slugMCPServer)[:2] {
				e.Any(p, meta.Serve)
			}
		})
	}
	if oauth != nil {
		addRoutes(w, oauth.RegisterRoot)
	}
	w.onShutdown = append(w.onShutdown, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := server.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			log.Warn("mcp-server shutdown", slog.String("error", err.Error()))
		}
	})
	return w, nil
}

// ownOrigins are the browser origins mcp-server's default Origin policy
// trusts: the gateway's public origin and the project's (SUPABASE_URL,
// EDGE_FUNCTIONS_URL), the places a page that may call it is served from.
func ownOrigins(cfg config.Config) []string {
	var out []string
	for _, u := range []string{urlString(cfg.PublicURL), urlString(cfg.SupabaseURL), cfg.EdgeFunctionsURL} {
		if o := mcpserver.OriginOf(u); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// addRoutes appends f to the routes added outside the function namespace.
func addRoutes(w *wiring, f func(e *echo.Echo)) {
	prev := w.routes
	w.routes = func(e *echo.Echo) {
		if prev != nil {
			prev(e)
		}
		f(e)
	}
}

// buildIssuer serves the OIDC issuer documents when GATEWAY_ISSUER_URL is
// set. When the issuer path lies in mcp-server (/functions/v1/mcp-server/…,
// or /mcp-server/… behind a path-stripping proxy), the returned function
// mounts them in that function's group, before its catch-all; otherwise
// they are added at the root and the returned function does nothing.
func buildIssuer(cfg config.Config, log *slog.Logger, users *userdb.Factory, w *wiring) (func(g *echo.Group), error) {
	none := func(*echo.Group) {}
	if cfg.IssuerURL == "" {
		return none, nil
	}
	iss, err := issuer.New(issuer.Options{IssuerURL: cfg.IssuerURL, PublicJWK: users.PublicJWK})
	if err != nil {
		return nil, fmt.Errorf("GATEWAY_ISSUER_URL: %w", err)
	}
	if !strings.HasPrefix(iss.URL(), "https://") {
		log.Warn("GATEWAY_ISSUER_URL is not https; Supabase third-party auth accepts only https issuers")
	}
	inFunction, rel, err := issuerMount(iss.Path())
	if err != nil {
		return nil, err
	}
	if inFunction {
		return func(g *echo.Group) { iss.Register(g, rel) }, nil
	}
	addRoutes(w, func(e *echo.Echo) { iss.Register(e, rel) })
	return none, nil
}

// issuerMount decides where the issuer documents are routed: in the
// mcp-server group at rel (inFunction), or at the root at rel. A path in
// another function the gateway serves is refused: its own catch-all or the
// gateway's prefix rewriting would shadow the documents there.
func issuerMount(path string) (inFunction bool, rel string, err error) {
	rest, prefixed := strings.CutPrefix(path, gateway.FunctionsPrefix+"/")
	if !prefixed {
		rest = strings.TrimPrefix(path, "/")
	}
	slug, _, _ := strings.Cut(rest, "/")
	switch slug {
	case slugMCPServer:
		return true, strings.TrimPrefix(rest, slugMCPServer), nil
	case slugMCPTokens:
		return false, "", fmt.Errorf("GATEWAY_ISSUER_URL must not lie in the %s function (got path %q); use a path under %s/%s/ or outside %s/",
			slugMCPTokens, path, gateway.FunctionsPrefix, slugMCPServer, gateway.FunctionsPrefix)
	}
	return false, path, nil
}
