// Command gateway serves Pawtograder's mcp-server and mcp-tokens Edge
// Functions from one Go binary, at the URLs Supabase's edge runtime uses.
//
// Usage:
//
//	gateway              serve (the default; also "gateway serve")
//	gateway healthcheck  GET /healthz on the local listener; exit 0 when healthy
//	gateway version      print the version stamped at build time
//
// Configuration comes from the environment; see docs/configuration.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway"
	"github.com/pawtograder/mcp-gateway/gateway/clientconfig"
	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/edgeproxy"
	"github.com/pawtograder/mcp-gateway/gateway/errorreport"
)

// version is stamped by the build: -ldflags "-X main.version=…".
var version = "dev"

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const usage = `usage: gateway [serve|healthcheck|version|client-config --url URL [--token T] [--name N]]

  serve          serve the functions (default)
  healthcheck    exit 0 when the local gateway answers GET /healthz with 200
                 (reads only GATEWAY_LISTEN_ADDR)
  client-config  print MCP client configurations (Claude Desktop, Claude Code,
                 URL+header clients, VS Code, MCP Inspector, ChatGPT) for the
                 endpoint URL
  version      print the version

Configuration is read from the environment; see docs/configuration.md.
`

func main() {
	os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
}

// cli dispatches the subcommand and returns the exit code; main is the only
// caller of os.Exit.
func cli(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == "client-config" {
		return clientConfigCommand(args[1:], stdout, stderr)
	}
	if len(args) > 1 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch cmd {
	case "serve":
		return serveCommand(stderr)
	case "healthcheck":
		return healthcheckCommand(stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, version)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "gateway: unknown command %q\n%s", cmd, usage)
		return exitUsage
	}
}

func serveCommand(stderr io.Writer) int {
	cfg, err := config.FromEnvironment()
	if err != nil {
		fmt.Fprintf(stderr, "gateway: invalid configuration:\n%s\n", indent(err.Error()))
		return exitError
	}
	log := newLogger(cfg, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, log); err != nil {
		log.Error("gateway failed", slog.String("error", err.Error()))
		return exitError
	}
	return exitOK
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// auditOutput is where the audit log goes: stderr, beside the process log
// (tests silence it).
var auditOutput io.Writer = os.Stderr

// newAuditLog builds the audit log (one line per tools/call, see
// docs/audit.md). Its level is fixed at info so GATEWAY_LOG_LEVEL=warn
// cannot silence it.
func newAuditLog(cfg config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	attrs := []slog.Attr{slog.String("log", "audit"), slog.String("version", version)}
	if cfg.LogFormat == config.LogFormatText {
		return slog.New(slog.NewTextHandler(w, opts).WithAttrs(attrs))
	}
	return slog.New(slog.NewJSONHandler(w, opts).WithAttrs(attrs))
}

// newLogger builds the process logger; its handler adds request_id to every
// line logged with a request's context.
func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var h slog.Handler
	if cfg.LogFormat == config.LogFormatText {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(gateway.NewLogHandler(h)).With(slog.String("version", version))
}

// run wires the dependencies and serves until ctx is cancelled.
func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	warnMissingFunctionSettings(log, cfg)
	srv, b, cleanup, err := newServer(cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	log.Info("gateway starting", slog.Any("functions", b.slugs), slog.String("public_url", urlString(cfg.PublicURL)))
	if b.schema != nil {
		// From start-up until it succeeds, so the log names missing
		// migrations even where nothing polls /readyz.
		go b.schema.watch(ctx)
	}
	for _, f := range b.background {
		go f(ctx)
	}
	return srv.Run(ctx)
}

// built is what newServer reports beside the server.
type built struct {
	slugs  []string     // the functions served
	schema *schemaCheck // the migrations check (nil without PostgREST); run starts its watch
	// background jobs (the write tools' purge); run starts them
	background []func(ctx context.Context)
}

// newServer builds the gateway from cfg: the functions (functions.go),
// metrics, error reporting and the fallback proxy. cleanup releases what
// the functions hold (the last_used_at worker, queued error reports).
func newServer(cfg config.Config, log *slog.Logger) (_ *gateway.Server, b built, cleanup func(), err error) {
	w, err := buildFunctions(cfg, log, newAuditLog(cfg, auditOutput))
	if err != nil {
		return nil, b, nil, err
	}
	for _, f := range w.functions {
		b.slugs = append(b.slugs, f.Slug)
	}
	m := w.metrics

	reporter, rerr := errorreport.New(errorreport.Options{DSN: cfg.SentryDSN, Release: version})
	if rerr != nil {
		// The original runs without Sentry when it cannot initialise it;
		// error reporting must never keep the functions from serving.
		// The parse error is not logged: it could quote the DSN.
		log.Warn("error reporting disabled: SENTRY_DSN is invalid")
		reporter = nil
	}
	b.schema = newSchemaCheck(cfg, log)
	b.background = w.background
	cleanup = func() {
		if w.close != nil {
			w.close()
		}
		reporter.Flush(2 * time.Second)
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()

	var fb http.Handler
	if cfg.FallbackURL != nil {
		h, err := edgeproxy.New(edgeproxy.Options{Upstream: cfg.FallbackURL.String(), Logger: log, Observe: m.Proxied})
		if err != nil {
			return nil, built{}, nil, err
		}
		fb = h
	}

	var metricsHandler http.Handler
	if cfg.MetricsAddr != "" {
		metricsHandler = m.Handler()
	}

	srv, err := gateway.New(gateway.Options{
		Functions:       w.functions,
		Pre:             w.pre,
		Routes:          w.routes,
		Logger:          log,
		ListenAddr:      cfg.ListenAddr,
		BodyLimit:       cfg.BodyLimit,
		Ready:           readiness(cfg, b.schema),
		ReadyTimeout:    readyTimeout(cfg),
		ShutdownTimeout: cfg.ShutdownTimeout,
		OnShutdown:      w.onShutdown,
		Fallback:        fb,
		ObserveRequest:  m.HTTPRequest,
		ReportError:     reporter.Report,
		MetricsAddr:     cfg.MetricsAddr,
		MetricsHandler:  metricsHandler,
		Profiling:       cfg.Profiling,
	})
	if err != nil {
		return nil, built{}, nil, err
	}
	return srv, b, cleanup, nil
}

// warnMissingFunctionSettings names (never prints) function settings that
// are missing. They do not stop start-up — the original answers specific
// 500s at request time and so does the gateway — but an operator should not
// have to discover them from a failed request. The signing secrets are not
// among them: config.Load refuses a missing or malformed one.
func warnMissingFunctionSettings(log *slog.Logger, cfg config.Config) {
	missing := func(name string, bad bool) {
		if bad {
			log.Warn("function setting missing or invalid; requests that need it will answer 500", slog.String("variable", name))
		}
	}
	missing("SUPABASE_URL", cfg.SupabaseURLRaw == "")
	missing("SUPABASE_ANON_KEY", cfg.SupabaseAnonKey == "")
	missing("SUPABASE_SERVICE_ROLE_KEY", cfg.SupabaseServiceRoleKey == "")
}

func urlString(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.String()
}

// healthcheckCommand is the container's HEALTHCHECK: distroless images have
// no curl, so the binary probes itself. It reads only GATEWAY_LISTEN_ADDR,
// the one setting it uses.
func healthcheckCommand(stderr io.Writer) int {
	addr, err := config.ListenAddrFromEnvironment()
	if err != nil {
		fmt.Fprintf(stderr, "gateway healthcheck: invalid configuration:\n%s\n", indent(err.Error()))
		return exitError
	}
	if err := healthcheck(context.Background(), healthURL(addr), 3*time.Second); err != nil {
		fmt.Fprintf(stderr, "gateway healthcheck: %v\n", err)
		return exitError
	}
	return exitOK
}

// healthURL turns the listen address into the URL of /healthz on this
// machine: a wildcard or empty host becomes the loopback address.
func healthURL(listenAddr string) string {
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		host, port = "", "9000"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz"
}

func healthcheck(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %d", url, resp.StatusCode)
	}
	return nil
}

// clientConfigCommand prints ready-to-paste client configurations, rendered
// by the same code the dev command uses, so instructions cannot drift.
func clientConfigCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("client-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("url", "", "the MCP endpoint, e.g. https://<ref>.supabase.co/functions/v1/mcp-server (required)")
	token := fs.String("token", "", "an mcp_ token to embed (default: a placeholder)")
	name := fs.String("name", "pawtograder", "the server's name in client configurations")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return exitUsage
	}
	text, err := clientconfig.Render(clientconfig.Options{URL: *endpoint, Token: *token, Name: *name})
	if err != nil {
		fmt.Fprintln(stderr, "gateway client-config:", err)
		return exitUsage
	}
	fmt.Fprint(stdout, text)
	return exitOK
}
