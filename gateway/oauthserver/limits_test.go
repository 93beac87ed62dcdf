package oauthserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestLimitAnswers: every limit's refusal, its status, body and
// Retry-After, and that a limit counts only its own key: another client
// behind the same address, or another grant of the same client, is still
// served.
func TestLimitAnswers(t *testing.T) {
	const (
		bodyAddress = `{"error":"temporarily_unavailable","error_description":"Too many requests from this address; try again in a minute"}`
		bodyClient  = `{"error":"temporarily_unavailable","error_description":"Too many token requests from this client; try again after the delay in Retry-After"}`
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
			name: "token requests per client",
			opts: func(o *Options) { o.TokenPerMinute = 2 },
			run: func(h *harness) reply {
				id := h.register()
				tk, _ := h.grantFor(id)
				h.refreshWith(id, tk.RefreshToken, nil)
				return h.refreshWith(id, tk.RefreshToken, nil)
			},
			status: http.StatusTooManyRequests, body: bodyClient, retryAfter: "30",
		},
		{
			name: "another client behind the same address",
			opts: func(o *Options) { o.TokenPerMinute = 2 },
			run: func(h *harness) reply {
				a := h.register()
				tk, _ := h.grantFor(a)
				h.refreshWith(a, tk.RefreshToken, nil)
				b := h.register()
				tk, _ = h.grantFor(b)
				return h.refreshWith(b, tk.RefreshToken, nil)
			},
			status: http.StatusOK,
		},
		{
			name: "revocation counts per client",
			opts: func(o *Options) { o.TokenPerMinute = 1 },
			run: func(h *harness) reply {
				id := h.register()
				tk, _ := h.grantFor(id)
				return h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {tk.RefreshToken}, "client_id": {id}})
			},
			status: http.StatusTooManyRequests, body: bodyClient, retryAfter: "60",
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
