package h1transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// recorder is a Fallback that records what reached it.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.URL.String())
	r.mu.Unlock()
	return &http.Response{StatusCode: 299, Body: http.NoBody, Request: req}, nil
}

// echoServer answers with the request's method, URI, Host and headers, one
// per line, sorted; it counts the connections it accepted.
func echoServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	conns := new(atomic.Int32)
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) {
			var lines []string
			for k, vs := range r.Header {
				lines = append(lines, k+": "+strings.Join(vs, ","))
			}
			sort.Strings(lines)
			fmt.Fprintf(w, "%s %s host=%s\n%s", r.Method, r.RequestURI, r.Host, strings.Join(lines, "\n"))
		}
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, conns
}

func get(t *testing.T, c *http.Client, url string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return resp.StatusCode, string(b)
}

func TestRequestOnTheWire(t *testing.T) {
	srv, conns := echoServer(t, nil)
	tr := &Transport{Fallback: &recorder{}}
	c := &http.Client{Transport: tr}
	h := http.Header{"Apikey": {"anon"}, "Authorization": {"Bearer x.y.z"}, "Accept": {"application/json"}}
	for i := range 10 {
		status, got := get(t, c, srv.URL+"/rest/v1/user_roles?select=class_id,role&user_id=eq.u1", h)
		want := "GET /rest/v1/user_roles?select=class_id,role&user_id=eq.u1 host=" + strings.TrimPrefix(srv.URL, "http://") + "\n" +
			"Accept: application/json\nApikey: anon\nAuthorization: Bearer x.y.z\nUser-Agent: Go-http-client/1.1"
		if status != 200 || got != want {
			t.Fatalf("request %d: status %d, body\n%s\nwant\n%s", i, status, got, want)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("10 sequential requests used %d connections, want 1 (keep-alive)", n)
	}
}

func TestAnswerFraming(t *testing.T) {
	big := strings.Repeat("x", 10000)
	srv, conns := echoServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte(big[:5000]))
			w.(http.Flusher).Flush()
			w.Write([]byte(big[5000:]))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye")
		default:
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "hello")
		}
	})
	tr := &Transport{Fallback: &recorder{}}
	c := &http.Client{Transport: tr}
	key := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		path, body string
		status     int
		conns      int32 // connections opened so far
	}{
		{"/length", "hello", 200, 1},
		{"/chunked", big, 200, 1},
		{"/empty", "", 204, 1},
		{"/length", "hello", 200, 1},
		{"/close", "bye", 200, 1},
		{"/length", "hello", 200, 2}, // the closed connection was not reused
	}
	for _, tt := range tests {
		status, body := get(t, c, srv.URL+tt.path, nil)
		if status != tt.status || body != tt.body {
			t.Errorf("%s: %d %.20q…, want %d %.20q…", tt.path, status, body, tt.status, tt.body)
		}
		if n := conns.Load(); n != tt.conns {
			t.Errorf("after %s: %d connections, want %d", tt.path, n, tt.conns)
		}
		wantIdle := 1
		if tt.path == "/close" {
			wantIdle = 0
		}
		if n := idleCount(tr, key); n != wantIdle {
			t.Errorf("after %s: %d idle connections, want %d", tt.path, n, wantIdle)
		}
	}
	// HEAD: no body is read even though Content-Length is set.
	resp, err := c.Head(srv.URL + "/length")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength != 5 {
		t.Errorf("HEAD: %d, %q, length %d", resp.StatusCode, b, resp.ContentLength)
	}
	if _, body := get(t, c, srv.URL+"/length", nil); body != "hello" {
		t.Errorf("GET after HEAD read %q: the connection was left mid-answer", body)
	}

	// Reading on after the end keeps answering io.EOF, as net/http's
	// bodies do; after Close, an error.
	resp, err = c.Get(srv.URL + "/length")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "hello" {
		t.Fatalf("body %q, %v", b, err)
	}
	for range 2 {
		if n, err := resp.Body.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Errorf("read after the end: %d, %v; want 0, io.EOF", n, err)
		}
	}
	resp.Body.Close()
	resp, err = c.Get(srv.URL + "/length")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := resp.Body.Read(make([]byte, 8)); err == nil || err == io.EOF {
		t.Errorf("read after Close: %v, want an error", err)
	}
}

func TestOthersGoToFallback(t *testing.T) {
	rec := &recorder{}
	c := &http.Client{Transport: &Transport{Fallback: rec}}
	for _, tc := range []struct{ method, url, body string }{
		{"POST", "http://127.0.0.1:1/rest/v1/api_tokens", `{"a":1}`},
		{"PATCH", "http://127.0.0.1:1/rest/v1/api_tokens", `{}`},
		{"DELETE", "http://127.0.0.1:1/rest/v1/api_tokens", ""},
		{"GET", "https://example.test/rest/v1/profiles", ""},
	} {
		var rd io.Reader
		if tc.body != "" {
			rd = strings.NewReader(tc.body)
		}
		req, _ := http.NewRequest(tc.method, tc.url, rd)
		resp, err := c.Do(req)
		if err != nil || resp.StatusCode != 299 {
			t.Fatalf("%s %s: %v %v, want the fallback's 299", tc.method, tc.url, resp, err)
		}
	}
	want := []string{
		"POST http://127.0.0.1:1/rest/v1/api_tokens", "PATCH http://127.0.0.1:1/rest/v1/api_tokens",
		"DELETE http://127.0.0.1:1/rest/v1/api_tokens", "GET https://example.test/rest/v1/profiles",
	}
	if fmt.Sprint(rec.seen) != fmt.Sprint(want) {
		t.Fatalf("fallback saw %q, want %q", rec.seen, want)
	}
}

func TestDeadKeepAliveIsReplayedOnce(t *testing.T) {
	url, requests := gatewaytest.DroppingServer(t)
	c := &http.Client{Transport: &Transport{Fallback: &recorder{}}}
	for i := range 2 {
		if status, body := get(t, c, url+"/rest/v1/revoked_token_ids", nil); status != 200 || body != "ok" {
			t.Fatalf("request %d: %d %q", i, status, body)
		}
	}
	if got := requests.Load(); got != 3 {
		t.Fatalf("server saw %d requests, want 3 (first, the dropped one, the replay)", got)
	}
	// A connection that fails on its first use is not retried.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	defer ln.Close()
	req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/x", nil)
	if _, err := c.Do(req); err == nil {
		t.Fatal("GET to a server that hangs up succeeded")
	}
	if n := accepted.Load(); n != 1 {
		t.Fatalf("a fresh connection that failed was tried %d times, want 1", n)
	}
}

func TestContextEndsTheExchange(t *testing.T) {
	release := make(chan struct{})
	srv, _ := echoServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			w.Header().Set("Content-Length", "10")
			io.WriteString(w, "12345")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := &http.Client{Transport: &Transport{Fallback: &recorder{}}}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/slow-head", nil)
	start := time.Now()
	_, err := c.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow answer: error %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the deadline took %v to end the exchange", d)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx2, http.MethodGet, srv.URL+"/slow-body", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "12345" {
		t.Fatalf("first half of the body: %q %v", buf, err)
	}
	time.AfterFunc(20*time.Millisecond, cancel2)
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled body read: %v, want context.Canceled", err)
	}

	ctx3, cancel3 := context.WithCancel(context.Background())
	cancel3()
	req, _ = http.NewRequestWithContext(ctx3, http.MethodGet, srv.URL+"/x", nil)
	if _, err := c.Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("already cancelled: %v, want context.Canceled", err)
	}
}

func TestEarlyCloseDoesNotReuse(t *testing.T) {
	srv, conns := echoServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("y", 100))
	})
	c := &http.Client{Transport: &Transport{Fallback: &recorder{}}}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // unread
	if _, body := get(t, c, srv.URL, nil); len(body) != 100 {
		t.Fatalf("second answer %d bytes", len(body))
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2: a body closed unread must not leave its connection in the pool", n)
	}
}

func TestInvalidHeaderIsRefused(t *testing.T) {
	srv, conns := echoServer(t, nil)
	c := &http.Client{Transport: &Transport{Fallback: &recorder{}}}
	for _, h := range []http.Header{
		{"X-Evil": {"a\r\nGET /smuggled HTTP/1.1"}},
		{"Bad Name": {"v"}},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
		req.Header = h
		if _, err := c.Do(req); err == nil {
			t.Fatalf("header %q was sent", h)
		}
	}
	if _, body := get(t, c, srv.URL+"/ok", nil); !strings.HasPrefix(body, "GET /ok ") {
		t.Fatalf("after refusals: %q", body)
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections: the refused requests must not reach the server", n)
	}
}

func TestPoolBoundsAndIdleTimeout(t *testing.T) {
	srv, conns := echoServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		io.WriteString(w, "ok")
	})
	tr := &Transport{Fallback: &recorder{}, MaxIdlePerHost: 2}
	c := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get(t, c, srv.URL, nil)
		}()
	}
	wg.Wait()
	key := strings.TrimPrefix(srv.URL, "http://")
	if idle := idleCount(tr, key); idle != 2 {
		t.Fatalf("%d idle connections after 6 concurrent requests, want the bound 2", idle)
	}
	before := conns.Load()
	tr.IdleTimeout = time.Millisecond
	time.Sleep(5 * time.Millisecond)
	get(t, c, srv.URL, nil)
	if n := conns.Load(); n != before+1 {
		t.Fatalf("connections %d -> %d: an idle connection past IdleTimeout was reused", before, n)
	}
	tr.CloseIdleConnections()
	if left := idleCount(tr, key); left != 0 {
		t.Fatalf("%d idle connections left after CloseIdleConnections", left)
	}
}

func TestConcurrentUse(t *testing.T) {
	srv, conns := echoServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Query().Get("n"))
	})
	c := &http.Client{Transport: &Transport{Fallback: &recorder{}}}
	var wg sync.WaitGroup
	for g := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				n := fmt.Sprint(g*100 + i)
				if _, body := get(t, c, srv.URL+"/?n="+n, nil); body != n {
					t.Errorf("asked for %s, got %q: answers crossed", n, body)
				}
			}
		}()
	}
	wg.Wait()
	if n := conns.Load(); n > 20 {
		t.Fatalf("%d connections for 20 concurrent clients", n)
	}
}

func idleCount(tr *Transport, key string) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.idle[key])
}
