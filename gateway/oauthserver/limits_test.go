package oauthserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// browserFrom is an HTTP client like newBrowser whose connections come
// from the loopback address ip (any of 127.0.0.0/8 on Linux), so the
// server sees a client at another address without believing any header.
func (h *harness) browserFrom(ip string) *http.Client {
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, addr)
	}}
	h.t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// approveFrom runs the browser part for clientID in hc and returns the code.
func (h *harness) approveFrom(hc *http.Client, clientID string) string {
	h.t.Helper()
	page := h.consentPage(hc, h.authorizeParams(clientID))
	r := h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(h.t, page.body)}, "decision": {"approve"}})
	if r.status != http.StatusSeeOther {
		h.t.Fatalf("approve: %d %s", r.status, r.body)
	}
	loc, _ := url.Parse(r.header.Get("Location"))
	return loc.Query().Get("code")
}

// redeem redeems code in hc, as the client's machine at hc's address.
func (h *harness) redeem(hc *http.Client, clientID, code string) reply {
	return h.postForm(hc, h.issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {testRedirect}, "client_id": {clientID}, "code_verifier": {testVerifier}})
}

// refreshFrom refreshes rt in hc.
func (h *harness) refreshFrom(hc *http.Client, clientID, rt string) reply {
	return h.postForm(hc, h.issuer+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}})
}

// madeUp is a token request a stranger can make for any client_id: a code
// or refresh token that does not exist.
func (h *harness) madeUp(hc *http.Client, clientID string, refresh bool) reply {
	if refresh {
		return h.refreshFrom(hc, clientID, "mcpr_made-up")
	}
	return h.redeem(hc, clientID, "made-up")
}

// TestLimitAnswers: every limit's refusal, its status, body and
// Retry-After, and that a limit counts only its own key: another client
// or another address after a client's failures, or another grant of the
// same client, is still served; requests that find their code, token or
// grant spend nothing of the failures' budget.
func TestLimitAnswers(t *testing.T) {
	const (
		bodyAddress = `{"error":"temporarily_unavailable","error_description":"Too many requests from this address; try again in a minute"}`
		bodyFailed  = `{"error":"temporarily_unavailable","error_description":"Too many invalid token requests for this client from this address; try again after the delay in Retry-After"}`
		bodyRefresh = `{"error":"temporarily_unavailable","error_description":"Too many refreshes of this grant; try again after the delay in Retry-After"}`
	)
	cases := []struct {
		name       string
		opts       func(*Options)
		run        func(h *harness) reply
		status     int
		body       string // exact JSON; "" for the authorize page
		retryAfter string
	}{
		{
			name: "registration per address",
			opts: func(o *Options) { o.RegisterPerMinute = 2 },
			run: func(h *harness) reply {
				h.register()
				h.register()
				return h.do(h.hc, "POST", h.issuer+"/register", "application/json", `{"redirect_uris":["https://a.example/cb"]}`)
			},
			status: http.StatusTooManyRequests, body: bodyAddress, retryAfter: "30",
		},
		{
			name: "authorization per address",
			opts: func(o *Options) { o.AuthorizePerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(id).Encode())
				return h.get(h.hc, h.issuer+"/authorize?"+h.authorizeParams(id).Encode())
			},
			status: http.StatusTooManyRequests, retryAfter: "60",
		},
		{
			name: "failed redemptions per client and address",
			opts: func(o *Options) { o.FailedPerMinute = 2 },
			run: func(h *harness) reply {
				id := h.register()
				code := h.approve(id)
				h.madeUp(h.hc, id, false)
				h.madeUp(h.hc, id, false)
				return h.redeem(h.hc, id, code) // a real code, from the address that failed
			},
			status: http.StatusTooManyRequests, body: bodyFailed, retryAfter: "30",
		},
		{
			name: "failed refreshes per client and address",
			opts: func(o *Options) { o.FailedPerMinute = 2 },
			run: func(h *harness) reply {
				id := h.register()
				tk, _ := h.grantFor(id)
				h.madeUp(h.hc, id, true)
				h.madeUp(h.hc, id, false) // redemptions and refreshes share the budget
				return h.refreshWith(id, tk.RefreshToken, nil)
			},
			status: http.StatusTooManyRequests, body: bodyFailed, retryAfter: "30",
		},
		{
			name: "each refusal for the token is a failure",
			opts: func(o *Options) { o.FailedPerMinute = 3 },
			run: func(h *harness) reply {
				id, other := h.register(), h.register()
				tk, _ := h.grantFor(id)
				theirs, _ := h.grantFor(other)
				h.refreshWith(id, theirs.RefreshToken, nil)                            // another client's token
				h.refreshWith(id, tk.RefreshToken, url.Values{"scope": {"mcp:write"}}) // beyond the grant
				h.redeem(h.hc, id, h.approve(other))                                   // another client's code
				return h.refreshWith(id, tk.RefreshToken, nil)
			},
			status: http.StatusTooManyRequests, body: bodyFailed, retryAfter: "20",
		},
		{
			name: "another address of the same client",
			opts: func(o *Options) { o.FailedPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				code := h.approve(id)
				h.madeUp(h.hc, id, false)
				h.madeUp(h.hc, id, false)
				return h.redeem(h.browserFrom("127.0.0.2"), id, code)
			},
			status: http.StatusOK,
		},
		{
			name: "another client at the same address",
			opts: func(o *Options) { o.FailedPerMinute = 1 },
			run: func(h *harness) reply {
				h.madeUp(h.hc, h.register(), true)
				h.madeUp(h.hc, h.register(), true)
				id := h.register()
				tk, _ := h.grantFor(id)
				return h.refreshWith(id, tk.RefreshToken, nil)
			},
			status: http.StatusOK,
		},
		{
			name: "requests that find their code or token spend nothing",
			opts: func(o *Options) { o.FailedPerMinute = 1; o.RefreshPerMinute = 100 },
			run: func(h *harness) reply {
				id := h.register()
				tk, _ := h.grantFor(id)
				for range 3 {
					h.grantFor(id)
					tk = decodeTokens(h.t, h.refreshWith(id, tk.RefreshToken, nil))
				}
				h.madeUp(h.hc, id, true)
				return h.madeUp(h.hc, id, true)
			},
			status: http.StatusTooManyRequests, body: bodyFailed, retryAfter: "60",
		},
		{
			name: "a revocation that revokes nothing is a failure",
			opts: func(o *Options) { o.FailedPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {"mcpr_made-up"}, "client_id": {id}})
				return h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {"made-up"}, "client_id": {id}})
			},
			status: http.StatusTooManyRequests, body: bodyFailed, retryAfter: "60",
		},
		{
			name: "a revocation that revokes its grant spends nothing",
			opts: func(o *Options) { o.FailedPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				for range 2 {
					tk, _ := h.grantFor(id)
					if r := h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {tk.RefreshToken}, "client_id": {id}}); r.status != http.StatusOK {
						h.t.Fatalf("revoke: %d %s", r.status, r.body)
					}
				}
				h.madeUp(h.hc, id, false)
				return h.madeUp(h.hc, id, false)
			},
			status: http.StatusTooManyRequests, body: bodyFailed, retryAfter: "60",
		},
		{
			name: "a server fault spends nothing",
			opts: func(o *Options) { o.FailedPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				for range 2 {
					h.store.mu.Lock()
					h.store.failNext = errTestStore
					h.store.mu.Unlock()
					if r := h.madeUp(h.hc, id, false); r.status != http.StatusInternalServerError {
						h.t.Fatalf("store failing: %d %s", r.status, r.body)
					}
				}
				return h.redeem(h.hc, id, h.approve(id))
			},
			status: http.StatusOK,
		},
		{
			name: "the failures' bucket refills",
			opts: func(o *Options) { o.FailedPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				h.madeUp(h.hc, id, false)
				if r := h.madeUp(h.hc, id, false); r.status != http.StatusTooManyRequests {
					h.t.Fatalf("second failure within the minute: %d", r.status)
				}
				h.clock.Add(time.Minute)
				return h.redeem(h.hc, id, h.approve(id))
			},
			status: http.StatusOK,
		},
		{
			name: "refreshes per grant",
			opts: func(o *Options) { o.RefreshPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				tk, _ := h.grantFor(id)
				next := decodeTokens(h.t, h.refreshWith(id, tk.RefreshToken, nil))
				return h.refreshWith(id, next.RefreshToken, nil)
			},
			status: http.StatusTooManyRequests, body: bodyRefresh, retryAfter: "60",
		},
		{
			name: "another grant of the same client",
			opts: func(o *Options) { o.RefreshPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				first, _ := h.grantFor(id)
				decodeTokens(h.t, h.refreshWith(id, first.RefreshToken, nil))
				second, _ := h.grantFor(id)
				return h.refreshWith(id, second.RefreshToken, nil)
			},
			status: http.StatusOK,
		},
		{
			name: "a refused refresh spends nothing",
			opts: func(o *Options) { o.RefreshPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				tk, _ := h.grantFor(id)
				next := decodeTokens(h.t, h.refreshWith(id, tk.RefreshToken, nil))
				if r := h.refreshWith(id, next.RefreshToken, nil); r.status != http.StatusTooManyRequests {
					h.t.Fatalf("second refresh within the minute: %d", r.status)
				}
				h.clock.Add(time.Minute)
				return h.refreshWith(id, next.RefreshToken, nil)
			},
			status: http.StatusOK,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opts)
			r := tc.run(h)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if got := r.header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			if tc.body != "" {
				checkJSON(t, r, tc.status, tc.body)
			}
			if tc.status == http.StatusTooManyRequests && tc.body == "" && !strings.Contains(r.body, "Too many connection attempts") {
				t.Errorf("authorize page: %s", r.body)
			}
		})
	}
}

// TestFailuresBounded: the (client, address) budgets live in the same
// bounded LRU as every limit's keys. A flood from more addresses than it
// remembers leaves it at its size, and the address it forgot first (the
// least recently seen) is served again, while a key still remembered is
// still limited.
func TestFailuresBounded(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.FailedPerMinute = 1
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	h.srv.failLimit.keys.Resize(50)
	id := h.register()
	from := func(i int) *http.Client {
		return withForwardedFor(h.newBrowser(), func() string { return fmt.Sprintf("198.51.100.%d", i) })
	}
	for i := range 60 {
		if r := h.madeUp(from(i), id, true); r.status != http.StatusBadRequest {
			t.Fatalf("address %d's first failure: %d %s", i, r.status, r.body)
		}
	}
	if n := h.srv.failLimit.keys.Len(); n != 50 {
		t.Errorf("the failures' limiter remembers %d keys, want its size, 50", n)
	}
	if r := h.madeUp(from(59), id, true); r.status != http.StatusTooManyRequests {
		t.Errorf("a remembered address failing again: %d, want 429", r.status)
	}
	if r := h.madeUp(from(0), id, true); r.status != http.StatusBadRequest {
		t.Errorf("the first address, forgotten: %d, want 400", r.status)
	}
}
