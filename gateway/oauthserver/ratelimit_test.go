package oauthserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// registerFrom posts a registration with X-Forwarded-For set to addr
// (believed when the harness trusts loopback proxies).
func (h *harness) registerFrom(addr string) reply {
	h.t.Helper()
	req, err := http.NewRequest("POST", h.issuer+"/register", strings.NewReader(`{"redirect_uris":["https://a.example/cb"]}`))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if addr != "" {
		req.Header.Set("X-Forwarded-For", addr)
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return reply{status: resp.StatusCode, header: resp.Header}
}

// TestRateLimitBurstAcrossMinuteBoundary: 40 registrations from one
// address within 2 s that straddle the turn of a minute get no more than
// the limit (20) plus what refills in those 2 s. Fixed per-minute windows
// let all 40 through.
func TestRateLimitBurstAcrossMinuteBoundary(t *testing.T) {
	h := newHarness(t, nil)
	h.clock.Add(59 * time.Second) // 12:00:59; the old window turned at 12:01:00
	allowed := 0
	for range 40 {
		if r := h.registerFrom(""); r.status == http.StatusCreated {
			allowed++
		}
		h.clock.Add(50 * time.Millisecond)
	}
	if allowed > DefaultRegisterPerMinute+1 {
		t.Errorf("%d of 40 registrations in 2 s allowed, want at most %d", allowed, DefaultRegisterPerMinute+1)
	}
	if allowed < DefaultRegisterPerMinute {
		t.Errorf("%d of 40 registrations allowed, want the full burst of %d", allowed, DefaultRegisterPerMinute)
	}
}

// TestRateLimitFloodDoesNotLockOut: once the limiter has seen as many
// distinct addresses as it remembers, a new address is still served (the
// least recently seen is forgotten instead).
func TestRateLimitFloodDoesNotLockOut(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
	h.srv.registerLimit.keys.Resize(50)
	for i := range 50 {
		if r := h.registerFrom(fmt.Sprintf("198.51.100.%d", i)); r.status != http.StatusCreated {
			t.Fatalf("flood address %d: %d", i, r.status)
		}
	}
	if r := h.registerFrom("203.0.113.7"); r.status != http.StatusCreated {
		t.Errorf("a new address after a flood of distinct ones: %d, want 201", r.status)
	}
}

// TestRateLimitRetryAfter: a 429 says when the next token is due, in
// whole seconds: 30 s at 2 a minute, 60 s at 1 a minute.
func TestRateLimitRetryAfter(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.RegisterPerMinute = 2; o.AuthorizePerMinute = 1 })
	h.registerFrom("")
	h.registerFrom("")
	r := h.registerFrom("")
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "30" {
		t.Errorf("register: %d Retry-After %q, want 429 and 30", r.status, r.header.Get("Retry-After"))
	}
	h.clock.Add(10 * time.Second)
	if r := h.registerFrom(""); r.header.Get("Retry-After") != "20" {
		t.Errorf("10 s later: Retry-After %q, want 20", r.header.Get("Retry-After"))
	}
	h.clock.Add(20 * time.Second)
	if r := h.registerFrom(""); r.status != http.StatusCreated {
		t.Errorf("after Retry-After: %d, want 201", r.status)
	}
	h.clock.Add(30 * time.Second)
	clientID := h.register()
	h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(clientID).Encode())
	a := h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(clientID).Encode())
	if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") != "60" {
		t.Errorf("authorize: %d Retry-After %q, want 429 and 60", a.status, a.header.Get("Retry-After"))
	}
}

// TestLimiterEvictsLeastRecentlySeen: at the cap, the address seen least
// recently is forgotten, not the oldest inserted: an address that keeps
// knocking stays limited.
func TestLimiterEvictsLeastRecentlySeen(t *testing.T) {
	c := &clock{now: time.Unix(0, 0)}
	l := newLimiter(1, c.Now)
	l.keys.Resize(2)
	ok := func(key string) bool { allowed, _ := l.allow(key); return allowed }
	steps := []struct {
		key  string
		want bool
	}{
		{"a", true},  // a's token spent
		{"b", true},  // b's token spent
		{"a", false}, // a seen again: now the most recent
		{"c", true},  // full: b, the least recently seen, is forgotten
		{"a", false}, // a still remembered, still limited
		{"b", true},  // b forgotten: a fresh bucket (evicting c)
	}
	for i, s := range steps {
		if got := ok(s.key); got != s.want {
			t.Errorf("step %d allow(%s) = %v, want %v", i, s.key, got, s.want)
		}
	}
	if n := l.keys.Len(); n != 2 {
		t.Errorf("remembers %d addresses, want 2", n)
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, 30 * time.Second: 30} {
		if got := retryAfterSeconds(d); got != want {
			t.Errorf("retryAfterSeconds(%v) = %d, want %d", d, got, want)
		}
	}
}

// TestClientIP: X-Forwarded-For counts only from trusted proxies, through
// Echo's extractor with nothing trusted but the configured ranges.
func TestClientIP(t *testing.T) {
	cases := []struct {
		trusted           []string
		remote, xff, want string
	}{
		{nil, "203.0.113.9:1234", "1.2.3.4", "203.0.113.9"},                                          // no proxies: header ignored
		{nil, "10.0.0.5:1234", "1.2.3.4", "10.0.0.5"},                                                // private peers are not trusted by default
		{[]string{"10.0.0.0/8"}, "203.0.113.9:1234", "", "203.0.113.9"},                              // no header
		{[]string{"10.0.0.0/8"}, "203.0.113.9:1234", "1.2.3.4", "203.0.113.9"},                       // untrusted peer: header ignored
		{[]string{"10.0.0.0/8"}, "10.0.0.5:1234", "198.51.100.7", "198.51.100.7"},                    // trusted proxy
		{[]string{"10.0.0.0/8"}, "10.0.0.5:1234", "6.6.6.6, 198.51.100.7, 10.0.0.9", "198.51.100.7"}, // rightmost untrusted
		{[]string{"10.0.0.0/8"}, "10.0.0.5:1234", "", "10.0.0.5"},
		{[]string{"10.0.0.0/8"}, "10.0.0.5:1234", "garbage, 10.0.0.7", "10.0.0.5"}, // a malformed hop: nothing in the header is believed
		{[]string{"10.0.0.0/8"}, "127.0.0.1:1234", "1.2.3.4", "127.0.0.1"},         // loopback is not trusted unless configured
		{[]string{"10.0.0.0/8"}, "[::ffff:10.0.0.5]:1234", "198.51.100.7", "198.51.100.7"},
		{[]string{"2001:db8::/32"}, "[2001:db8::1]:1234", "::ffff:198.51.100.7", "198.51.100.7"}, // one key per client
	}
	for _, tc := range cases {
		var trusted []netip.Prefix
		for _, p := range tc.trusted {
			trusted = append(trusted, netip.MustParsePrefix(p))
		}
		s := &Server{extractIP: newIPExtractor(trusted)}
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := s.clientIP(r); got != tc.want {
			t.Errorf("trusted %v: clientIP(%s, %q) = %s, want %s", tc.trusted, tc.remote, tc.xff, got, tc.want)
		}
	}
}
