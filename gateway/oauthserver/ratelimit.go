package oauthserver

import (
	"net"
	"net/http"
	"net/netip"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
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
// The buckets sit in an LRU cache of defaultLimiterKeys addresses; a
// rate.Limiter is safe for concurrent use, so the cache's own lock is the
// only one.
type limiter struct {
	every rate.Limit
	burst int
	now   func() time.Time
	keys  *lru.Cache[string, *rate.Limiter]
}

// newLimiter returns nil (no limit) when perMinute is not positive.
func newLimiter(perMinute int, now func() time.Time) *limiter {
	if perMinute <= 0 {
		return nil
	}
	keys, err := lru.New[string, *rate.Limiter](defaultLimiterKeys)
	if err != nil {
		panic(err) // only for a size ≤ 0
	}
	return &limiter{every: rate.Limit(float64(perMinute) / 60), burst: perMinute, now: now, keys: keys}
}

// allow records one event for key. When the bucket is empty it records
// nothing and returns how long until a token is available (at least one
// second, the unit of Retry-After).
func (l *limiter) allow(key string) (ok bool, retryAfter time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	b, seen := l.keys.Get(key) // Get makes key the most recently seen
	if !seen {
		// At capacity the least recently seen address is forgotten. Of
		// two first events at once, the second takes the first's bucket.
		b = rate.NewLimiter(l.every, l.burst)
		if prev, found, _ := l.keys.PeekOrAdd(key, b); found {
			b = prev
		}
	}
	r := b.ReserveN(now, 1)
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
