package h1transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// rawServer runs serve on every connection it accepts, with a reader over
// the connection, and counts the connections.
func rawServer(t testing.TB, serve func(conn net.Conn, rd *bufio.Reader)) (url string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range open {
			c.Close()
		}
	})
	conns = new(atomic.Int32)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, conn)
			mu.Unlock()
			conns.Add(1)
			go func() {
				defer conn.Close()
				serve(conn, bufio.NewReader(conn))
			}()
		}
	}()
	return "http://" + ln.Addr().String(), conns
}

func newGets(t testing.TB, ctx context.Context, urls ...string) []*http.Request {
	t.Helper()
	reqs := make([]*http.Request, len(urls))
	for i, u := range urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = req
	}
	return reqs
}

// outcomes renders what Fanout returned, one line per request:
// "<status> <body>" or "error: <text>".
func outcomes(resps []*http.Response, errs []error) string {
	var b strings.Builder
	for i := range resps {
		if errs[i] != nil {
			fmt.Fprintf(&b, "error: %v\n", errs[i])
			continue
		}
		body, err := io.ReadAll(resps[i].Body)
		if err != nil {
			fmt.Fprintf(&b, "%d body error: %v\n", resps[i].StatusCode, err)
			continue
		}
		fmt.Fprintf(&b, "%d %s\n", resps[i].StatusCode, body)
	}
	return b.String()
}

// TestFanoutInFlightTogether: every request is written, each on its own
// connection, before any answer is awaited — the server answers none until
// it holds all of them — with the head RoundTrip writes; the connections
// then carry the next fan-out.
func TestFanoutInFlightTogether(t *testing.T) {
	const n = 3
	var mu sync.Mutex
	var heads []string
	url, conns := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
		for {
			req, err := http.ReadRequest(rd)
			if err != nil {
				return
			}
			mu.Lock()
			heads = append(heads, req.Host+" "+req.Header.Get("Apikey")+" "+req.Header.Get("User-Agent"))
			mu.Unlock()
			// Answer only once this round's other requests have arrived.
			deadline := time.Now().Add(5 * time.Second)
			for {
				mu.Lock()
				got := len(heads)
				mu.Unlock()
				if got%n == 0 {
					break
				}
				if time.Now().After(deadline) {
					return // the client waited for an answer before sending the rest
				}
				time.Sleep(time.Millisecond)
			}
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(req.URL.Path), req.URL.Path)
		}
	})
	host := strings.TrimPrefix(url, "http://")
	tr := &Transport{Fallback: &recorder{}}
	for round := range 2 {
		urls := make([]string, n)
		want := ""
		for i := range n {
			urls[i] = fmt.Sprintf("%s/r%d/q%d?token_id=eq.t1", url, round, i)
			want += fmt.Sprintf("200 /r%d/q%d\n", round, i)
		}
		reqs := newGets(t, context.Background(), urls...)
		for _, r := range reqs {
			r.Header["Apikey"] = []string{"service"}
		}
		resps, errs, ok := tr.Fanout(reqs, 1<<20)
		if !ok {
			t.Fatal("Fanout declined plain GETs")
		}
		if got := outcomes(resps, errs); got != want {
			t.Fatalf("round %d: got\n%swant\n%s", round, got, want)
		}
	}
	if c := conns.Load(); c != n {
		t.Fatalf("two fan-outs of %d used %d connections, want %d (one each, reused)", n, c, n)
	}
	if idle := idleCount(tr, host); idle != n {
		t.Fatalf("%d idle connections after, want %d", idle, n)
	}
	for _, h := range heads {
		if want := host + " service Go-http-client/1.1"; h != want {
			t.Errorf("request head %q, want %q", h, want)
		}
	}
}

// TestFanoutAnswers: each answer, and what becomes of its connection.
func TestFanoutAnswers(t *testing.T) {
	const other = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nother"
	tests := []struct {
		name    string
		answer  string // to the first request, on its connection
		maxBody int64
		want    string
		reused  bool   // the first request's connection carries the next request
		later   string // written 50 ms after answer
	}{
		{"content length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst", 100, "200 first\n200 other\n", true, ""},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nfi\r\n3\r\nrst\r\n0\r\n\r\n", 100, "200 first\n200 other\n", true, ""},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\n", 100, "204 \n200 other\n", true, ""},
		{"100 Continue skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst", 100, "200 first\n200 other\n", true, ""},
		{"an error status is an answer", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\ndown", 100, "503 down\n200 other\n", true, ""},
		{"Connection: close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nfirst", 100, "200 first\n200 other\n", false, ""},
		{"HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nfirst", 100, "200 first\n200 other\n", false, ""},
		// Handed over cut at limit+1 bytes, for the caller to refuse; the
		// rest of the body, still to come, must not be taken for the next
		// answer.
		{"body over the bound", "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n1234567", 6, "200 1234567\n200 other\n", false, "8"},
		{"bytes after the answer", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst" + evilAnswer, 100, "200 first\n200 other\n", false, ""},
		// A broken answer fails its own request only.
		{"broken answer", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nfirst", 100, "error: bad Content-Length \"x\"\n200 other\n", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var firstConn atomic.Pointer[net.Conn]
			url, conns := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
				for {
					req, err := http.ReadRequest(rd)
					if err != nil {
						return
					}
					if req.URL.Path == "/first" && firstConn.CompareAndSwap(nil, &conn) {
						_, _ = io.WriteString(conn, tt.answer)
						if tt.later != "" {
							time.Sleep(50 * time.Millisecond)
							_, _ = io.WriteString(conn, tt.later)
						}
						continue
					}
					_, _ = io.WriteString(conn, other)
				}
			})
			tr := &Transport{Fallback: &recorder{}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			resps, errs, ok := tr.Fanout(newGets(t, ctx, url+"/first", url+"/second"), tt.maxBody)
			if !ok {
				t.Fatal("Fanout declined")
			}
			if got := outcomes(resps, errs); got != tt.want {
				t.Fatalf("got\n%swant\n%s", got, tt.want)
			}
			// Two more requests show which connections were kept: both
			// when the first one was, else the second one's and a new one.
			resps, errs, _ = tr.Fanout(newGets(t, ctx, url+"/a", url+"/b"), 100)
			if got := outcomes(resps, errs); got != "200 other\n200 other\n" {
				t.Fatalf("the requests after: %s", got)
			}
			want := int32(2)
			if !tt.reused {
				want = 3
			}
			if n := conns.Load(); n != want {
				t.Fatalf("%d connections, want %d", n, want)
			}
		})
	}
}

// TestFanoutEveryCut sends each answer in two writes cut at every byte,
// with a pause between, and requires exactly the right answer for each
// request and nothing left to the next.
func TestFanoutEveryCut(t *testing.T) {
	answers := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst",
	}
	for i, a := range answers {
		for split := 0; split <= len(a); split++ {
			var served atomic.Int32
			url, _ := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
				for {
					req, err := http.ReadRequest(rd)
					if err != nil {
						return
					}
					if served.Add(1) <= 2 {
						_, _ = io.WriteString(conn, a[:split])
						time.Sleep(time.Millisecond)
						_, _ = io.WriteString(conn, a[split:])
						continue
					}
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(req.URL.Path), req.URL.Path)
				}
			})
			tr := &Transport{Fallback: &recorder{}}
			resps, errs, _ := tr.Fanout(newGets(t, context.Background(), url+"/one", url+"/two"), 100)
			if got := outcomes(resps, errs); got != "200 first\n200 first\n" {
				t.Fatalf("answer %d cut at %d: got\n%s", i, split, got)
			}
			resps, errs, _ = tr.Fanout(newGets(t, context.Background(), url+"/three", url+"/four"), 100)
			if got := outcomes(resps, errs); got != "200 /three\n200 /four\n" {
				t.Fatalf("answer %d cut at %d: the next fan-out got\n%s", i, split, got)
			}
			tr.CloseIdleConnections()
		}
	}
}

// TestFanoutDeadKeepAliveIsReplayedOnce: connections the server closed
// while idle are replayed on new ones; a fresh connection's failure is
// final.
func TestFanoutDeadKeepAliveIsReplayedOnce(t *testing.T) {
	url, requests := gatewaytest.DroppingServer(t)
	tr := &Transport{Fallback: &recorder{}}
	for i := range 2 {
		resps, errs, _ := tr.Fanout(newGets(t, context.Background(), url+"/a", url+"/b"), 100)
		if got := outcomes(resps, errs); got != "200 ok\n200 ok\n" {
			t.Fatalf("fan-out %d: got\n%s", i, got)
		}
	}
	// /a, /b; then /a and /b on the two dropped connections; /a again on a
	// new one; /b again on that one, which the server drops in turn (it
	// answers one request per connection), and on another new one.
	if n := requests.Load(); n != 7 {
		t.Fatalf("server read %d requests, want 7", n)
	}

	var accepted atomic.Int32
	url, _ = rawServer(t, func(net.Conn, *bufio.Reader) { accepted.Add(1) })
	resps, errs, _ := tr.Fanout(newGets(t, context.Background(), url+"/a", url+"/b"), 100)
	if resps[0] != nil || resps[1] != nil || errs[0] == nil || errs[1] == nil {
		t.Fatalf("a server that hangs up answered: %s", outcomes(resps, errs))
	}
	if n := accepted.Load(); n != 2 {
		t.Fatalf("%d connections to a server that hangs up, want 2 (one per request, no retry)", n)
	}
}

func TestFanoutContext(t *testing.T) {
	url, _ := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
		req, err := http.ReadRequest(rd)
		if err != nil {
			return
		}
		if req.URL.Path == "/1" {
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
		}
		_, _ = rd.Peek(1) // never answers /2
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	resps, errs, _ := (&Transport{Fallback: &recorder{}}).Fanout(newGets(t, ctx, url+"/1", url+"/2"), 100)
	if got, want := outcomes(resps, errs), "200 first\nerror: context deadline exceeded\n"; got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
	if !errors.Is(errs[1], context.DeadlineExceeded) {
		t.Fatalf("error %v is not the context's", errs[1])
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the fan-out outlived its context by %v", d)
	}
	ended, stop := context.WithCancel(context.Background())
	stop()
	resps, errs, _ = (&Transport{Fallback: &recorder{}}).Fanout(newGets(t, ended, url+"/1"), 100)
	if got := outcomes(resps, errs); got != "error: context canceled\n" {
		t.Fatalf("ended context: %s", got)
	}
}

// TestFanoutDeclines: requests this transport does not take are left to
// the caller, untouched and unsent.
func TestFanoutDeclines(t *testing.T) {
	var conns atomic.Int32
	url, _ := rawServer(t, func(net.Conn, *bufio.Reader) { conns.Add(1) })
	post, _ := http.NewRequest(http.MethodPost, url+"/p", strings.NewReader("{}"))
	for _, tc := range []struct {
		name string
		reqs []*http.Request
	}{
		{"https", newGets(t, context.Background(), url+"/a", "https://example.test/b")},
		{"a POST", append(newGets(t, context.Background(), url+"/a"), post)},
	} {
		rec := &recorder{}
		resps, errs, ok := (&Transport{Fallback: rec}).Fanout(tc.reqs, 100)
		if ok || resps != nil || errs != nil || len(rec.seen) != 0 {
			t.Errorf("%s: ok=%v resps=%v errs=%v fallback=%v; want declined untouched", tc.name, ok, resps, errs, rec.seen)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("declined fan-outs opened %d connections", n)
	}
}

// TestFanoutInvalidHeader: a request with a line break in a header value
// is refused on its own and never written; the others are answered.
func TestFanoutInvalidHeader(t *testing.T) {
	srv, conns := echoServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) })
	reqs := newGets(t, context.Background(), srv.URL+"/a", srv.URL+"/b", srv.URL+"/c")
	reqs[1].Header["X-Smuggle"] = []string{"v\r\n\r\nGET /evil HTTP/1.1"}
	resps, errs, _ := (&Transport{Fallback: &recorder{}}).Fanout(reqs, 100)
	want := "200 /a\nerror: h1transport: invalid value for header X-Smuggle\n200 /c\n"
	if got := outcomes(resps, errs); got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (none for the refused request)", n)
	}
}

// TestFanoutConcurrentUse: many fan-outs at once against net/http's own
// server, each answer checked against its request (run with -race).
func TestFanoutConcurrentUse(t *testing.T) {
	srv, _ := echoServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.RawQuery) })
	tr := &Transport{Fallback: &recorder{}}
	var wg sync.WaitGroup
	failures := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				n := 1 + i%3
				urls := make([]string, n)
				want := ""
				for k := range n {
					q := fmt.Sprintf("g=%d&i=%d&k=%d", g, i, k)
					urls[k] = srv.URL + "/x?" + q
					want += "200 " + q + "\n"
				}
				resps, errs, _ := tr.Fanout(newGets(t, context.Background(), urls...), 100)
				if got := outcomes(resps, errs); got != want {
					failures <- fmt.Sprintf("goroutine %d fan-out %d: got\n%swant\n%s", g, i, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
}
