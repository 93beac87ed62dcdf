package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// HeaderRequestID is the header that carries the request id in both
// directions. Kong and most proxies already use it.
const HeaderRequestID = "X-Request-Id"

// maxRequestIDLen bounds an incoming id so a client cannot bloat every log
// line of its request.
const maxRequestIDLen = 128

// saneRequestID reports whether an incoming id may be reused: 1 to 128
// visible ASCII characters. Anything else (control characters that could
// forge log lines, spaces, non-ASCII) is replaced by a generated id.
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// newRequestID returns 16 random bytes in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}

// prepare runs before Echo (Server.ServeHTTP), once per request, and does
// in one step what every later stage reads: it honours a sane incoming
// X-Request-Id or generates one and echoes it on the response; it records
// the path the client sent (for the log) and the addressed function; and it
// moves a request for a known function made without the /functions/v1
// prefix under it — so one registration serves both a direct client and a
// path-stripping proxy. The id and paths go into the request context as one
// value, where NewLogHandler and the request log find them. Even 404s carry
// the id.
func prepare(known map[string]bool, w http.ResponseWriter, req *http.Request) *http.Request {
	ctx := &infoContext{Context: req.Context()}
	ids := req.Header[HeaderRequestID]
	if len(ids) == 0 || !saneRequestID(ids[0]) {
		ctx.id[0] = newRequestID()
		ids = ctx.id[:]
		req.Header[HeaderRequestID] = ids
	} else if len(ids) > 1 {
		ids = ids[:1:1]
	}
	// One slice for both headers: neither is modified in place (appending
	// to a full slice copies it).
	w.Header()[HeaderRequestID] = ids
	ctx.info = requestInfo{id: ids[0], originalPath: req.URL.Path}
	slug, prefixed := splitFunctionPath(req.URL.Path)
	if known[slug] {
		ctx.info.function = slug
		if !prefixed {
			req.URL.Path = FunctionsPrefix + req.URL.Path
			if req.URL.RawPath != "" {
				req.URL.RawPath = FunctionsPrefix + req.URL.RawPath
			}
		}
	}
	return req.WithContext(ctx)
}

// infoContext is context.WithValue(parent, requestIDKey{}, &info) in one
// allocation instead of two; it also holds the header value of a generated
// request id.
type infoContext struct {
	context.Context
	info requestInfo
	id   [1]string
}

func (c *infoContext) Value(key any) any {
	if key == (requestIDKey{}) {
		return &c.info
	}
	return c.Context.Value(key)
}

// RequestLogConfig configures the request log middleware.
type RequestLogConfig struct {
	// Skipper, when it returns true, suppresses the line. The default skips
	// the operations endpoints, which probes hit every few seconds.
	Skipper func(c echo.Context) bool
	// Logger receives one line per request.
	Logger *slog.Logger
	// Observe, when set, receives every request, skipped or not, for
	// metrics.
	Observe func(function, method string, status int, d time.Duration, stream bool)
	// refusals, when set, bounds the lines of refused (401) requests
	// (refusallog.go); nil logs every one.
	refusals *refusalLog
}

// maxLoggedPath truncates logged paths; the functions' paths are short and
// anything longer is noise or an attack.
const maxLoggedPath = 256

// wrapRequest is the middleware around every routed request, in one closure
// because Echo builds the middleware chain anew for every request (one
// allocation per middleware). From the outside in:
//
//   - the request log: one line per request — method, path (never the
//     query, which could carry secrets), function, status, duration and
//     bytes. It never logs headers, so Authorization and tokens cannot leak
//     through it. It lets the error handler write the answer first so the
//     logged status is the one the client saw;
//   - panic recovery: a panic in a handler becomes a 500 with a generic body
//     and is logged with its stack; http.ErrAbortHandler is re-raised (it is
//     how a handler asks net/http to drop the connection on purpose);
//   - the body limit: a declared Content-Length over limit is refused with
//     413 before the handler runs, and any body (chunked included) is capped
//     at limit; a read past it fails with *http.MaxBytesError, which the
//     error handler answers with 413. It is an outer bound: functions may
//     apply tighter limits.
func wrapRequest(cfg RequestLogConfig, limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := serveRecovered(c, next, cfg.Logger, limit); err != nil {
				c.Error(err)
			}
			now := time.Now()
			logRequestOf(c, cfg, now, now.Sub(start))
			return nil
		}
	}
}

func serveRecovered(c echo.Context, next echo.HandlerFunc, log *slog.Logger, limit int64) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if r == http.ErrAbortHandler {
			panic(r)
		}
		log.ErrorContext(c.Request().Context(), "panic in handler",
			slog.String("panic", fmt.Sprint(r)),
			slog.String("stack", string(debug.Stack())),
		)
		err = errPanic.WithCause(fmt.Errorf("panic: %v", r))
	}()
	req := c.Request()
	if req.ContentLength > limit {
		return errBodyTooLarge
	}
	// An HTTP/1 body with a declared length is already cut at that length
	// by net/http, which is within the limit here; only bodies of unknown
	// length (chunked) need the reader that enforces it.
	if req.Body != nil && req.Body != http.NoBody && (req.ContentLength < 0 || req.ProtoMajor != 1) {
		req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
	}
	return next(c)
}

// logRequestOf observes and logs the finished request.
func logRequestOf(c echo.Context, cfg RequestLogConfig, now time.Time, elapsed time.Duration) {
	req, res := c.Request(), c.Response()
	info := requestInfoOf(c)
	if cfg.Observe != nil {
		stream := strings.HasPrefix(res.Header().Get(echo.HeaderContentType), "text/event-stream")
		cfg.Observe(info.function, req.Method, res.Status, elapsed, stream)
	}
	if cfg.Skipper != nil && cfg.Skipper(c) {
		return
	}
	var notLogged int64
	if res.Status == http.StatusUnauthorized && cfg.refusals != nil {
		var ok bool
		if ok, notLogged = cfg.refusals.admit(now); !ok {
			return
		}
	}
	path := info.originalPath
	if len(path) > maxLoggedPath {
		path = path[:maxLoggedPath] + "…"
	}
	level := slog.LevelInfo
	if res.Status >= 500 {
		level = slog.LevelWarn
	}
	logRequest(req.Context(), cfg.Logger, level, requestLine{
		method: req.Method, path: path, function: info.function,
		status: res.Status, elapsed: elapsed, bytes: res.Size,
		refusalsNotLogged: notLogged,
	})
}
