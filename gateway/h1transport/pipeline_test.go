package h1transport

import (
	"bufio"
	"bytes"
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
func rawServer(t *testing.T, serve func(conn net.Conn, rd *bufio.Reader)) (url string, conns *atomic.Int32) {
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

// readRequests reads n requests from rd and returns their paths.
func readRequests(rd *bufio.Reader, n int) ([]string, error) {
	var paths []string
	for range n {
		req, err := http.ReadRequest(rd)
		if err != nil {
			return paths, err
		}
		paths = append(paths, req.URL.Path)
	}
	return paths, nil
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

// outcomes renders what Pipeline returned, one line per request:
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

// TestPipelineOnTheWire: the requests leave in one write, before any
// answer, with the heads RoundTrip writes; the connection then carries the
// next pipeline.
func TestPipelineOnTheWire(t *testing.T) {
	heads := make(chan string, 4)
	url, conns := rawServer(t, func(conn net.Conn, _ *bufio.Reader) {
		var raw bytes.Buffer
		rd := bufio.NewReader(io.TeeReader(conn, &raw))
		for {
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := readRequests(rd, 2); err != nil {
				return // the client waited for an answer, or went away
			}
			heads <- raw.String()
			raw.Reset()
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"+
				"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\ntwo")
		}
	})
	host := strings.TrimPrefix(url, "http://")
	tr := &Transport{Fallback: &recorder{}}
	for round := range 2 {
		reqs := newGets(t, context.Background(), url+"/rest/v1/revoked_token_ids?token_id=eq.t1", url+"/rest/v1/user_roles?user_id=eq.u1")
		for _, r := range reqs {
			r.Header["Apikey"] = []string{"service"}
		}
		resps, errs, ok := tr.Pipeline(reqs, 1<<20)
		if !ok {
			t.Fatal("Pipeline declined two plain GETs")
		}
		if got, want := outcomes(resps, errs), "200 one\n404 two\n"; got != want {
			t.Fatalf("round %d: got\n%swant\n%s", round, got, want)
		}
		want := "GET /rest/v1/revoked_token_ids?token_id=eq.t1 HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: Go-http-client/1.1\r\nApikey: service\r\n\r\n" +
			"GET /rest/v1/user_roles?user_id=eq.u1 HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: Go-http-client/1.1\r\nApikey: service\r\n\r\n"
		if got := <-heads; got != want {
			t.Fatalf("round %d: the server read\n%q\nwant\n%q", round, got, want)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("two pipelines used %d connections, want 1", n)
	}
	if n := idleCount(tr, host); n != 1 {
		t.Fatalf("%d idle connections after the pipelines, want 1", n)
	}
}

// TestPipelineAnswers: each pair of answers, and what becomes of the
// connection.
func TestPipelineAnswers(t *testing.T) {
	const second = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond"
	tests := []struct {
		name    string
		answers string // written after both requests were read
		maxBody int64
		want    string
		conns   int32 // connections for this pipeline and one more request (which reuses the last one when it was kept)
		hang    bool  // answer nothing more on the first connection, and keep it open
	}{
		{"content lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst" + second, 100, "200 first\n200 second\n", 1, false},
		{"chunked first", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nfi\r\n3\r\nrst\r\n0\r\n\r\n" + second, 100, "200 first\n200 second\n", 1, false},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\n" + second, 100, "204 \n200 second\n", 1, false},
		{"100 Continue skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst" + second, 100, "200 first\n200 second\n", 1, false},
		{"an error status is an answer", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\ndown" + second, 100, "503 down\n200 second\n", 1, false},
		// The server will close after its first answer (here it keeps the
		// connection open and says nothing more, so waiting for it would
		// show): the second request goes again on a new connection.
		{"Connection: close first", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nfirst", 100, "200 first\n200 second\n", 2, true},
		{"HTTP/1.0 first", "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nfirst", 100, "200 first\n200 second\n", 2, true},
		// A body longer than the limit is handed over cut at limit+1 bytes
		// (for the caller to refuse) and not read to its end, so the
		// connection cannot carry the second answer.
		{"first body too long", "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n12345678" + second, 6, "200 1234567\n200 second\n", 2, false},
		// Bytes after the last answer: the answers stand, the connection is
		// not reused.
		{"bytes after the last answer", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst" + second + evilAnswer, 100, "200 first\n200 second\n", 2, false},
		{"a broken first answer fails both", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nfirst" + second, 100, "error: bad Content-Length \"x\"\nerror: bad Content-Length \"x\"\n", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var served atomic.Int32
			url, conns := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
				if served.Add(1) == 1 {
					if _, err := readRequests(rd, 2); err != nil {
						return
					}
					_, _ = io.WriteString(conn, tt.answers)
					if tt.hang {
						_, _ = io.Copy(io.Discard, rd)
						return
					}
				}
				// Later connections, or requests after the scripted answers:
				// the answer to the second request.
				for {
					if _, err := readRequests(rd, 1); err != nil {
						return
					}
					_, _ = io.WriteString(conn, second)
				}
			})
			tr := &Transport{Fallback: &recorder{}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			resps, errs, ok := tr.Pipeline(newGets(t, ctx, url+"/one", url+"/two"), tt.maxBody)
			if !ok {
				t.Fatal("Pipeline declined")
			}
			if got := outcomes(resps, errs); got != tt.want {
				t.Fatalf("got\n%swant\n%s", got, tt.want)
			}
			// One more request shows whether the connection was kept.
			c := &http.Client{Transport: tr}
			if status, body := get(t, c, url+"/three", nil); status != 200 || body != "second" {
				t.Fatalf("the request after: %d %q", status, body)
			}
			if n := conns.Load(); n != tt.conns {
				t.Fatalf("%d connections, want %d", n, tt.conns)
			}
		})
	}
}

// TestPipelineEveryCut sends the two answers in two writes cut at every
// byte, with a pause between, and requires exactly the right answer for
// each request.
func TestPipelineEveryCut(t *testing.T) {
	pairs := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirstHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nsecond\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirstHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond",
	}
	for i, pair := range pairs {
		for split := 0; split <= len(pair); split++ {
			url, _ := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
				if _, err := readRequests(rd, 2); err != nil {
					return
				}
				_, _ = io.WriteString(conn, pair[:split])
				time.Sleep(time.Millisecond)
				_, _ = io.WriteString(conn, pair[split:])
				_, _ = readRequests(rd, 1)
			})
			tr := &Transport{Fallback: &recorder{}}
			resps, errs, _ := tr.Pipeline(newGets(t, context.Background(), url+"/one", url+"/two"), 100)
			if got := outcomes(resps, errs); got != "200 first\n200 second\n" {
				t.Fatalf("pair %d cut at %d: got\n%s", i, split, got)
			}
			tr.CloseIdleConnections()
		}
	}
}

// TestPipelineServerClosesBetween: a server that answers one request per
// connection (an upstream at its keep-alive limit, or one dropping idle
// connections) still answers all three, each on its own connection; a
// reused connection that is dead on arrival is replayed once.
func TestPipelineServerClosesBetween(t *testing.T) {
	url, requests := gatewaytest.DroppingServer(t)
	tr := &Transport{Fallback: &recorder{}}
	resps, errs, _ := tr.Pipeline(newGets(t, context.Background(), url+"/a", url+"/b", url+"/c"), 100)
	if got := outcomes(resps, errs); got != "200 ok\n200 ok\n200 ok\n" {
		t.Fatalf("got\n%s", got)
	}
	// The server read /a, /b (dropped), /b, /c (dropped), /c.
	if n := requests.Load(); n != 5 {
		t.Fatalf("server read %d requests, want 5", n)
	}

	// A server that hangs up on every connection: the fresh connection's
	// failure is final.
	var accepted atomic.Int32
	url, _ = rawServer(t, func(conn net.Conn, rd *bufio.Reader) { accepted.Add(1) })
	resps, errs, _ = tr.Pipeline(newGets(t, context.Background(), url+"/a", url+"/b"), 100)
	if resps[0] != nil || resps[1] != nil || errs[0] == nil || errs[1] == nil {
		t.Fatalf("a server that hangs up answered: %s", outcomes(resps, errs))
	}
	if n := accepted.Load(); n != 1 {
		t.Fatalf("%d connections to a server that hangs up, want 1", n)
	}
}

func TestPipelineDeadKeepAliveIsReplayedOnce(t *testing.T) {
	var conns atomic.Int32
	url, _ := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
		// The first connection answers a pipeline and is then dropped when
		// the next one arrives; the second answers normally.
		first := conns.Add(1) == 1
		for {
			if _, err := readRequests(rd, 2); err != nil {
				return
			}
			if first {
				first = false
				_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb")
				// Hang up when the next pipeline arrives, after the idle
				// peek has passed it as fit for reuse.
				_, _ = rd.Peek(1)
				return
			}
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ncHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nd")
		}
	})
	tr := &Transport{Fallback: &recorder{}}
	for i, want := range []string{"200 a\n200 b\n", "200 c\n200 d\n"} {
		resps, errs, _ := tr.Pipeline(newGets(t, context.Background(), url+"/1", url+"/2"), 100)
		if got := outcomes(resps, errs); got != want {
			t.Fatalf("pipeline %d: got\n%swant\n%s", i, got, want)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (the dropped one and its replacement)", n)
	}
}

func TestPipelineContext(t *testing.T) {
	url, _ := rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
		_, _ = readRequests(rd, 2)
		_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
		_, _ = rd.Peek(1) // never answers the second
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	resps, errs, _ := (&Transport{Fallback: &recorder{}}).Pipeline(newGets(t, ctx, url+"/1", url+"/2"), 100)
	if got, want := outcomes(resps, errs), "200 first\nerror: context deadline exceeded\n"; got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
	if !errors.Is(errs[1], context.DeadlineExceeded) {
		t.Fatalf("error %v is not the context's", errs[1])
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the pipeline outlived its context by %v", d)
	}
	// An ended context sends nothing.
	ended, stop := context.WithCancel(context.Background())
	stop()
	resps, errs, _ = (&Transport{Fallback: &recorder{}}).Pipeline(newGets(t, ended, url+"/1"), 100)
	if got := outcomes(resps, errs); got != "error: context canceled\n" {
		t.Fatalf("ended context: %s", got)
	}
}

// TestPipelineDeclines: requests this transport does not take are left to
// the caller, untouched and unsent.
func TestPipelineDeclines(t *testing.T) {
	var conns atomic.Int32
	url, _ := rawServer(t, func(net.Conn, *bufio.Reader) { conns.Add(1) })
	other, _ := rawServer(t, func(net.Conn, *bufio.Reader) { conns.Add(1) })
	post, _ := http.NewRequest(http.MethodPost, url+"/p", strings.NewReader("{}"))
	big := newGets(t, context.Background(), url+"/big")[0]
	big.Header["X-Big"] = []string{strings.Repeat("b", maxPipelinedHeads)}
	tests := []struct {
		name string
		reqs []*http.Request
	}{
		{"https", newGets(t, context.Background(), url+"/a", "https://example.test/b")},
		{"a POST", append(newGets(t, context.Background(), url+"/a"), post)},
		{"two hosts", newGets(t, context.Background(), url+"/a", other+"/b")},
		{"heads over 16 KiB", append(newGets(t, context.Background(), url+"/a"), big)},
	}
	for _, tt := range tests {
		rec := &recorder{}
		resps, errs, ok := (&Transport{Fallback: rec}).Pipeline(tt.reqs, 100)
		if ok || resps != nil || errs != nil || len(rec.seen) != 0 {
			t.Errorf("%s: ok=%v resps=%v errs=%v fallback=%v; want declined untouched", tt.name, ok, resps, errs, rec.seen)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("declined pipelines opened %d connections", n)
	}
}

// TestPipelineInvalidHeader: a request with a line break in a header value
// is refused on its own and never written; the others are answered.
func TestPipelineInvalidHeader(t *testing.T) {
	srv, _ := echoServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) })
	reqs := newGets(t, context.Background(), srv.URL+"/a", srv.URL+"/b", srv.URL+"/c")
	reqs[1].Header["X-Smuggle"] = []string{"v\r\n\r\nGET /evil HTTP/1.1"}
	resps, errs, _ := (&Transport{Fallback: &recorder{}}).Pipeline(reqs, 100)
	want := "200 /a\nerror: h1transport: invalid value for header X-Smuggle\n200 /c\n"
	if got := outcomes(resps, errs); got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
}

// TestPipelineConcurrentUse: many pipelines at once against net/http's own
// server, each answer checked against its request (run with -race).
func TestPipelineConcurrentUse(t *testing.T) {
	srv, conns := echoServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.RawQuery) })
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
				resps, errs, _ := tr.Pipeline(newGets(t, context.Background(), urls...), 100)
				if got := outcomes(resps, errs); got != want {
					failures <- fmt.Sprintf("goroutine %d pipeline %d: got\n%swant\n%s", g, i, got, want)
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
	if n := conns.Load(); n > 8 {
		t.Fatalf("400 pipelines from 8 goroutines used %d connections, want at most 8", n)
	}
}
