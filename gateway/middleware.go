package gateway

import (
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

// requestID honours a sane incoming X-Request-Id or generates one, echoes
// it on the response, and stores it in the request context where
// NewLogHandler finds it. It runs before routing so that even 404s carry it.
func requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		id := req.Header.Get(HeaderRequestID)
		if !saneRequestID(id) {
			id = newRequestID()
			req.Header.Set(HeaderRequestID, id)
		}
		c.Response().Header().Set(HeaderRequestID, id)
		c.SetRequest(req.WithContext(WithRequestID(req.Context(), id)))
		return next(c)
	}
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
}

// maxLoggedPath truncates logged paths; the functions' paths are short and
// anything longer is noise or an attack.
const maxLoggedPath = 256

// requestLog writes one line per request: method, path (never the query,
// which could carry secrets), function, status, duration and bytes. It never
// logs headers, so Authorization and tokens cannot leak through it. It lets
// the error handler write the answer first so the logged status is the one
// the client saw.
func requestLog(cfg RequestLogConfig) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			elapsed := time.Since(start)
			if cfg.Observe != nil {
				stream := strings.HasPrefix(res.Header().Get(echo.HeaderContentType), "text/event-stream")
				cfg.Observe(functionSlug(c), req.Method, res.Status, elapsed, stream)
			}
			if cfg.Skipper != nil && cfg.Skipper(c) {
				return nil
			}
			path := originalPath(c)
			if len(path) > maxLoggedPath {
				path = path[:maxLoggedPath] + "…"
			}
			level := slog.LevelInfo
			if res.Status >= 500 {
				level = slog.LevelWarn
			}
			cfg.Logger.LogAttrs(req.Context(), level, "request",
				slog.String("method", req.Method),
				slog.String("path", path),
				slog.String("function", functionSlug(c)),
				slog.Int("status", res.Status),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
				slog.Int64("bytes", res.Size),
			)
			return nil
		}
	}
}

// recoverPanics turns a panic in a handler into a 500 with a generic body
// and logs the panic value with its stack. http.ErrAbortHandler is re-raised:
// it is how a handler asks net/http to drop the connection on purpose.
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
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
			return next(c)
		}
	}
}

// bodyLimit refuses a declared Content-Length over limit with 413 and caps
// what a handler can read from any body (chunked included) at limit; a read
// past it fails with *http.MaxBytesError, which the error handler answers
// with 413. It is an outer bound: functions may apply tighter limits.
func bodyLimit(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.ContentLength > limit {
				return errBodyTooLarge
			}
			if req.Body != nil && req.Body != http.NoBody {
				req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			}
			return next(c)
		}
	}
}
