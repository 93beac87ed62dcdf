package gateway

import (
	"sync"
	"time"
)

// Refused requests (401: no token, or one that is malformed, invalid or
// revoked) cost a stranger nothing to send, and one request line each was
// half of what the gateway spent on them. They are counted in full by the
// metrics (gateway_http_requests_total with status 401, and
// gateway_auth_outcomes_total by reason); the request log keeps at most
// refusalLinesPerWindow of their lines per refusalWindow, and the next line
// it keeps says how many it left out (refusals_not_logged).
const (
	refusalLinesPerWindow = 5
	refusalWindow         = time.Second
)

// refusalLog decides which refused requests get a request line: the first
// perWindow of each window, a window starting at the first refusal seen
// after the previous one ended. Safe for concurrent use.
type refusalLog struct {
	perWindow int
	window    time.Duration

	mu          sync.Mutex
	windowStart time.Time
	logged      int   // lines kept in the current window
	notLogged   int64 // refusals left out since the last line kept
}

func newRefusalLog() *refusalLog {
	return &refusalLog{perWindow: refusalLinesPerWindow, window: refusalWindow}
}

// admit reports whether the refusal seen at now gets a line and, if so,
// how many refusals were left out since the previous line kept.
func (l *refusalLog) admit(now time.Time) (ok bool, notLogged int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.windowStart.IsZero() || now.Sub(l.windowStart) >= l.window || now.Before(l.windowStart) {
		l.windowStart = now
		l.logged = 0
	}
	if l.logged >= l.perWindow {
		l.notLogged++
		return false, 0
	}
	l.logged++
	notLogged, l.notLogged = l.notLogged, 0
	return true, notLogged
}
