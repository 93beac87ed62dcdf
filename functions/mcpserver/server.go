package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/answers"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/redact"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// Authenticator turns an Authorization header into a principal. Errors are
// *apierror.Error values carrying the status and message of the original's
// MCPAuth.ts (docs/contract/protocol.md A7); any other error is treated as a 500.
// *mcpauth.Authenticator satisfies it.
type Authenticator interface {
	Authenticate(ctx context.Context, authorization string) (*mcpauth.Principal, error)
	// TouchLastUsed records the token's use without blocking the request
	// (docs/contract/protocol.md A8); it must not fail the request.
	TouchLastUsed(p *mcpauth.Principal)
}

// UserClients gives a PostgREST client acting as one user (docs/contract/protocol.md A7
// steps 11–12). *userclient.Factory satisfies it.
type UserClients interface {
	ForUser(ctx context.Context, userID string) (*userclient.Client, error)
}

// The production implementations satisfy the interfaces.
var (
	_ Authenticator = (*mcpauth.Authenticator)(nil)
	_ UserClients   = (*userclient.Factory)(nil)
)

// Defaults for the zero values of Options.
const (
	DefaultMaxBodyBytes       = 4 << 20
	DefaultMaxBatch           = 100
	DefaultMaxStreams         = 1024
	DefaultMaxStreamsPerToken = 16
)

// endpointPath is appended to Options.EdgeFunctionsURL for the SSE endpoint
// event, exactly as the original concatenates it.
const endpointPath = "/functions/v1/mcp-server"

// Options configures a Server. Zero values mean the documented defaults.
type Options struct {
	// Auth authenticates every GET and POST. Required.
	Auth Authenticator
	// Users mints the per-user database client after authentication. Required.
	Users UserClients
	// Tools is the tool catalogue served by tools/list and tools/call. Required.
	Tools *tools.Registry
	// EdgeFunctionsURL is the public base URL announced in the GET stream's
	// endpoint event (EDGE_FUNCTIONS_URL). Empty means no endpoint event and
	// a warning per stream, as in the original. Request headers (Host,
	// X-Forwarded-*) are never used instead.
	EdgeFunctionsURL string
	// MaxBodyBytes bounds a POST body, checked after authentication.
	// Default DefaultMaxBodyBytes (4 MiB).
	MaxBodyBytes int64
	// MaxBatch bounds the number of elements of a batch. Default
	// DefaultMaxBatch.
	MaxBatch int
	// MaxStreams bounds the GET streams open at once on this server.
	// Default DefaultMaxStreams.
	MaxStreams int
	// MaxStreamsPerToken bounds the GET streams open at once per API token
	// (or per user for credentials without a token id). mcp-remote opens
	// four per start, so the default, DefaultMaxStreamsPerToken, leaves room
	// for a few restarts.
	MaxStreamsPerToken int
	// KeepAlive, when positive, sends an SSE comment on idle GET streams at
	// this interval so proxies do not cut them. 0 (the default) sends
	// nothing, as the original does.
	KeepAlive time.Duration
	// ResourceMetadataURL, when set, is announced on every 401 as
	// WWW-Authenticate: Bearer resource_metadata="…" (RFC 9728). It must be
	// the configured public URL, never derived from request headers.
	ResourceMetadataURL string
	// Scopes are the baseline scopes a client should request for ordinary
	// use, announced with ResourceMetadataURL as the scope attribute of
	// every 401 challenge (MCP authorization, "Scope Selection Strategy");
	// main passes the protected resource metadata's scopes_supported, so
	// both come from configuration. Each must be an RFC 6749 scope-token.
	// Empty announces none.
	Scopes []string
	// PinProtocol2024 answers initialize with 2024-11-05 whatever the client
	// asks, and ignores the MCP-Protocol-Version header and _meta: the
	// original's exact behaviour (server/discover is an unknown method).
	// When false, initialize echoes a requested supported revision (else the
	// newest), requests whose MCP-Protocol-Version header names an
	// unsupported revision get 400 -32022, batches are refused under
	// revisions that removed them (2025-06-18 and later), requests made
	// under 2025-06-18 or later get outputSchema and structuredContent
	// (2025-11-25 also isError results for invalid arguments), and
	// requests stating 2026-07-28 are served statelessly at that revision;
	// see the package documentation.
	PinProtocol2024 bool
	// AllowedOrigins, when non-empty and without "*", is the list of
	// browser origins (e.g. "https://app.pawtograder.com") allowed to call
	// the server: a request whose Origin header names another origin gets
	// 403 before authentication (DNS-rebinding protection), and allowed
	// origins are echoed in Access-Control-Allow-Origin with Vary: Origin.
	// Requests without Origin (non-browser clients) are unaffected. A list
	// holding "*" allows every origin with Access-Control-Allow-Origin: *,
	// as the original does. Empty (the default) allows TrustedOrigins and
	// loopback pages reaching the server over loopback (see originPolicy).
	AllowedOrigins []string
	// TrustedOrigins are the browser origins the default policy (empty
	// AllowedOrigins) allows: the gateway's public origin and the
	// project's own. main derives them from the configured URLs.
	TrustedOrigins []string
	// Metrics receives request, tool-call and stream counters; nil records
	// nothing. *metrics.Metrics satisfies it.
	Metrics Metrics
	// Audit, when set, receives one "tool call" line per tools/call
	// (docs/audit.md): who called which tool for which class, the outcome,
	// the duration and the number of upstream requests. Never arguments or
	// results.
	Audit *slog.Logger
	// Redact, when set, scrubs values stored under credential-named keys
	// from every tool result before it is serialised (text and
	// structuredContent alike), logging a warning without the values.
	Redact *redact.Redactor
	// Logger receives operational logs. Default: discard.
	Logger *slog.Logger
	// Calls, when set, is asked before every tools/call whether it may
	// run and told how it ended (observe.go): the per-connection limit
	// and the activity record.
	Calls toolcall.Hook
}

// Server is the mcp-server edge function: CORS, authentication, the
// JSON-RPC dispatcher and the SSE streams. It is safe for concurrent use.
type Server struct {
	auth        Authenticator
	users       UserClients
	tools       *tools.Registry
	endpoint    string // "" when EdgeFunctionsURL is unset
	maxBody     int64
	maxBatch    int
	keepAlive   time.Duration
	resourceURL string
	challenges  [3][]string // WWW-Authenticate values (auth.go)
	pinProtocol bool
	origins     *originPolicy
	metrics     Metrics
	audit       *slog.Logger // nil: no audit lines
	redactor    *redact.Redactor
	log         *slog.Logger
	calls       toolcall.Hook // nil: every call runs, none is told

	streams *streamLimiter

	// callTool runs a tool; it is the registry's Call, replaced in tests to
	// exercise results and failures the catalogue cannot produce offline.
	callTool func(ctx context.Context, db *userclient.Client, scopes []string, name string, args *jsjson.Object) (any, error)

	// answers holds every answer that depends only on the catalogue, the
	// revision, the declared extensions and the audience (package
	// answers).
	answers *answers.Table

	// hintedChallenges are the invalid_token challenges with the
	// pasted-token hint, by the authenticator's message (auth.go).
	hintedChallenges map[string][]string
}

// New validates opts and returns a Server.
func New(opts Options) (*Server, error) {
	origins, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	s := &Server{
		auth:        opts.Auth,
		users:       opts.Users,
		tools:       opts.Tools,
		maxBody:     orDefault(opts.MaxBodyBytes, DefaultMaxBodyBytes),
		maxBatch:    orDefault(opts.MaxBatch, DefaultMaxBatch),
		keepAlive:   opts.KeepAlive,
		resourceURL: opts.ResourceMetadataURL,
		pinProtocol: opts.PinProtocol2024,
		origins:     origins,
		metrics:     opts.Metrics,
		audit:       opts.Audit,
		redactor:    opts.Redact,
		log:         opts.Logger,
		calls:       opts.Calls,
		streams: newStreamLimiter(
			orDefault(opts.MaxStreams, DefaultMaxStreams),
			orDefault(opts.MaxStreamsPerToken, DefaultMaxStreamsPerToken)),
	}
	s.callTool = s.tools.Call
	s.challenges, s.hintedChallenges = newChallenges(s.resourceURL, opts.Scopes)
	if opts.EdgeFunctionsURL != "" {
		s.endpoint = opts.EdgeFunctionsURL + endpointPath
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.metrics == nil {
		s.metrics = noMetrics{}
	}
	if s.answers, err = answers.New(s.tools); err != nil {
		return nil, fmt.Errorf("mcpserver: encoding the answers: %w", err)
	}
	return s, nil
}

// checkOptions refuses options that cannot work, all at once, and returns
// the Origin policy they describe.
func checkOptions(opts Options) (*originPolicy, error) {
	var errs []error
	if opts.Auth == nil {
		errs = append(errs, errors.New("mcpserver: Options.Auth is required"))
	}
	if opts.Users == nil {
		errs = append(errs, errors.New("mcpserver: Options.Users is required"))
	}
	if opts.Tools == nil {
		errs = append(errs, errors.New("mcpserver: Options.Tools is required"))
	}
	if strings.ContainsAny(opts.EdgeFunctionsURL, "\r\n") {
		// A line break would let the value forge SSE fields.
		errs = append(errs, errors.New("mcpserver: EdgeFunctionsURL must not contain line breaks"))
	}
	if strings.ContainsAny(opts.ResourceMetadataURL, "\"\\\r\n") {
		errs = append(errs, errors.New(`mcpserver: ResourceMetadataURL must not contain '"', '\' or line breaks`))
	}
	for _, sc := range opts.Scopes {
		if !validScopeToken(sc) {
			errs = append(errs, fmt.Errorf("mcpserver: Options.Scopes: %q is not a scope token (RFC 6749 §3.3)", sc))
		}
	}
	if opts.MaxBodyBytes < 0 || opts.MaxBatch < 0 || opts.MaxStreams < 0 || opts.MaxStreamsPerToken < 0 || opts.KeepAlive < 0 {
		errs = append(errs, errors.New("mcpserver: limits and KeepAlive must not be negative"))
	}
	origins, err := newOriginPolicy(opts.AllowedOrigins, opts.TrustedOrigins)
	if err != nil {
		errs = append(errs, err)
	}
	return origins, errors.Join(errs...)
}

func orDefault[T int | int64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Register mounts the function on g for every method Echo routes, at the
// group's root and below it (the original answers any path under its slug).
func (s *Server) Register(g *echo.Group) {
	g.Any("", s.Handle)
	g.Any("/*", s.Handle)
}

// Shutdown ends every open GET stream, refuses new ones with 503, and waits
// until the stream handlers have returned or ctx is done. Call it before
// http.Server.Shutdown, which otherwise waits for the streams forever.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.streams.shutdown(ctx)
}

// CORS values. The original's allow-list lacks mcp-protocol-version, which
// clients send after negotiating 2025-06-18 or later, and exposes nothing, so
// browsers could neither pass a preflight nor read WWW-Authenticate; both are
// added (a documented deviation, docs/contract/protocol.md Part D). 2026-07-28 requests
// also carry Mcp-Method and Mcp-Name; those two names are allowed only where
// a 2026-07-28 client needs them (corsAllowHeadersFor), so every drop-in
// answer keeps this exact value.
const (
	corsAllowOrigin  = "*"
	corsAllowHeaders = "authorization, x-client-info, apikey, content-type, accept, mcp-session-id, last-event-id, mcp-protocol-version"
	// corsAllowHeadersModern adds the standard request headers of
	// 2026-07-28 (basic/transports/streamable-http).
	corsAllowHeadersModern = corsAllowHeaders + ", mcp-method, mcp-name"
	corsAllowMethods       = "GET, POST, DELETE, OPTIONS"
	corsExposeHeaders      = "WWW-Authenticate"
)

// The CORS header values as header slices, shared by every response: no
// handler modifies a header value in place, and appending to these full
// slices copies them.
var (
	corsAllowOriginValue        = []string{corsAllowOrigin}
	corsAllowHeadersValue       = []string{corsAllowHeaders}
	corsAllowHeadersModernValue = []string{corsAllowHeadersModern}
	corsAllowMethodsValue       = []string{corsAllowMethods}
	corsExposeHeadersValue      = []string{corsExposeHeaders}
)

// Handle serves one request in the original's routing order (docs/contract/protocol.md
// A1), after the Origin check when Options.AllowedOrigins is set. It writes
// every answer itself and returns an error only when the connection failed
// mid-answer.
func (s *Server) Handle(c echo.Context) error {
	if !s.setCORSFor(c) {
		return s.refuseOrigin(c)
	}
	switch c.Request().Method {
	case http.MethodOptions:
		// Deno's default type for a string body.
		return c.Blob(http.StatusOK, "text/plain;charset=UTF-8", []byte("ok"))
	case http.MethodDelete:
		// There are no sessions to end.
		return c.NoContent(http.StatusAccepted)
	case http.MethodGet:
		return s.serveGET(c)
	case http.MethodPost:
		return s.servePOST(c)
	default:
		return writeJSON(c, http.StatusMethodNotAllowed, jsonrpc.ErrorBody("Method not allowed"))
	}
}

// headerJS returns a request header as the Fetch API's Headers.get does:
// repeated fields joined with ", ", "" when absent.
func headerJS(h http.Header, name string) string {
	v := h.Values(name)
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	return strings.Join(v, ", ")
}

// writeJSON answers with a JSON body and the original's bare content type
// (no charset): c.Blob(status, "application/json", body), with the header
// value shared instead of allocated per answer.
func writeJSON(c echo.Context, status int, body []byte) error {
	setJSONContentType(c)
	setContentLength(c, len(body))
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(body)
	return err
}

// writeJSONPieces is writeJSON for a body given in pieces.
func writeJSONPieces(c echo.Context, status int, pieces ...[]byte) error {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	setJSONContentType(c)
	setContentLength(c, n)
	c.Response().WriteHeader(status)
	for _, p := range pieces {
		if _, err := c.Response().Write(p); err != nil {
			return err
		}
	}
	return nil
}

// setContentLength declares the length of a body written whole, as the
// original's runtime does for a string body. net/http declares it by
// itself for bodies under 2 KiB and would send larger ones chunked, in
// more writes.
func setContentLength(c echo.Context, n int) {
	if n >= 2048 {
		c.Response().Header()["Content-Length"] = []string{strconv.Itoa(n)}
	}
}

// setJSONContentType sets Content-Type: application/json unless a
// Content-Type is already set, as echo.Context.Blob does.
func setJSONContentType(c echo.Context) {
	h := c.Response().Header()
	if v := h[echo.HeaderContentType]; len(v) == 0 || v[0] == "" {
		h[echo.HeaderContentType] = contentTypeJSONValue
	}
}

// requestID returns the request id the gateway's middleware assigned (the
// X-Request-Id response header), else the one the client sent, else "".
func requestID(c echo.Context) string {
	if id := c.Response().Header().Get(echo.HeaderXRequestID); id != "" {
		return id
	}
	return c.Request().Header.Get(echo.HeaderXRequestID)
}

// requestLogger returns the server's logger tagged with the request id the
// gateway's middleware assigned, when there is one. The tag is added only
// when a line is actually written (requestIDHandler): most requests log
// nothing here, and Logger.With would format the attribute on every one.
func (s *Server) requestLogger(c echo.Context) *slog.Logger {
	id := requestID(c)
	if id == "" {
		return s.log
	}
	return slog.New(&requestIDHandler{inner: s.log.Handler(), id: id})
}

// requestIDHandler is inner.WithAttrs(request_id) built on first use, so
// lines are exactly those of s.log.With("request_id", id).
type requestIDHandler struct {
	inner slog.Handler
	id    string
}

func (h *requestIDHandler) tagged() slog.Handler {
	return h.inner.WithAttrs([]slog.Attr{slog.String("request_id", h.id)})
}

func (h *requestIDHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.tagged().Handle(ctx, r)
}

func (h *requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.tagged().WithAttrs(attrs)
}

func (h *requestIDHandler) WithGroup(name string) slog.Handler {
	return h.tagged().WithGroup(name)
}
