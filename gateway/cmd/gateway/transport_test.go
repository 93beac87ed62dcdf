package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// TestUpstreamTransportReplaysOnlyReads pins the standard library's rule
// on the transport the gateway builds for its upstreams
// (newUpstreamTransport): a GET that meets a dead keep-alive connection is
// replayed once on a new one, and a POST is never sent twice. The gateway
// adds no retry layer of its own; the rule is net/http's, so this test
// guards the choice, and would catch a transport setting or wrapper that
// changed it, rather than gateway code that implements it.
func TestUpstreamTransportReplaysOnlyReads(t *testing.T) {
	url, requests := gatewaytest.DroppingServer(t)
	c := &http.Client{Transport: newUpstreamTransport()}
	get := func() error {
		resp, err := c.Get(url + "/rest/v1/assignments")
		if err == nil {
			// Read to the end, as the PostgREST client does, so the
			// connection goes back to the pool.
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	if err := get(); err != nil {
		t.Fatalf("GET on a dropped keep-alive connection was not replayed: %v", err)
	}
	if got := requests.Load(); got != 3 {
		t.Fatalf("server saw %d requests, want 3 (first, the dropped one, the replay)", got)
	}

	url, requests = gatewaytest.DroppingServer(t)
	c = &http.Client{Transport: newUpstreamTransport()}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Post(url+"/rest/v1/api_tokens", "application/json", strings.NewReader(`{"name":"x"}`))
	if err == nil {
		resp.Body.Close()
		t.Fatal("POST on a dropped connection succeeded; it must fail rather than be replayed")
	}
	if got := requests.Load(); got != 2 {
		t.Fatalf("server saw %d requests, want 2 (the POST sent once)", got)
	}
}

// testUpstreams builds the wiring's upstream clients over tr for a
// configuration whose PostgREST and Auth live at base, as SUPABASE_URL
// would have them, and GATEWAY_UPSTREAM_TIMEOUT is 7s.
func testUpstreams(t *testing.T, base string, tr *http.Transport) upstreams {
	t.Helper()
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	cfg := config.Config{PostgRESTURL: parse(base + "/rest/v1"), AuthURL: parse(base + "/auth/v1"), UpstreamTimeout: 7 * time.Second}
	return buildUpstreams(cfg, tr, newMetrics())
}

// countingServer is an upstream that counts the connections it has
// accepted and those still open, and redirects /moved.
func countingServer(t *testing.T, tls bool, handler http.HandlerFunc) (srv *httptest.Server, accepted, open *atomic.Int32) {
	t.Helper()
	accepted, open = new(atomic.Int32), new(atomic.Int32)
	srv = httptest.NewUnstartedServer(handler)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			accepted.Add(1)
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, accepted, open
}

// get sends GET url with c and reads the answer to its end, as the
// PostgREST client does, so the connection goes back to the pool.
func get(c *http.Client, url string) (*http.Response, error) {
	resp, err := c.Get(url)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, err
}

// TestUpstreamsShareOneTransport: PostgREST and Auth are reached over one
// pooled transport, over http and https alike (a request to Auth reuses
// the connection a PostgREST request left idle), with the configured
// timeout, and a redirect is handed back rather than followed.
func TestUpstreamsShareOneTransport(t *testing.T) {
	for _, tls := range []bool{false, true} {
		srv, accepted, _ := countingServer(t, tls, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/rest/v1/moved" {
				http.Redirect(w, r, "/rest/v1/t", http.StatusFound)
			}
		})
		tr := newUpstreamTransport()
		if tls {
			// Trust the test server's certificate.
			tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
		}
		up := testUpstreams(t, srv.URL, tr)
		if up.rest.Timeout != 7*time.Second || up.auth.Timeout != 7*time.Second {
			t.Errorf("tls=%v: timeouts %v and %v, want GATEWAY_UPSTREAM_TIMEOUT (7s)", tls, up.rest.Timeout, up.auth.Timeout)
		}
		for _, step := range []struct {
			c          *http.Client
			url        string
			wantStatus int
		}{
			{up.rest, up.restURL + "/t", http.StatusOK},
			{up.auth, up.authURL + "/user", http.StatusOK},
			{up.rest, up.restURL + "/moved", http.StatusFound},
		} {
			resp, err := get(step.c, step.url)
			if err != nil {
				t.Fatalf("tls=%v: GET %s: %v", tls, step.url, err)
			}
			if resp.StatusCode != step.wantStatus {
				t.Errorf("tls=%v: GET %s: %d, want %d", tls, step.url, resp.StatusCode, step.wantStatus)
			}
		}
		if n := accepted.Load(); n != 1 {
			t.Errorf("tls=%v: %d connections for three sequential requests to PostgREST and Auth, want 1 (one shared pool)", tls, n)
		}
	}
}

// TestUpstreamClosesIdleConnections: after a burst, every connection the
// burst opened is closed once it has been idle for the transport's
// IdleConnTimeout, not only the one reused last.
func TestUpstreamClosesIdleConnections(t *testing.T) {
	const burst = 10
	arrived := make(chan struct{}, burst)
	release := make(chan struct{})
	srv, accepted, open := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release // hold each request until the whole burst is in flight
	})
	idleTimeout := 200 * time.Millisecond
	tr := newUpstreamTransport()
	tr.IdleConnTimeout = idleTimeout
	up := testUpstreams(t, srv.URL, tr)
	errs := make(chan error, burst)
	for range burst {
		go func() {
			_, err := get(up.rest, up.restURL+"/revoked_token_ids")
			errs <- err
		}()
	}
	for range burst {
		<-arrived
	}
	close(release)
	for range burst {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := accepted.Load(); n != burst {
		t.Fatalf("the burst opened %d connections, want %d", n, burst)
	}
	for deadline := time.Now().Add(10 * time.Second); open.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d of %d connections still open long after the %v idle timeout", n, burst, idleTimeout)
	}
}

// TestUpstreamRefusesControlBytesInQuery: a request whose query holds raw
// control bytes (NUL, TAB, DEL) is refused before anything is sent; the
// PostgREST client escapes them, so only a request built by hand can carry
// them.
func TestUpstreamRefusesControlBytesInQuery(t *testing.T) {
	var requests atomic.Int32
	srv, _, _ := countingServer(t, false, func(http.ResponseWriter, *http.Request) { requests.Add(1) })
	up := testUpstreams(t, srv.URL, newUpstreamTransport())
	for _, raw := range []string{"a=\x00", "a=\t", "a=\x7f"} {
		req, err := http.NewRequest(http.MethodGet, up.restURL+"/t", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.RawQuery = raw
		if resp, err := up.rest.Do(req); err == nil {
			resp.Body.Close()
			t.Errorf("query %q was sent (%d), want it refused", raw, resp.StatusCode)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the upstream received %d requests, want none", n)
	}
}

// TestUpstreamBodyCloseDuringRead: closing an answer's body while another
// goroutine reads it (a request canceled mid-answer) ends the read; run
// with -race, it also shows the two do not race.
func TestUpstreamBodyCloseDuringRead(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	srv, _, _ := countingServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		for {
			if _, err := io.WriteString(w, strings.Repeat("x", 512)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	up := testUpstreams(t, srv.URL, newUpstreamTransport())
	for range 20 {
		resp, err := up.rest.Get(up.restURL + "/submission_files")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, resp.Body)
			done <- err
		}()
		time.Sleep(2 * time.Millisecond)
		resp.Body.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("a read of a closed body did not return")
		}
	}
}
