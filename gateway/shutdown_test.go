package gateway

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// serve starts s on a loopback listener and returns its base URL and a
// channel that receives Serve's result.
func serve(t *testing.T, s *Server, ctx context.Context) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), done
}

func TestGracefulShutdown(t *testing.T) {
	slowStarted := make(chan struct{})
	var hookCalls atomic.Int32
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		g.POST("/slow", func(c echo.Context) error {
			close(slowStarted)
			// An ordinary request in flight when shutdown starts. It does
			// not watch ShutdownContext and must be allowed to finish.
			select {
			case <-time.After(300 * time.Millisecond):
			case <-c.Request().Context().Done():
				return c.Request().Context().Err()
			}
			return c.String(http.StatusOK, "done")
		})
		g.GET("/stream", func(c echo.Context) error {
			w := c.Response()
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "event: hello\n\n")
			w.Flush()
			select {
			case <-ShutdownContext(c.Request().Context()).Done():
				_, _ = io.WriteString(w, "event: bye\n\n")
			case <-c.Request().Context().Done():
			}
			return nil
		})
	}}
	// The bound is long: the stream ends only when told to, so a shutdown
	// that did not tell it would run into the bound, which the log shows.
	s, logs := newTestServer(t, Options{
		Functions:       []Function{fn},
		ShutdownTimeout: time.Minute,
		OnShutdown:      []func(){func() { hookCalls.Add(1) }},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, done := serve(t, s, ctx)

	// Open the stream and read its first event.
	streamResp, err := http.Get(base + "/functions/v1/f/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer streamResp.Body.Close()
	br := bufio.NewReader(streamResp.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "event: hello\n" {
		t.Fatalf("first stream line = %q, %v", line, err)
	}

	// Start the slow request, then begin shutdown while it runs.
	type result struct {
		status int
		body   string
		err    error
	}
	slow := make(chan result, 1)
	go func() {
		resp, err := http.Post(base+"/f/slow", "text/plain", nil)
		if err != nil {
			slow <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		slow <- result{resp.StatusCode, string(b), err}
	}()
	<-slowStarted
	cancel()

	// The stream is told to stop through ShutdownContext.
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("reading the rest of the stream: %v", err)
	}
	if got := string(rest); got != "\nevent: bye\n\n" {
		t.Errorf("rest of stream = %q, want %q", got, "\nevent: bye\n\n")
	}
	// The in-flight request completes normally.
	if r := <-slow; r.err != nil || r.status != 200 || r.body != "done" {
		t.Errorf("slow request = %d %q %v, want 200 \"done\"", r.status, r.body, r.err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v, want nil", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Serve did not return after shutdown")
	}
	if strings.Contains(logs.String(), "shutdown deadline passed") {
		t.Errorf("shutdown ran into its bound instead of ending the stream:\n%s", logs)
	}
	if n := hookCalls.Load(); n != 1 {
		t.Errorf("OnShutdown hook ran %d times, want 1", n)
	}
	// New connections are refused once Serve has returned.
	if resp, err := http.Get(base + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("GET after shutdown succeeded with %d, want a connection error", resp.StatusCode)
	}
}

func TestShutdownIsBounded(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		g.GET("", func(c echo.Context) error {
			// A handler that ignores every signal until the test ends.
			c.Response().WriteHeader(http.StatusOK)
			c.Response().Flush()
			close(started)
			<-release
			return nil
		})
	}}
	s, logs := newTestServer(t, Options{Functions: []Function{fn}, ShutdownTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	base, done := serve(t, s, ctx)

	resp, err := http.Get(base + "/functions/v1/f")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started
	start := time.Now()
	cancel()
	// The handler never returns before the test ends, so Serve returns at
	// all only because the bound cut it off; the generous wait below is
	// no measure of the bound, only a limit on a hang.
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v, want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return: the shutdown bound did not cut the handler off")
	}
	// A timer never fires early, so waiting at least the bound is exact.
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("shutdown took %v, less than the 200 ms it should have waited for the handler", d)
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("reading the cut-off response succeeded, want a connection error")
	}
	if !strings.Contains(logs.String(), "shutdown deadline passed") {
		t.Errorf("forced close was not logged:\n%s", logs)
	}
}

func TestServeReportsListenerFailure(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0") // the metrics port is taken
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	s, _ := newTestServer(t, Options{MetricsAddr: busy.Addr().String(), MetricsHandler: http.NotFoundHandler()})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Serve(context.Background(), ln)
	if err == nil || !strings.HasPrefix(err.Error(), "gateway: listen on "+busy.Addr().String()+" for metrics: ") {
		t.Errorf("Serve error = %v, want a metrics listen error", err)
	}
	if err := s.Serve(context.Background(), ln); err == nil || err.Error() != "gateway: Serve called twice" {
		t.Errorf("second Serve error = %v", err)
	}
}

func TestMetricsListener(t *testing.T) {
	// The listener is bound before Serve and handed over, so no port is
	// freed and taken again, and a request sent before the metrics server
	// starts waits in the listen queue instead of failing.
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := mln.Addr().String()
	s, _ := newTestServer(t, Options{MetricsListener: mln, MetricsHandler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "gateway_up 1\n")
	})})
	ctx, cancel := context.WithCancel(context.Background())
	base, done := serve(t, s, ctx)
	defer func() { cancel(); <-done }()

	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "gateway_up 1\n" {
		t.Errorf("metrics body = %q, %v", b, err)
	}
	// Never on the public listener.
	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("public /metrics status = %d, want 404", resp.StatusCode)
	}
}
