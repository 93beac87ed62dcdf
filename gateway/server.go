package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultListenAddr        = ":9000"
	DefaultBodyLimit         = 16 << 20
	DefaultShutdownTimeout   = 25 * time.Second
	DefaultReadyTimeout      = 2 * time.Second
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
)

// Options configures a Server. Zero values take the documented defaults.
type Options struct {
	// Functions are mounted at /functions/v1/<Slug> and /<Slug>. Adding a
	// function is one entry here (in main).
	Functions []Function
	// Logger receives the request log, panics and 5xx causes. Wrap its
	// handler with NewLogHandler so lines carry request_id. Default: a
	// discarding logger.
	Logger *slog.Logger
	// ListenAddr is used by Run. Default ":9000".
	ListenAddr string
	// BodyLimit is the outer bound on request bodies in bytes. Default 16 MiB.
	BodyLimit int64
	// Ready is the readiness check behind GET /readyz; nil means always
	// ready. It is called with a context bounded by ReadyTimeout.
	Ready func(ctx context.Context) error
	// ReadyTimeout bounds one readiness check. Default 2 s.
	ReadyTimeout time.Duration
	// ShutdownTimeout bounds how long Run waits for in-flight requests after
	// its context is cancelled before closing connections. Default 25 s,
	// inside Kubernetes' default 30 s grace period.
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout bounds reading request headers. Default 10 s.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections. Default 120 s.
	IdleTimeout time.Duration
	// OnShutdown hooks run once, concurrently, when shutdown starts — for
	// example mcpserver's Shutdown, which ends its event streams.
	OnShutdown []func()
	// Fallback, when set, serves requests for functions this gateway does
	// not know (main passes the gateway/edgeproxy proxy). It receives the
	// request exactly as the client sent it. Nil answers them with the
	// platform's 404.
	Fallback http.Handler
	// ObserveRequest, when set, is called once per request (probes
	// included) with the function's slug ("" when the path named no known
	// function), method, final status, duration and whether the answer was
	// an event stream. main passes the metrics recorder.
	ObserveRequest func(function, method string, status int, d time.Duration, stream bool)
	// ReportError, when set, receives every error answered with a 5xx
	// status by the error handler (recovered panics included), with the
	// tags component=gateway, function and method. main passes the error
	// reporter's Report. Functions should not also report errors they
	// return to the gateway.
	ReportError func(ctx context.Context, err error, tags map[string]string)
	// MetricsAddr and MetricsHandler, when both are set, make Run serve
	// MetricsHandler at /metrics on a second listener, never on the public
	// one.
	MetricsAddr    string
	MetricsHandler http.Handler
	// MetricsListener, when set, is the metrics listener to serve on
	// instead of listening on MetricsAddr (tests pass one bound to port 0,
	// so no port is freed and taken again). Serve closes it.
	MetricsListener net.Listener
	// Profiling, with MetricsAddr and MetricsHandler, also serves the Go
	// runtime's profiles (net/http/pprof) under /debug/pprof/ on the
	// metrics listener — never on the public one.
	Profiling bool
	// Pre middlewares run before routing, after the request id, the path
	// rewriting and the Unrouted handlers (which run before Echo).
	Pre []echo.MiddlewareFunc
	// Routes, when set, adds routes outside the function namespace, such as
	// the OAuth protected-resource metadata under /.well-known/.
	Routes func(e *echo.Echo)
}

// Server is the gateway's HTTP server.
type Server struct {
	opts Options
	log  *slog.Logger
	echo *echo.Echo

	// stopCtx is cancelled when shutdown starts. Request contexts carry it
	// (see ShutdownContext) but are not derived from it, so ordinary
	// requests still finish while streams are told to end.
	stopCtx  context.Context
	stop     context.CancelFunc
	known    map[string]bool // function slugs, for prepare
	unrouted map[string]echo.HandlerFunc
	draining atomic.Bool
	served   atomic.Bool
}

// New validates opts and builds the router and middleware chain.
func New(opts Options) (*Server, error) {
	if err := validateFunctions(opts.Functions); err != nil {
		return nil, err
	}
	if opts.BodyLimit < 0 || opts.ShutdownTimeout < 0 || opts.ReadyTimeout < 0 ||
		opts.ReadHeaderTimeout < 0 || opts.IdleTimeout < 0 {
		return nil, errors.New("gateway: limits and timeouts must not be negative")
	}
	setDefault(&opts.ListenAddr, DefaultListenAddr)
	setDefault(&opts.BodyLimit, DefaultBodyLimit)
	setDefault(&opts.ReadyTimeout, DefaultReadyTimeout)
	setDefault(&opts.ShutdownTimeout, DefaultShutdownTimeout)
	setDefault(&opts.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDefault(&opts.IdleTimeout, DefaultIdleTimeout)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}

	s := &Server{opts: opts, log: opts.Logger}
	s.stopCtx, s.stop = context.WithCancel(context.Background())

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	s.echo = e

	known := make(map[string]bool, len(opts.Functions))
	unrouted := make(map[string]echo.HandlerFunc)
	for _, f := range opts.Functions {
		known[f.Slug] = true
		if f.Unrouted != nil {
			unrouted[f.Slug] = f.Unrouted
		}
	}
	s.known, s.unrouted = known, unrouted
	e.Pre(opts.Pre...)
	e.Use(wrapRequest(RequestLogConfig{Logger: s.log, Skipper: isOperationsPath, Observe: opts.ObserveRequest, refusals: newRefusalLog()}, opts.BodyLimit))

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/_internal/health", internalHealth)
	for _, f := range opts.Functions {
		f.Register(e.Group(FunctionsPrefix + "/" + f.Slug))
	}
	if opts.Routes != nil {
		opts.Routes(e)
	}
	e.RouteNotFound("/*", s.unknownFunction)
	return s, nil
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// Handler returns the server's http.Handler, for tests and for embedding.
func (s *Server) Handler() http.Handler { return s }

// ServeHTTP applies the request smuggling guard (guardFraming), prepares
// the request (prepare: request id, original path, function, prefix
// rewriting), serves a method Echo does not route (serveUnrouted) and
// hands the rest to the router. Doing this outside Echo's Pre chain saves
// the closures Echo builds per middleware per request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if guardFraming(w, r, s.log) {
		return
	}
	r = prepare(s.known, w, r)
	if s.serveUnrouted(w, r) {
		return
	}
	s.echo.ServeHTTP(w, r)
}

// Stopping returns a channel closed when shutdown starts. main can hand it
// to functions that keep long-lived work of their own.
func (s *Server) Stopping() <-chan struct{} { return s.stopCtx.Done() }

type shutdownKey struct{}

// ShutdownContext returns the context, carried by every request the Server
// serves, that is cancelled when graceful shutdown starts. Long-lived
// handlers (event streams) select on its Done channel and end their stream;
// ordinary handlers ignore it and are allowed to finish. Outside a Server it
// returns a context that is never cancelled.
func ShutdownContext(ctx context.Context) context.Context {
	if c, ok := ctx.Value(shutdownKey{}).(context.Context); ok {
		return c
	}
	return context.Background()
}

// Run listens on Options.ListenAddr and serves until ctx is cancelled, then
// shuts down gracefully (see Serve).
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.opts.ListenAddr)
	if err != nil {
		return fmt.Errorf("gateway: listen on %s: %w", s.opts.ListenAddr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is cancelled. Then it stops accepting
// connections, cancels ShutdownContext and runs the OnShutdown hooks so
// streams end, waits up to ShutdownTimeout for in-flight requests, closes
// whatever is left, and returns. It returns an error only when serving
// failed; a Server serves once.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !s.served.CompareAndSwap(false, true) {
		_ = ln.Close()
		return errors.New("gateway: Serve called twice")
	}
	srv := s.httpServer(s)
	srv.BaseContext = func(net.Listener) context.Context {
		return context.WithValue(context.Background(), shutdownKey{}, s.stopCtx)
	}
	var hooks sync.Once
	srv.RegisterOnShutdown(func() {
		hooks.Do(func() {
			s.stop()
			var wg sync.WaitGroup
			for _, h := range s.opts.OnShutdown {
				wg.Go(h)
			}
			wg.Wait()
		})
	})

	servers := []*http.Server{srv}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("gateway listening", slog.String("addr", ln.Addr().String()))

	if (s.opts.MetricsAddr != "" || s.opts.MetricsListener != nil) && s.opts.MetricsHandler != nil {
		mln := s.opts.MetricsListener
		if mln == nil {
			var err error
			if mln, err = net.Listen("tcp", s.opts.MetricsAddr); err != nil {
				_ = srv.Close()
				<-errc
				return fmt.Errorf("gateway: listen on %s for metrics: %w", s.opts.MetricsAddr, err)
			}
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", s.opts.MetricsHandler)
		if s.opts.Profiling {
			registerProfiling(mux)
		}
		msrv := s.httpServer(mux)
		servers = append(servers, msrv)
		go func() { errc <- msrv.Serve(mln) }()
		s.log.Info("metrics listening", slog.String("addr", mln.Addr().String()))
	}

	var serveErr error
	select {
	case serveErr = <-errc:
		// A listener failed; shut the rest down the same way.
	case <-ctx.Done():
	}
	s.draining.Store(true)
	s.log.Info("gateway shutting down", slog.String("timeout", s.opts.ShutdownTimeout.String()))

	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, hs := range servers {
		wg.Go(func() {
			if err := hs.Shutdown(sctx); err != nil {
				// Requests still running at the deadline are cut off; the
				// process is exiting either way.
				s.log.Warn("shutdown deadline passed; closing remaining connections", slog.String("error", err.Error()))
				_ = hs.Close()
			}
		})
	}
	wg.Wait()
	s.stop() // also when a listener failed before any shutdown hook ran

	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("gateway: serve: %w", serveErr)
	}
	s.log.Info("gateway stopped")
	return nil
}

// httpServer applies the connection timeouts. There is deliberately no
// WriteTimeout and no ReadTimeout: a WriteTimeout would cut every event
// stream after that long, and a ReadTimeout's deadline also ends the
// background read net/http uses to notice disconnects, cancelling
// long-lived requests. Slow headers are bounded by ReadHeaderTimeout and
// bodies by the body limit; idle keep-alive connections by IdleTimeout.
func (s *Server) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}
