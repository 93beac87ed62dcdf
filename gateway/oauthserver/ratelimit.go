package oauthserver

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// limiter counts events per client address in fixed one-minute windows.
// The map is reset each window and capped, so memory stays bounded even
// under a flood of distinct addresses; when the cap is reached, addresses
// not yet seen in the window are refused (failing closed under attack is
// the point of the limit).
type limiter struct {
	perMinute int
	maxKeys   int
	now       func() time.Time

	mu     sync.Mutex
	window int64
	counts map[string]int
}

func newLimiter(perMinute int, now func() time.Time) *limiter {
	return &limiter{perMinute: perMinute, maxKeys: 100_000, now: now, counts: make(map[string]int)}
}

// allow records one event for key and reports whether it is within the limit.
func (l *limiter) allow(key string) bool {
	if l == nil || l.perMinute <= 0 {
		return true
	}
	w := l.now().Unix() / 60
	l.mu.Lock()
	defer l.mu.Unlock()
	if w != l.window {
		l.window = w
		clear(l.counts)
	}
	n, seen := l.counts[key]
	if !seen && len(l.counts) >= l.maxKeys {
		return false
	}
	if n >= l.perMinute {
		return false
	}
	l.counts[key] = n + 1
	return true
}

// clientIP is the address rate limits count against: the peer, unless the
// peer is a configured trusted proxy, in which case X-Forwarded-For is read
// from the right, skipping trusted proxies, and the first untrusted address
// is the client. A forged X-Forwarded-For from an untrusted peer is
// ignored; one added in front of a trusted proxy's entry is skipped past.
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	if !isTrusted(peer, trusted) {
		return peer.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			// A malformed hop cannot be attributed; stop at the last
			// trusted address rather than believe anything further left.
			break
		}
		a = a.Unmap()
		if !isTrusted(a, trusted) {
			return a.String()
		}
		peer = a
	}
	return peer.String()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
