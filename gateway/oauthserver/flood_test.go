package oauthserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// withForwardedFor sends every request of hc with X-Forwarded-For set by
// next (a new value each time, if the caller likes).
func withForwardedFor(hc *http.Client, next func() string) *http.Client {
	out := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("X-Forwarded-For", next())
		return base.RoundTrip(r)
	})
	return &out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// flood sends made-up token requests (redemptions and refreshes in turn)
// with clientID from hc, from workers goroutines, until ctx ends; it
// counts the answers by status, closes limited once one was 429, and
// overran once more than twice the budget were sent without one.
type flood struct {
	sent, refused    atomic.Int64
	other            sync.Map // status → count, for anything but 400 and 429
	limited, overran chan struct{}
	once, over       sync.Once
	done             sync.WaitGroup
}

func (h *harness) startFlood(ctx context.Context, hc *http.Client, clientID string, workers int) *flood {
	f := &flood{limited: make(chan struct{}), overran: make(chan struct{})}
	bodies := []string{
		url.Values{"grant_type": {"authorization_code"}, "code": {"made-up"}, "redirect_uri": {testRedirect}, "client_id": {clientID}, "code_verifier": {testVerifier}}.Encode(),
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"mcpr_made-up"}, "client_id": {clientID}}.Encode(),
	}
	for w := range workers {
		f.done.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				status := floodOnce(ctx, hc, h.issuer+"/token", bodies[(i+w)%2])
				if status == 0 && ctx.Err() != nil {
					return // cut off by the end of the flood: not counted
				}
				if f.sent.Add(1) > 2*DefaultFailedPerMinute && f.refused.Load() == 0 {
					f.over.Do(func() { close(f.overran) })
				}
				switch status {
				case http.StatusTooManyRequests:
					f.refused.Add(1)
					f.once.Do(func() { close(f.limited) })
				case http.StatusBadRequest:
				default:
					n, _ := f.other.LoadOrStore(status, new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
				}
			}
		})
	}
	return f
}

// floodOnce posts one form and returns the status, 0 for a request that
// failed (the end of the flood cancels its last ones, which the flood
// does not count).
func floodOnce(ctx context.Context, hc *http.Client, target, body string) int {
	req, err := http.NewRequestWithContext(ctx, "POST", target, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestTokenFloodLeavesOthersServed is the attack of issue 49: a stranger
// floods the token endpoint with made-up codes and refresh tokens under a
// victim client's public client_id, from one address, at the default
// limits, while people sign in through that client from another address.
// Each person's redemption and a refresh answer 200 while the flood runs,
// and the flooding address stays limited, its real code refused too. The
// address is the connection's, or X-Forwarded-For from a trusted proxy;
// an X-Forwarded-For the flooder makes up from an untrusted peer changes
// nothing.
func TestTokenFloodLeavesOthersServed(t *testing.T) {
	const floodWorkers = 4
	cases := []struct {
		name     string
		trusted  []netip.Prefix
		attacker func(h *harness) *http.Client
		people   func(h *harness) *http.Client
	}{
		{
			name:     "connection addresses",
			attacker: func(h *harness) *http.Client { return h.browserFrom("127.0.0.2") },
			people:   func(h *harness) *http.Client { return h.browserFrom("127.0.0.3") },
		},
		{
			name: "made-up X-Forwarded-For from an untrusted peer",
			attacker: func(h *harness) *http.Client {
				var n atomic.Int64
				return withForwardedFor(h.browserFrom("127.0.0.2"), func() string {
					i := n.Add(1)
					return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
				})
			},
			people: func(h *harness) *http.Client { return h.browserFrom("127.0.0.3") },
		},
		{
			name:    "behind a trusted proxy",
			trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
			attacker: func(h *harness) *http.Client {
				return withForwardedFor(h.newBrowser(), func() string { return "203.0.113.66" })
			},
			people: func(h *harness) *http.Client {
				return withForwardedFor(h.newBrowser(), func() string { return "198.51.100.7" })
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.TrustedProxies = tc.trusted })
			victim := h.register()
			tk, _ := h.grantFor(victim) // a person connected before the flood
			ctx, stop := context.WithCancel(context.Background())
			f := h.startFlood(ctx, tc.attacker(h), victim, floodWorkers)
			defer func() { stop(); f.done.Wait() }()
			select {
			case <-f.limited:
			case <-f.overran:
				t.Fatalf("the flood was not limited after %d requests", f.sent.Load())
			}
			before := f.refused.Load()

			// While the flood runs: five people sign in through the victim
			// client and redeem their codes, and the earlier one refreshes.
			for i := range 5 {
				hc := tc.people(h)
				if r := h.redeem(hc, victim, h.approveFrom(hc, victim)); r.status != http.StatusOK {
					t.Errorf("person %d's redemption during the flood: %d %s", i+1, r.status, r.body)
				}
			}
			if r := h.refreshFrom(tc.people(h), victim, tk.RefreshToken); r.status != http.StatusOK {
				t.Errorf("a refresh during the flood: %d %s", r.status, r.body)
			}
			// The flooding address is still limited, for a real code too.
			if r := h.redeem(tc.attacker(h), victim, h.approveFrom(tc.people(h), victim)); r.status != http.StatusTooManyRequests {
				t.Errorf("a real code redeemed from the flooding address: %d %s", r.status, r.body)
			}
			during := f.refused.Load() - before
			stop()
			f.done.Wait()
			f.other.Range(func(status, n any) bool {
				t.Errorf("the flood got %d answers of status %v", n.(*atomic.Int64).Load(), status)
				return true
			})
			if during == 0 {
				t.Error("the flood got no 429 while the people signed in: it was not running, or not limited")
			}
			// At most the budget reaches the store, plus what was in flight
			// when it ran out (a check and its charge are not one step).
			if ok := f.sent.Load() - f.refused.Load(); ok > DefaultFailedPerMinute+floodWorkers {
				t.Errorf("%d made-up requests reached the store, want at most the budget (%d) and %d in flight", ok, DefaultFailedPerMinute, floodWorkers)
			}
			t.Logf("flood: %d requests, %d refused with 429 (%d while the people signed in)", f.sent.Load(), f.refused.Load(), during)
		})
	}
}
