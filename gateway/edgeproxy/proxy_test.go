package edgeproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestForwardsPathMethodHeadersAndBody(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s?%s auth=%s apikey=%s body=%s", r.Method, r.URL.Path, r.URL.RawQuery,
			r.Header.Get("Authorization"), r.Header.Get("apikey"), body)
	}))
	defer upstream.Close()
	var statuses []int
	h, err := New(Options{Upstream: upstream.URL, Observe: func(s int) { statuses = append(statuses, s) }})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPatch, "/functions/v1/other-fn/sub/path?x=1", strings.NewReader(`{"a":1}`))
	req.Header.Set("Authorization", "Bearer abc")
	req.Header.Set("apikey", "anon")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	want := `PATCH /functions/v1/other-fn/sub/path?x=1 auth=Bearer abc apikey=anon body={"a":1}`
	if rec.Body.String() != want || rec.Code != 200 {
		t.Fatalf("got %d %q, want %q", rec.Code, rec.Body.String(), want)
	}
	if len(statuses) != 1 || statuses[0] != 200 {
		t.Errorf("observed %v", statuses)
	}
}

func TestStreamsEventsAsTheyArrive(t *testing.T) {
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		<-release
		fmt.Fprint(w, "data: second\n\n")
	}))
	defer upstream.Close()
	h, _ := New(Options{Upstream: upstream.URL})
	gw := httptest.NewServer(h)
	defer gw.Close()
	resp, err := http.Get(gw.URL + "/functions/v1/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	if err != nil || line != "data: first\n" {
		t.Fatalf("first event not delivered before the upstream finished: %q %v", line, err)
	}
	close(release)
	rest, _ := io.ReadAll(rd)
	if string(rest) != "\ndata: second\n\n" {
		t.Fatalf("rest = %q", rest)
	}
}

func TestClientDisconnectCancelsUpstream(t *testing.T) {
	cancelled := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(cancelled)
	}))
	defer upstream.Close()
	h, _ := New(Options{Upstream: upstream.URL})
	gw := httptest.NewServer(h)
	defer gw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, gw.URL+"/functions/v1/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("upstream request not cancelled after the client disconnected")
	}
}

func TestUpstreamDown(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	var observed atomic.Int32
	h, _ := New(Options{Upstream: "http://" + addr, Observe: func(s int) { observed.Store(int32(s)) }})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/functions/v1/x", nil))
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), "BAD_GATEWAY") || observed.Load() != 502 {
		t.Fatalf("got %d %q observed %d", rec.Code, rec.Body.String(), observed.Load())
	}
}

func TestWebSocketUpgradePassesThrough(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			http.Error(w, "no upgrade", 400)
			return
		}
		conn, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprint(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
		line, _ := brw.ReadString('\n')
		fmt.Fprint(brw, "echo:"+line)
		brw.Flush()
	}))
	defer upstream.Close()
	h, _ := New(Options{Upstream: upstream.URL})
	gw := httptest.NewServer(h)
	defer gw.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(gw.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /functions/v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	fmt.Fprint(conn, "hello\n")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := rd.ReadString('\n')
	if err != nil || line != "echo:hello\n" {
		t.Fatalf("tunnel: %q %v", line, err)
	}
}

func TestRejectsBadUpstream(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "/relative"} {
		if _, err := New(Options{Upstream: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
}
