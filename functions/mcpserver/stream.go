package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
)

// endpointWarning is logged for every GET stream when EdgeFunctionsURL is
// unset, with the original's exact text.
const endpointWarning = "EDGE_FUNCTIONS_URL is not set; skipping SSE endpoint event to avoid emitting a URL from unvalidated headers. Set EDGE_FUNCTIONS_URL for the canonical MCP endpoint URL."

// keepAliveComment is an SSE comment: clients ignore it, proxies see traffic.
const keepAliveComment = ": keep-alive\n\n"

// keepAliveWriteTimeout bounds one keep-alive write, so a client that stopped
// reading cannot pin the handler.
const keepAliveWriteTimeout = 10 * time.Second

// Messages of the stream-limit answers (GET error shape, {"error": …}).
const (
	msgTooManyStreamsToken = "Too many open event streams for this token"
	msgTooManyStreams      = "Too many open event streams"
	msgShuttingDown        = "Server is shutting down"
)

// serveGET opens the server-to-client stream (docs/contract/protocol.md A6.1). Nothing is
// ever sent on it besides the optional endpoint event (and keep-alive
// comments when configured); it ends when the client leaves or the server
// shuts down.
func (s *Server) serveGET(c echo.Context) error {
	// Checked before authentication, as in the original.
	if !strings.Contains(headerJS(c.Request().Header, "Accept"), "text/event-stream") {
		return writeJSON(c, http.StatusNotAcceptable, jsonrpc.ErrorBody("Must accept text/event-stream"))
	}
	log := s.requestLogger(c)
	cl, ae := s.authenticate(c, log)
	if ae != nil {
		s.setChallenge(c, ae)
		return writeJSON(c, ae.Status, jsonrpc.ErrorBody(ae.Message))
	}
	hv := headerJS(c.Request().Header, protocolVersionKey)
	if revision.Stateless(hv) && !s.pinProtocol {
		// 2026-07-28 replaced the GET stream with subscriptions/listen; a
		// server answers GET at that revision with 405.
		return writeJSON(c, http.StatusMethodNotAllowed, jsonrpc.ErrorBody("Method not allowed"))
	}
	if version, ok := s.requestVersion(hv); !ok {
		return writeJSON(c, http.StatusBadRequest, jsonrpc.ErrorBody(revision.UnsupportedStreamMessage(version)))
	}
	key := cl.principal.TokenID
	if key == "" {
		key = "user:" + cl.principal.UserID
	}
	release, status, msg := s.streams.acquire(key)
	if release == nil {
		log.Warn("mcp-server: event stream refused", "status", status, "reason", msg)
		return writeJSON(c, status, jsonrpc.ErrorBody(msg))
	}
	defer release()
	s.metrics.StreamOpened()
	defer s.metrics.StreamClosed()

	rc, ok := s.openStream(c, log)
	if !ok {
		return nil // the client is gone
	}
	s.holdStream(c.Request().Context(), c.Response(), rc)
	return nil
}

// openStream sends the stream's headers and, when the public functions
// URL is known, the endpoint event, and flushes them; false means the
// client is gone.
func (s *Server) openStream(c echo.Context, log *slog.Logger) (*http.ResponseController, bool) {
	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set(echo.HeaderConnection, "keep-alive")
	rc := http.NewResponseController(w)
	// The stream outlives any server-wide WriteTimeout by design.
	_ = rc.SetWriteDeadline(time.Time{})
	w.WriteHeader(http.StatusOK)
	if s.endpoint != "" {
		if _, err := w.Write([]byte("event: endpoint\ndata: " + s.endpoint + "\n\n")); err != nil {
			return nil, false
		}
	} else {
		log.Warn(endpointWarning)
	}
	if err := rc.Flush(); err != nil {
		if !errors.Is(err, http.ErrNotSupported) {
			return nil, false
		}
		// A middleware wrapped the writer without Unwrap: the client will
		// not see the headers until the stream ends. Worth fixing loudly.
		log.Error("mcp-server: response writer cannot flush; event stream is buffered", "writer", fmt.Sprintf("%T", w.Writer))
	}
	return rc, true
}

// holdStream keeps an open stream until the client leaves or the server
// shuts down, sending nothing but the optional keep-alive comments.
func (s *Server) holdStream(ctx context.Context, w io.Writer, rc *http.ResponseController) {
	var tick <-chan time.Time
	if s.keepAlive > 0 {
		t := time.NewTicker(s.keepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.streams.done:
			return
		case <-tick:
			_ = rc.SetWriteDeadline(time.Now().Add(keepAliveWriteTimeout))
			_, err := w.Write([]byte(keepAliveComment))
			if err == nil {
				err = rc.Flush()
			}
			if err != nil && !errors.Is(err, http.ErrNotSupported) {
				return
			}
			_ = rc.SetWriteDeadline(time.Time{})
		}
	}
}

// streamLimiter bounds the open GET streams overall and per key, and ends
// them all on shutdown. It holds no goroutine per stream.
type streamLimiter struct {
	max, perKey int

	mu     sync.Mutex
	total  int
	byKey  map[string]int
	closed bool
	wg     sync.WaitGroup // one count per open stream

	done      chan struct{} // closed on shutdown; streams select on it
	closeOnce sync.Once
}

func newStreamLimiter(max, perKey int) *streamLimiter {
	return &streamLimiter{max: max, perKey: perKey, byKey: map[string]int{}, done: make(chan struct{})}
}

// acquire reserves a stream for key. On refusal release is nil and status
// and msg say why: 429 for the per-key bound, 503 for the global bound or
// shutdown.
func (l *streamLimiter) acquire(key string) (release func(), status int, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return nil, http.StatusServiceUnavailable, msgShuttingDown
	case l.byKey[key] >= l.perKey:
		return nil, http.StatusTooManyRequests, msgTooManyStreamsToken
	case l.total >= l.max:
		return nil, http.StatusServiceUnavailable, msgTooManyStreams
	}
	l.total++
	l.byKey[key]++
	l.wg.Add(1) // under mu and before closed is set: never races with Wait
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.total--
			if l.byKey[key]--; l.byKey[key] == 0 {
				delete(l.byKey, key) // keeps the map bounded by open streams
			}
			l.mu.Unlock()
			l.wg.Done()
		})
	}, 0, ""
}

// open returns the number of open streams.
func (l *streamLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// shutdown refuses new streams, ends the open ones and waits for their
// handlers to return or ctx to end.
func (l *streamLimiter) shutdown(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.closeOnce.Do(func() { close(l.done) })
	finished := make(chan struct{})
	go func() { // ends when the last stream handler returns
		l.wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
