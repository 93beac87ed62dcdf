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

// defaultLimiterKeys bounds how many keys (client addresses, pairs of a
// client and an address, or grants) each limiter remembers. A key that has been quiet long enough
// for its bucket to refill loses nothing by being forgotten, so evicting
// the least recently seen key under a flood costs at most one fresh burst
// for it, while refusing unseen keys would lock every newcomer out.
const defaultLimiterKeys = 100_000

// limiter is a token bucket per key (golang.org/x/time/rate): perMinute
// tokens refill evenly over each minute and a full bucket holds
// perMinute, so a key gets at most perMinute events in any one-minute
// span plus what refilled meanwhile, wherever the span starts. The
// buckets are this process's own: with N replicas behind a balancer that
// spreads requests evenly, a key gets up to N times as many (docs/oauth.md).
// The buckets sit in an LRU cache of defaultLimiterKeys keys; a
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

// blocked reports, without recording anything, whether key's bucket is
// empty, and if so how long until it holds a token again (at least one
// second). An unseen key is not remembered: only events take memory.
func (l *limiter) blocked(key string) (bool, time.Duration) {
	if l == nil {
		return false, 0
	}
	b, seen := l.keys.Get(key)
	if !seen {
		return false, 0
	}
	tokens := b.TokensAt(l.now())
	if tokens >= 1 {
		return false, 0
	}
	wait := time.Duration((1 - tokens) / float64(l.every) * float64(time.Second))
	return true, max(wait, time.Second)
}

// The descriptions of the 429 answers, one per limit. They use only the
// characters RFC 6749 §5.2 allows in error_description.
const (
	descTooManyAddress = "Too many requests from this address; try again in a minute"
	descTooManyFailed  = "Too many invalid token requests for this client from this address; try again after the delay in Retry-After"
	descTooManyRefresh = "Too many refreshes of this grant; try again after the delay in Retry-After"
)

// tooMany is the 429 answer of a limit; writeError sends wait as
// Retry-After.
func tooMany(desc string, wait time.Duration) *Error {
	e := oauthErr(http.StatusTooManyRequests, codeTemporarilyUnavailable, desc)
	e.retryAfter = wait
	return e
}

// failures is the budget of token and revocation requests that find
// nothing, for one client from one address. A client_id is public (it is
// in every authorization URL, and a metadata document URL is the same for
// every user of a host), so a budget per client alone would let anyone
// spend it for all of that client's users; with the address in the key a
// flood spends only its own address's budget, which the flooder cannot
// choose (the connection's peer, or X-Forwarded-For only from
// TrustedProxies). Requests that find their code, token or grant are
// bounded by it instead: a code works once, a grant's refreshes have
// their own bucket (limitRefresh), a grant is revoked once.
type failures struct {
	limit *limiter
	key   string
}

// failuresOf is the budget of client's requests from addr (clientIP).
// The client is keyed by its hash, so a key has a fixed size however
// long the client_id (a metadata document URL may have 2,048
// characters).
func (s *Server) failuresOf(client *Client, addr string) failures {
	return failures{limit: s.failLimit, key: hashToken(client.ID)[:32] + " " + addr}
}

// check refuses the request when the budget is spent. It runs before the
// store is asked anything, so a refused request costs no database round
// trip, and records nothing.
func (f failures) check() error {
	if blocked, wait := f.limit.blocked(f.key); blocked {
		return tooMany(descTooManyFailed, wait)
	}
	return nil
}

// charge records one request that found nothing, when err, its refusal,
// is the client's own mistake (400: a code or token unknown, expired,
// used, of another client or not matching the request); never a server
// fault or another limit's 429.
func (f failures) charge(err error) {
	if err != nil && asError(err).Status == http.StatusBadRequest {
		f.spend()
	}
}

// spend records one request that found nothing.
func (f failures) spend() { f.limit.allow(f.key) }

// limitRefresh counts one refresh against the grant (the refresh-token
// family) tokenID, so one user's looping client cannot spend the budget
// its host's other users share.
func (s *Server) limitRefresh(tokenID string) error {
	if ok, wait := s.refreshLimit.allow(tokenID); !ok {
		return tooMany(descTooManyRefresh, wait)
	}
	return nil
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

// ClientAddress reads a request's client address as the OAuth server's
// limits do with trusted as TrustedProxies, for limits elsewhere in the
// gateway (the approval page's sign-in callback).
func ClientAddress(trusted []netip.Prefix) func(*http.Request) string {
	s := &Server{extractIP: newIPExtractor(trusted)}
	return s.clientIP
}
