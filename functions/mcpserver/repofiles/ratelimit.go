package repofiles

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The original's throttler never retries rate-limited requests; neither do
// we. Beyond that, a remembered reset time makes later requests for the same
// installation fail immediately instead of spending GitHub's budget (and the
// caller's deadline) on answers we know will be refusals.

type limitKeyCtx struct{}

// withLimitKey tags requests made with ctx with the rate-limit bucket they
// count against.
func withLimitKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, limitKeyCtx{}, key)
}

func limitKey(ctx context.Context) string {
	if k, ok := ctx.Value(limitKeyCtx{}).(string); ok {
		return k
	}
	return "app"
}

func installationKey(id int64) string { return "installation/" + strconv.FormatInt(id, 10) }

// rateLimits remembers, per key, when GitHub said requests may resume.
type rateLimits struct {
	mu    sync.Mutex
	until map[string]time.Time
	now   func() time.Time
}

func newRateLimits(now func() time.Time) *rateLimits {
	return &rateLimits{until: map[string]time.Time{}, now: now}
}

func (r *rateLimits) blocked(key string) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u, ok := r.until[key]
	if !ok {
		return time.Time{}, false
	}
	if !u.After(r.now()) {
		delete(r.until, key)
		return time.Time{}, false
	}
	return u, true
}

func (r *rateLimits) remember(key string, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if !until.After(now) {
		return
	}
	if _, ok := r.until[key]; !ok && len(r.until) >= maxRateLimitKeys {
		for k, u := range r.until {
			if !u.After(now) {
				delete(r.until, k)
			}
		}
		if len(r.until) >= maxRateLimitKeys {
			// still full: forget the limit that ends soonest
			var soonest string
			var st time.Time
			for k, u := range r.until {
				if soonest == "" || u.Before(st) {
					soonest, st = k, u
				}
			}
			delete(r.until, soonest)
		}
	}
	if cur, ok := r.until[key]; !ok || until.After(cur) {
		r.until[key] = until
	}
}

// rateLimitedUntil recognises GitHub's primary (403/429 with
// X-RateLimit-Remaining: 0) and secondary (403/429 with Retry-After) rate
// limits. A 403 without either header is a permission problem, not a limit.
func rateLimitedUntil(resp *http.Response, now time.Time) (time.Time, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return time.Time{}, false
	}
	var until time.Time
	switch {
	case resp.Header.Get("Retry-After") != "":
		ra := strings.TrimSpace(resp.Header.Get("Retry-After"))
		if secs, err := strconv.ParseInt(ra, 10, 64); err == nil && secs >= 0 {
			until = now.Add(time.Duration(min(secs, int64(maxRateLimitWait/time.Second))) * time.Second)
		} else if t, err := http.ParseTime(ra); err == nil {
			until = t
		} else {
			until = now.Add(defaultRateLimitWait)
		}
	case strings.TrimSpace(resp.Header.Get("X-RateLimit-Remaining")) == "0":
		if secs, err := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("X-RateLimit-Reset")), 10, 64); err == nil {
			until = time.Unix(secs, 0)
		} else {
			until = now.Add(defaultRateLimitWait)
		}
	case resp.StatusCode == http.StatusTooManyRequests:
		until = now.Add(defaultRateLimitWait)
	default:
		return time.Time{}, false
	}
	if until.Before(now) {
		until = now
	}
	if until.After(now.Add(maxRateLimitWait)) {
		until = now.Add(maxRateLimitWait)
	}
	return until, true
}

// guardTransport enforces remembered rate limits, turns rate-limit answers
// into *RateLimitError, and caps every response body at maxResponseBytes.
type guardTransport struct {
	next   http.RoundTripper
	limits *rateLimits
}

func (g *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := limitKey(req.Context())
	if until, ok := g.limits.blocked(key); ok {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &RateLimitError{Key: key, Until: until, Remembered: true}
	}
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if until, ok := rateLimitedUntil(resp, g.limits.now()); ok {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		g.limits.remember(key, until)
		return nil, &RateLimitError{Key: key, Until: until}
	}
	resp.Body = &limitedBody{rc: resp.Body, left: maxResponseBytes}
	return resp, nil
}

// errBodyTooLarge is returned when a response exceeds maxResponseBytes.
var errBodyTooLarge = errors.New("repofiles: GitHub response body too large")

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// one probe byte distinguishes "exactly at the cap" from "over it"
		var b [1]byte
		if n, _ := l.rc.Read(b[:]); n > 0 {
			return 0, errBodyTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.rc.Close() }
