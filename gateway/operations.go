package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// isOperationsPath skips probe endpoints in the request log: orchestrators
// hit them every few seconds and the lines would drown real traffic.
func isOperationsPath(c echo.Context) bool {
	p := originalPath(c)
	return p == "/healthz" || p == "/readyz" || strings.HasPrefix(p, "/_internal/")
}

func writeJSON(c echo.Context, status int, body *jsjson.Object) error {
	b, err := jsjson.Marshal(body)
	if err != nil {
		return err
	}
	return c.Blob(status, echo.MIMEApplicationJSON, b)
}

// healthz is liveness: it depends on nothing, so a failing upstream never
// gets a healthy replica restarted.
func (s *Server) healthz(c echo.Context) error {
	return writeJSON(c, http.StatusOK, jsjson.NewObject(1).Set("status", "ok"))
}

// readyz is readiness: 200 when Options.Ready passes within ReadyTimeout,
// 503 with the reason otherwise, and 503 once shutdown has started so load
// balancers stop sending new requests. The reason is the check's error
// text, so checks should phrase errors without secrets or addresses.
func (s *Server) readyz(c echo.Context) error {
	if s.draining.Load() {
		return writeJSON(c, http.StatusServiceUnavailable,
			jsjson.NewObject(2).Set("status", "unavailable").Set("reason", "shutting down"))
	}
	if s.opts.Ready != nil {
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.opts.ReadyTimeout)
		defer cancel()
		if err := runCheck(ctx, s.opts.Ready); err != nil {
			s.log.WarnContext(ctx, "readiness check failed", slog.String("error", err.Error()))
			return writeJSON(c, http.StatusServiceUnavailable,
				jsjson.NewObject(2).Set("status", "unavailable").Set("reason", err.Error()))
		}
	}
	return writeJSON(c, http.StatusOK, jsjson.NewObject(1).Set("status", "ok"))
}

// internalHealth answers as the edge runtime's main service does, so probes
// written for it keep working.
func internalHealth(c echo.Context) error {
	return writeJSON(c, http.StatusOK, jsjson.NewObject(1).Set("message", "ok"))
}

// checkGrace is how long runCheck waits, once the probe's deadline has
// passed, for a check that watches its context to say why it gave up.
const checkGrace = 100 * time.Millisecond

// runCheck runs check but returns when ctx ends even if check ignores its
// context, so a stuck dependency cannot pile up blocked probe requests. A
// check that watches ctx reports its own reason (which dependency did not
// answer); one that ignores it, or succeeds only after its deadline, is
// reported as timed out.
func runCheck(ctx context.Context, check func(context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- check(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	errTimedOut := errors.New("readiness check timed out")
	select {
	case err := <-done:
		if err == nil {
			return errTimedOut // it answered after its deadline
		}
		return err
	case <-time.After(checkGrace):
		return errTimedOut
	}
}
