package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/redact"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/functions/mcptokens"
	"github.com/pawtograder/mcp-gateway/gateway"
	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/metrics"
	"github.com/pawtograder/mcp-gateway/gateway/oauthserver"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/protectedresource"
	"github.com/pawtograder/mcp-gateway/gateway/supabasejwt"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
	"github.com/pawtograder/mcp-gateway/gateway/userjwtissuer"
)

// Function slugs, as the edge runtime names them.
const (
	slugMCPServer = "mcp-server"
	slugMCPTokens = "mcp-tokens"
)

// knownTables are the PostgREST tables (and the one function every
// request calls) the gateway queries; they are the only values the
// upstream metrics' endpoint label takes.
var knownTables = []string{
	"mcp_auth_lookup", "api_tokens", "revoked_token_ids", "user_roles", "profiles", "assignments", "autograder",
	"submissions", "submission_files", "grader_results", "grader_result_tests", "grader_result_output",
	"help_queues", "help_requests", "help_request_messages", "discussion_topics", "discussion_threads",
	"mcp_oauth_codes", "mcp_oauth_refresh_tokens", "mcp_oauth_grants", "mcp_oauth_decided_authorizations",
	"mcp_activity", "mcp_activity_record", "mcp_activity_purge", "mcp_activity_mine", "mcp_activity_class_days",
	"mcp_activity_class_students", "mcp_activity_student_reads", "mcp_activity_my_pending", "mcp_activity_is_instructor", "classes",
}

// wiring is everything the functions need, built once from the config.
type wiring struct {
	functions  []gateway.Function
	pre        []echo.MiddlewareFunc
	routes     func(e *echo.Echo)
	onShutdown []func()
	close      func()
	metrics    *metrics.Metrics
	// background runs for the life of the server (run starts each).
	background []func(ctx context.Context)
	// pages mounts the activity record's pages in mcp-server's group
	// (activity.go); nil when they are off.
	pages func(g *echo.Group)
}

// newUpstreamTransport is the pooled transport the functions' upstream
// requests share: one for PostgREST and Auth, over http and https alike,
// and another for GitHub. It is sized for many concurrent tool calls, each
// of which makes one service-role look-up and its own reads. Idle
// connections are closed after 25 s, before the servers behind Supabase's
// API gateway close them (30 s for PostgREST's, 60 s for nginx's), so a
// reused connection is rarely one the other side has just dropped. Go's
// transport already retries an idempotent request (GET, HEAD, and the
// look-up, which postgrest.ReadRPC marks idempotent) once when a reused
// keep-alive connection turns out to be dead, and never retries a POST or
// PATCH that may write, which is the retry policy the gateway wants; no
// retry layer is added on top.
func newUpstreamTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       25 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		// A DialContext of its own turns HTTP/2 off unless asked for: an
		// https upstream (hosted Supabase) then multiplexes the look-ups.
		ForceAttemptHTTP2: true,
	}
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

// buildFunctions turns the configuration into the mounted functions. A
// missing function secret is reported at request time, as the original
// does; one that is set but malformed stops start-up here.
func buildFunctions(cfg config.Config, log *slog.Logger, audit *slog.Logger) (*wiring, error) {
	w := &wiring{metrics: newMetrics(writeToolNames(cfg)...)}
	up := buildUpstreams(cfg, newUpstreamTransport(), w.metrics)
	front, err := buildOAuth(cfg, log, up)
	if err != nil {
		return nil, err
	}
	auth, err := buildAuth(cfg, log, up, front.verifier)
	if err != nil {
		return nil, err
	}
	w.close = auth.Close
	users, err := buildUserDB(cfg, up, w.metrics)
	if err != nil {
		return nil, err
	}
	// The OIDC issuer documents for third-party auth (GATEWAY_ISSUER_URL):
	// inside mcp-server's group when the issuer path lies there (the only
	// gateway path hosted Supabase forwards), else at the root.
	mountIssuer, err := buildIssuer(cfg, log, users, w)
	if err != nil {
		return nil, err
	}
	tokens, err := buildTokens(cfg, log, up, auth, w.metrics)
	if err != nil {
		return nil, err
	}
	// Unrouted: the original answers every method, FOO included, with its
	// own 405 (docs/contract/protocol.md B1).
	w.functions = append(w.functions, gateway.Function{Slug: slugMCPTokens, Register: tokens.Register, Unrouted: tokens.Serve})
	if !cfg.MCPServerEnabled {
		mountMCPServerOff(w, mountIssuer)
		return w, nil
	}
	approvals, err := buildApprovals(cfg, log, audit, up, users, w.metrics) // writes.go; nil when off
	if err != nil {
		return nil, err
	}
	calls, _, err := buildCallHooks(cfg, log, up, w) // activity.go
	if err != nil {
		return nil, err
	}
	if err := buildActivityPages(cfg, log, up, users, w); err != nil {
		return nil, err
	}
	server, err := buildMCPServer(cfg, log, audit, auth, users, front, w.metrics, approvals, calls)
	if err != nil {
		return nil, err
	}
	mountMCPServer(w, log, server, front, mountIssuer, approvals)
	if approvals != nil {
		w.background = append(w.background, approvals.RunPurge)
	}
	return w, nil
}

// newMetrics registers the gateway's series with the label values they
// may take.
func newMetrics(extraTools ...string) *metrics.Metrics {
	return metrics.New(metrics.Options{
		Functions: []string{slugMCPServer, slugMCPTokens},
		Tools:     append(tools.Names(), extraTools...),
		Tables:    knownTables,
	})
}

// upstreams are the addresses of PostgREST and Auth and the clients the
// functions reach them with.
type upstreams struct {
	restURL, authURL string
	// rest and auth share one transport (newUpstreamTransport); each
	// request is counted and timed under its upstream.
	rest, auth *http.Client
	sessions   *mcpauth.AuthClient
	// observe attributes PostgREST requests to the tool call in flight
	// (they are counted and timed at the transport).
	observe func(ctx context.Context, table string, status int, err error)
}

// serviceDB is the service-role PostgREST client of the OAuth server's
// store and the approval store, built by mcpauth, where the key lives.
func serviceDB(cfg config.Config, up upstreams) (*postgrest.Client, error) {
	return mcpauth.ServiceClient(mcpauth.ServiceClientOptions{
		RestURL:        up.restURL,
		ServiceRoleKey: cfg.SupabaseServiceRoleKey,
		DirectUpstream: cfg.PostgRESTDirect,
		HTTPClient:     up.rest,
	})
}

// buildUpstreams builds the PostgREST and Auth clients over base.
func buildUpstreams(cfg config.Config, base http.RoundTripper, m *metrics.Metrics) upstreams {
	client := func(upstream string, endpoint func(*http.Request) string) *http.Client {
		return &http.Client{Timeout: cfg.UpstreamTimeout, CheckRedirect: noRedirects, Transport: m.RoundTripper(base, upstream, endpoint)}
	}
	up := upstreams{
		restURL: urlString(cfg.PostgRESTURL),
		authURL: urlString(cfg.AuthURL),
		rest:    client("postgrest", func(r *http.Request) string { return path.Base(r.URL.Path) }),
		auth:    client("auth", authEndpoint),
		observe: func(ctx context.Context, _ string, _ int, _ error) { mcpserver.CountUpstream(ctx) },
	}
	up.sessions = &mcpauth.AuthClient{AuthURL: up.authURL, AnonKey: cfg.SupabaseAnonKey, HTTPClient: up.auth, DirectUpstream: cfg.AuthDirect}
	return up
}

// oauthFront is what mcp-server tells and accepts from OAuth clients
// (docs/oauth.md); each part is nil when not configured.
type oauthFront struct {
	meta     *protectedresource.Metadata // RFC 9728 metadata naming the authorization server
	server   *oauthserver.Server         // the gateway's own authorization server
	verifier *supabasejwt.Verifier       // Supabase Auth's access tokens, when Auth is the server
}

// buildOAuth sets up OAuth, which needs a public resource URL.
// GATEWAY_OAUTH_SERVER picks the authorization server the metadata names:
// the gateway's own (which grants mcp_ tokens, so no Supabase token is
// accepted), Supabase Auth (whose access tokens are then verified), or
// none.
func buildOAuth(cfg config.Config, log *slog.Logger, up upstreams) (oauthFront, error) {
	var o oauthFront
	if cfg.PublicURL == nil || cfg.OAuthServer.Mode == config.OAuthServerOff {
		return o, nil
	}
	resource := strings.TrimRight(cfg.PublicURL.String(), "/") + "/functions/v1/" + slugMCPServer
	issuer := cfg.OAuthIssuer
	if issuer == "" {
		issuer = up.authURL
	}
	if cfg.OAuthServer.Mode == config.OAuthServerGateway && cfg.MCPServerEnabled {
		if cfg.OAuthServer.ProvidersDefault {
			log.Warn("GATEWAY_OAUTH_PROVIDERS is not set: sign-in goes to the default provider, which must be enabled in Supabase Auth (Pawtograder's own configuration does not enable it); set it to the providers people sign in with", slog.String("variable", "GATEWAY_OAUTH_PROVIDERS"), slog.String("default", strings.Join(cfg.OAuthServer.Providers, ",")))
		}
		srv, err := buildOAuthServer(cfg, log, resource, up)
		if err != nil {
			return o, err
		}
		o.server, issuer = srv, srv.Issuer()
	}
	if issuer == "" {
		return o, nil
	}
	meta, err := protectedresource.New(protectedresource.Options{
		ResourceURL:         resource,
		AuthorizationServer: issuer,
		// The baseline a client asks for (MCP authorization, scope selection);
		// mcp:write and offline_access are the authorization server's to offer.
		Scopes: []string{mcpauth.ScopeMCPRead},
	})
	if err != nil {
		return o, err
	}
	o.meta = meta
	if o.server != nil {
		return o, nil
	}
	jwks := ""
	if up.authURL != "" {
		jwks = up.authURL + "/.well-known/jwks.json"
	}
	o.verifier, err = supabasejwt.New(supabasejwt.Options{
		Issuer:       issuer,
		JWKSURL:      jwks,
		Audiences:    []string{resource, "authenticated"},
		LegacySecret: cfg.OAuthLegacySecret,
		HTTPClient:   up.auth,
	})
	return o, err
}

// buildAuth builds the authenticator, the only holder of the service-role
// key; verifier, when set, also admits Supabase access tokens.
func buildAuth(cfg config.Config, log *slog.Logger, up upstreams, verifier *supabasejwt.Verifier) (*mcpauth.Authenticator, error) {
	return mcpauth.New(mcpauth.Options{
		RestURL:        up.restURL,
		ServiceRoleKey: cfg.SupabaseServiceRoleKey,
		MCPJWTSecret:   cfg.MCPJWTSecret,
		HTTPClient:     up.rest,
		Logger:         log,
		Supabase:       verifier,
		Sessions:       up.sessions,
		DirectUpstream: cfg.PostgRESTDirect,
	})
}

// buildUserDB builds the factory of per-user PostgREST clients the tools
// read with.
func buildUserDB(cfg config.Config, up upstreams, m *metrics.Metrics) (*userclient.Factory, error) {
	return userclient.New(userclient.Options{
		RestURL:        up.restURL,
		AnonKey:        cfg.SupabaseAnonKey,
		SigningKey:     cfg.SigningKey,
		DirectUpstream: cfg.PostgRESTDirect,
		HTTPClient:     up.rest,
		Observe:        up.observe,
		OnCache:        m.JWTCache,
		Issuer:         cfg.IssuerURL,
	})
}

// buildTokens builds mcp-tokens, which reads and writes as the signed-in
// web user.
func buildTokens(cfg config.Config, log *slog.Logger, up upstreams, auth *mcpauth.Authenticator, m *metrics.Metrics) (*mcptokens.Handler, error) {
	var anonBase *postgrest.Client
	if up.restURL != "" {
		opts := postgrest.Options{BaseURL: up.restURL, APIKey: cfg.SupabaseAnonKey, HTTPClient: up.rest, Observe: up.observe}
		if cfg.PostgRESTDirect {
			opts.APIKey = "" // PostgREST itself reads only Authorization
		}
		var err error
		if anonBase, err = postgrest.New(opts); err != nil {
			return nil, err
		}
	}
	return mcptokens.New(mcptokens.Options{
		Users: meteredSessions{up.sessions, m},
		ForSession: func(userID, token string) *userclient.Client {
			if anonBase == nil {
				return nil
			}
			return userclient.NewClient(anonBase, userID, token)
		},
		Mint: func(sub string, scopes []string, id string, days float64, now time.Time) (string, error) {
			return mcpauth.MintAPIToken(cfg.MCPJWTSecret, sub, scopes, id, days, now)
		},
		Logger: log,
	})
}

// mountMCPServerOff mounts mcp-server as switched off. Off means gone: the
// server and its metadata answer 404, rather than falling through to a
// fallback upstream; the issuer documents stay.
func mountMCPServerOff(w *wiring, mountIssuer func(*echo.Group)) {
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
}

// buildMCPServer builds mcp-server with its tools and their GitHub client.
func buildMCPServer(cfg config.Config, log *slog.Logger, audit *slog.Logger, auth *mcpauth.Authenticator, users *userclient.Factory, front oauthFront, m *metrics.Metrics, approvals *approval.Service, calls toolcall.Hook) (*mcpserver.Server, error) {
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
	metadataURL := ""
	var scopes []string
	if front.meta != nil {
		metadataURL, scopes = front.meta.URL(), front.meta.Scopes()
	}
	return mcpserver.New(mcpserver.Options{
		Auth:                meteredAuth{auth, m},
		Users:               users,
		Tools:               tools.New(toolOptions(repos, log, approvals)),
		EdgeFunctionsURL:    cfg.EdgeFunctionsURL,
		MaxStreams:          unlimitedAsMax(cfg.MaxStreams),
		MaxStreamsPerToken:  unlimitedAsMax(cfg.MaxStreamsPerToken),
		KeepAlive:           cfg.SSEKeepalive,
		ResourceMetadataURL: metadataURL,
		Scopes:              scopes,
		PinProtocol2024:     cfg.PinProtocol2024,
		Logger:              log,
		Metrics:             m,
		Audit:               audit,
		Redact:              redact.New(cfg.RedactKeys),
		AllowedOrigins:      cfg.AllowedOrigins,
		TrustedOrigins:      ownOrigins(cfg),
		Calls:               calls,
	})
}

// unlimitedAsMax turns a stream limit of 0 (configured as unlimited) into
// one no deployment reaches.
func unlimitedAsMax(n int) int {
	if n == 0 {
		return 1 << 30
	}
	return n
}

// mountMCPServer mounts mcp-server with its OAuth metadata, authorization
// server and issuer documents, and closes its streams on shutdown.
func mountMCPServer(w *wiring, log *slog.Logger, server *mcpserver.Server, front oauthFront, mountIssuer func(*echo.Group), approvals *approval.Service) {
	w.functions = append(w.functions, gateway.Function{Slug: slugMCPServer, Register: func(g *echo.Group) {
		if approvals != nil {
			approvals.Register(g)
		}
		if w.pages != nil {
			w.pages(g)
		}
		if front.meta != nil {
			g.Any(protectedresource.WellKnownPath, front.meta.Serve)
		}
		if front.server != nil {
			front.server.Register(g, oauthPrefix)
		}
		mountIssuer(g)
		server.Register(g)
	}, Unrouted: server.Handle}) // the original's 405 for FOO, QUERY … (docs/contract/protocol.md A1)
	if front.meta != nil {
		addRoutes(w, func(e *echo.Echo) {
			for _, p := range protectedresource.Paths("/functions/v1/" + slugMCPServer)[:2] {
				e.Any(p, front.meta.Serve)
			}
		})
	}
	if front.server != nil {
		addRoutes(w, front.server.RegisterRoot)
	}
	w.onShutdown = append(w.onShutdown, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := server.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			log.Warn("mcp-server shutdown", slog.String("error", err.Error()))
		}
	})
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
func buildIssuer(cfg config.Config, log *slog.Logger, users *userclient.Factory, w *wiring) (func(g *echo.Group), error) {
	none := func(*echo.Group) {}
	if cfg.IssuerURL == "" {
		return none, nil
	}
	iss, err := userjwtissuer.New(userjwtissuer.Options{IssuerURL: cfg.IssuerURL, PublicJWK: users.PublicJWK})
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
