package approval

import (
	"net"
	"net/http"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// DefaultCallbacksPerMinute bounds the sign-in callbacks one address may
// bring to Supabase Auth: far above what a person signing in for a few
// approvals needs, far below a flood of made-up codes.
const DefaultCallbacksPerMinute = 30

// callbackAddresses bounds the addresses the limit remembers; a quiet
// address that is forgotten has lost nothing (its bucket had refilled).
const callbackAddresses = 100_000

// callbackLimit is a token bucket per client address for the sign-in
// callback. The key is the address (Options.ClientAddress), which a
// flooder cannot choose, so a flood spends only its own budget.
type callbackLimit struct {
	every rate.Limit
	burst int
	now   func() time.Time
	keys  *lru.Cache[string, *rate.Limiter]
}

func newCallbackLimit(perMinute int, now func() time.Time) *callbackLimit {
	keys, err := lru.New[string, *rate.Limiter](callbackAddresses)
	if err != nil {
		panic(err) // only for a size ≤ 0
	}
	return &callbackLimit{every: rate.Limit(float64(perMinute) / 60), burst: perMinute, now: now, keys: keys}
}

// allow records one callback from addr, unless its bucket is empty.
func (l *callbackLimit) allow(addr string) bool {
	b, seen := l.keys.Get(addr) // Get makes addr the most recently seen
	if !seen {
		// Of two first callbacks at once, the second takes the first's bucket.
		b = rate.NewLimiter(l.every, l.burst)
		if prev, found, _ := l.keys.PeekOrAdd(addr, b); found {
			b = prev
		}
	}
	return b.AllowN(l.now(), 1)
}

// peerAddress is the connection's peer, the default ClientAddress.
func peerAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
