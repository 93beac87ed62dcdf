package metrics

import (
	"net/http"
	"time"
)

// RoundTripper wraps next so every request to an upstream is counted and
// timed under upstream and the endpoint class endpoint(req) returns. The
// endpoint function must map requests onto a small fixed set (a table
// name, "user", "contents"): labels never carry ids or raw paths. A nil
// *Metrics returns next unchanged.
func (m *Metrics) RoundTripper(next http.RoundTripper, upstream string, endpoint func(*http.Request) string) http.RoundTripper {
	if m == nil {
		return next
	}
	if next == nil {
		next = http.DefaultTransport
	}
	return &observedTransport{next: next, m: m, upstream: upstream, endpoint: endpoint}
}

type observedTransport struct {
	next     http.RoundTripper
	m        *Metrics
	upstream string
	endpoint func(*http.Request) string
}

func (t *observedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	t.m.Upstream(t.upstream, t.endpoint(req), status, time.Since(start))
	return resp, err
}
