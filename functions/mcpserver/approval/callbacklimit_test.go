package approval

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// countingTransport counts the requests that reach Supabase Auth.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestCallbackLimitedPerAddress: made-up codes sent to the sign-in
// callback from one address reach Supabase Auth only up to the limit;
// past it the callback answers 429 without asking Auth, while a person at
// another address signs in as usual.
func TestCallbackLimitedPerAddress(t *testing.T) {
	const limit = 5
	auth := &countingTransport{}
	h := newHarnessWith(t, harnessOptions{callbacksPerMinute: limit, authClient: &http.Client{Transport: auth, Timeout: 10 * time.Second},
		clientAddress: func(r *http.Request) string { return r.Header.Get("X-Test-Address") }})
	flood := &http.Client{Jar: browser(t).Jar, Transport: headerTransport{"X-Test-Address": "192.0.2.66"},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// Any link-shaped address starts a sign-in, which is all a stranger needs.
	if _, err := flood.Get(h.srv.URL + "/functions/v1/mcp-server/approve/00000000-0000-4000-8000-000000000000"); err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for i := range limit + 3 {
		status, _ := get(t, flood, fmt.Sprintf("%s/functions/v1/mcp-server/approve/callback?code=made-up-%d", h.srv.URL, i))
		statuses = append(statuses, status)
	}
	want := []int{502, 502, 502, 502, 502, 429, 429, 429}
	if fmt.Sprint(statuses) != fmt.Sprint(want) {
		t.Errorf("the flood's answers %v, want %v", statuses, want)
	}
	if got := auth.n.Load(); got != limit {
		t.Errorf("Supabase Auth was asked %d times, want %d", got, limit)
	}
	person := browser(t)
	person.Transport = headerTransport{"X-Test-Address": "198.51.100.7"}
	st := h.proposeReply(t, fmt.Sprintf("signed in during a flood %d", time.Now().UnixNano()), "")
	if status, page := signIn(t, person, h.env, st.ApprovalURL, gatewaytest.Alice); status != 200 || !strings.Contains(page, "Approve and write") {
		t.Errorf("a person at another address: %d %q", status, title(page))
	}
}

// headerTransport adds its headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
