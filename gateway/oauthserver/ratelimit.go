package oauthserver

import (
	"container/list"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// defaultLimiterKeys bounds how many client addresses each limiter
// remembers. An address that has been quiet long enough for its bucket to
// refill loses nothing by being forgotten, so evicting the least recently
// seen address under a flood costs at most one fresh burst for it, while
// refusing unseen addresses would lock every newcomer out.
const defaultLimiterKeys = 100_000

// limiter is a token bucket per client address (golang.org/x/time/rate):
// perMinute tokens refill evenly over each minute and a full bucket holds
// perMinute, so an address gets at most perMinute events in any
// one-minute span plus what refilled meanwhile, wherever the span starts.
// Buckets live in an LRU list capped at maxKeys.
type limiter struct {
	every   rate.Limit
	burst   int
	maxKeys int
	now     func() time.Time

	mu    sync.Mutex
	lru   *list.List // of *bucket, most recently seen first
	byKey map[string]*list.Element
}

type bucket struct {
	key string
	lim *rate.Limiter
}

// newLimiter returns nil (no limit) when perMinute is not positive.
func newLimiter(perMinute int, now func() time.Time) *limiter {
	if perMinute <= 0 {
		return nil
	}
	return &limiter{
		every: rate.Limit(float64(perMinute) / 60), burst: perMinute, maxKeys: defaultLimiterKeys, now: now,
		lru: list.New(), byKey: make(map[string]*list.Element),
	}
}

// allow records one event for key. When the bucket is empty it records
// nothing and returns how long until a token is available (at least one
// second, the unit of Retry-After).
func (l *limiter) allow(key string) (ok bool, retryAfter time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	var b *bucket
	if el, seen := l.byKey[key]; seen {
		l.lru.MoveToFront(el)
		b = el.Value.(*bucket)
	} else {
		if l.lru.Len() >= l.maxKeys {
			oldest := l.lru.Back()
			l.lru.Remove(oldest)
			delete(l.byKey, oldest.Value.(*bucket).key)
		}
		b = &bucket{key: key, lim: rate.NewLimiter(l.every, l.burst)}
		l.byKey[key] = l.lru.PushFront(b)
	}
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Minute
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, max(d, time.Second)
	}
	return true, 0
}

// retryAfterSeconds is the Retry-After value for a delay: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// newIPExtractor is Echo's trusted-proxy extractor for the configured
// proxies: without any, the peer address; with some, X-Forwarded-For read
// from the right while the hops are trusted proxies, and the first
// untrusted address is the client. Only the configured ranges are trusted
// (Echo by default also trusts loopback, link-local and private peers,
// which would let any host on the same network forge its address).
func newIPExtractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		p = p.Masked()
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// clientIP is the address rate limits count against, IPv4-mapped IPv6
// addresses written as IPv4 so one client has one key.
func (s *Server) clientIP(r *http.Request) string {
	ip := s.extractIP(r)
	if a, err := netip.ParseAddr(ip); err == nil {
		return a.Unmap().String()
	}
	return ip
}
