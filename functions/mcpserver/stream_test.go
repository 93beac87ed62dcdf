package mcpserver

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestGETRefusals covers A6.1 steps 1–2: the Accept check precedes
// authentication, and auth failures use the {"error": …} shape.
func TestGETRefusals(t *testing.T) {
	sse := "text/event-stream"
	cases := []httpCase{
		{name: "no Accept", header: hdr("Authorization", authGood), wantStatus: 406,
			wantBody: `{"error":"Must accept text/event-stream"}`},
		{name: "Accept JSON", header: hdr("Authorization", authGood, "Accept", "application/json"), wantStatus: 406,
			wantBody: `{"error":"Must accept text/event-stream"}`},
		{name: "Accept wildcard is not enough", header: hdr("Authorization", authGood, "Accept", "*/*"), wantStatus: 406,
			wantBody: `{"error":"Must accept text/event-stream"}`},
		{name: "Accept is case-sensitive", header: hdr("Authorization", authGood, "Accept", "Text/Event-Stream"), wantStatus: 406,
			wantBody: `{"error":"Must accept text/event-stream"}`},
		{name: "406 before auth", header: hdr("Authorization", authBad), wantStatus: 406,
			wantBody: `{"error":"Must accept text/event-stream"}`},
		{name: "missing auth", header: hdr("Accept", sse), wantStatus: 401,
			wantBody: `{"error":"Missing Authorization header"}`, wantAuthCalls: 1},
		{name: "invalid token", header: hdr("Accept", sse, "Authorization", authBad), wantStatus: 401,
			wantBody: `{"error":"Invalid or expired API token"}`, wantAuthCalls: 1},
		{name: "not staff", header: hdr("Accept", sse, "Authorization", authForbidden), wantStatus: 403,
			wantBody: `{"error":"User must be an instructor or grader in at least one class"}`, wantAuthCalls: 1},
		{name: "config", header: hdr("Accept", sse, "Authorization", authConfig), wantStatus: 500,
			wantBody: `{"error":"MCP_JWT_SECRET must be set and at least 32 characters"}`, wantAuthCalls: 1},
		{name: "upstream", header: hdr("Accept", sse, "Authorization", authDown), wantStatus: 503,
			wantBody: `{"error":"Could not verify token revocation status: connection refused"}`, wantAuthCalls: 1},
		{name: "non-apierror", header: hdr("Accept", sse, "Authorization", authPlainErr), wantStatus: 500,
			wantBody: `{"error":"Internal server error"}`, wantAuthCalls: 1},
		{name: "user client fails", header: hdr("Accept", sse, "Authorization", authNoUser), wantStatus: 500,
			wantBody: `{"error":"JWT_SECRET must be set. Generate with: supabase gen signing-key --algorithm ES256"}`, wantAuthCalls: 1},
	}
	for i := range cases {
		cases[i].method = http.MethodGet
		cases[i].wantHeader = hdr("Content-Type", ctJSON, "WWW-Authenticate", "")
		cases[i].wantTouches = 0
	}
	runCases(t, cases, nil)
}

// serveCanceled runs a GET whose client is already gone, so the handler
// writes the stream's opening bytes and returns: the exact bytes a live
// client receives first.
func serveCanceled(env *testEnv, header map[string]string) *httptest.ResponseRecorder {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/functions/v1/mcp-server", nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	env.e.ServeHTTP(rec, req)
	return rec
}

// TestGETStreamOpening covers A6.1 steps 3–5 and the A6 endpoint framing.
func TestGETStreamOpening(t *testing.T) {
	forged := hdr("Accept", "text/event-stream", "Authorization", authSecret,
		"Host", "evil.example", "X-Forwarded-Host", "evil.example", "X-Forwarded-Proto", "http")
	for _, tc := range []struct {
		name, base, wantBody string
		wantWarning          bool
	}{
		{name: "endpoint event", base: "https://abc.supabase.co", wantBody: "event: endpoint\ndata: https://abc.supabase.co/functions/v1/mcp-server\n\n"},
		{name: "trailing slash is concatenated", base: "https://abc.supabase.co/", wantBody: "event: endpoint\ndata: https://abc.supabase.co//functions/v1/mcp-server\n\n"},
		{name: "unset: nothing, and a warning", base: "", wantBody: "", wantWarning: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.EdgeFunctionsURL = tc.base })
			rec := serveCanceled(env, forged)
			if rec.Code != 200 {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			checkHeaders(t, rec.Header(), wantCORS)
			checkHeaders(t, rec.Header(), hdr("Content-Type", ctSSE, "Cache-Control", "no-cache", "Connection", "keep-alive", "Mcp-Session-Id", ""))
			if diff := cmp.Diff(tc.wantBody, rec.Body.String()); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if got := env.auth.touches.Load(); got != 1 {
				t.Errorf("TouchLastUsed called %d times, want 1", got)
			}
			var warnings int
			for _, m := range env.logs.messages(t) {
				if m == endpointWarning {
					warnings++
				}
			}
			if want := map[bool]int{true: 1}[tc.wantWarning]; warnings != want {
				t.Errorf("endpoint warning logged %d times, want %d", warnings, want)
			}
		})
	}
}

// liveServer serves env over a real socket, as streams need.
func liveServer(t testing.TB, env *testEnv) (*httptest.Server, *http.Client) {
	t.Helper()
	ts := httptest.NewServer(env.e)
	tr := &http.Transport{}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		ts.Close()
	})
	return ts, &http.Client{Transport: tr}
}

// openStream starts a GET stream and returns its response and a function
// that disconnects the client.
func openStream(t testing.TB, ts *httptest.Server, client *http.Client, auth string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/functions/v1/mcp-server", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", auth)
	resp, err := client.Do(req) // returns once the headers were flushed
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return resp, func() {
		cancel()
		_ = resp.Body.Close()
	}
}

// waitFor polls cond until it holds or a generous deadline passes (a
// passing run returns as soon as cond holds; only a failing one waits the
// deadline out, so it can be long).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGETStreamLive checks that a live stream is flushed at once, stays
// open, and is released when the client disconnects.
func TestGETStreamLive(t *testing.T) {
	env := newTestEnv(t, func(o *Options) { o.EdgeFunctionsURL = "https://abc.supabase.co" })
	ts, client := liveServer(t, env)
	resp, disconnect := openStream(t, ts, client, authGood)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctSSE {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	want := "event: endpoint\ndata: https://abc.supabase.co/functions/v1/mcp-server\n\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(resp.Body, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("first event = %q, want %q", got, want)
	}
	// Nothing else arrives while the stream is idle.
	extra := make(chan int, 1)
	go func() {
		n, _ := resp.Body.Read(make([]byte, 1))
		extra <- n
	}()
	select {
	case n := <-extra:
		t.Fatalf("idle stream delivered %d more bytes", n)
	case <-time.After(100 * time.Millisecond):
	}
	if n := env.srv.streams.open(); n != 1 {
		t.Errorf("open streams = %d, want 1", n)
	}
	disconnect()
	waitFor(t, "the stream to be released", func() bool { return env.srv.streams.open() == 0 })
}

// TestGETKeepAlive checks the optional SSE comment keep-alives.
func TestGETKeepAlive(t *testing.T) {
	env := newTestEnv(t, func(o *Options) { o.KeepAlive = 10 * time.Millisecond })
	ts, client := liveServer(t, env)
	resp, disconnect := openStream(t, ts, client, authGood)
	defer disconnect()
	r := bufio.NewReader(resp.Body)
	for i := 0; i < 2; i++ {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		blank, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line+blank != keepAliveComment {
			t.Fatalf("event %d = %q, want %q", i, line+blank, keepAliveComment)
		}
	}
}

// TestStreamLimits covers the per-token (429) and global (503) bounds.
func TestStreamLimits(t *testing.T) {
	env := newTestEnv(t, func(o *Options) {
		o.MaxStreamsPerToken = 2
		o.MaxStreams = 3
	})
	ts, client := liveServer(t, env)
	_, a1 := openStream(t, ts, client, authGood)
	defer a1()
	_, a2 := openStream(t, ts, client, authGood)
	defer a2()

	refused := func(auth string, wantStatus int, wantBody string) {
		t.Helper()
		rec := env.do(http.MethodGet, "", hdr("Accept", "text/event-stream", "Authorization", auth), "")
		if rec.Code != wantStatus || rec.Body.String() != wantBody {
			t.Errorf("got %d %s, want %d %s", rec.Code, rec.Body, wantStatus, wantBody)
		}
		checkHeaders(t, rec.Header(), wantCORS)
		checkHeaders(t, rec.Header(), hdr("Content-Type", ctJSON))
	}
	refused(authGood, http.StatusTooManyRequests, `{"error":"Too many open event streams for this token"}`)
	_, b1 := openStream(t, ts, client, authOther)
	defer b1()
	refused(authOther, http.StatusServiceUnavailable, `{"error":"Too many open event streams"}`)

	a1()
	waitFor(t, "a slot to free", func() bool { return env.srv.streams.open() == 2 })
	resp, a3 := openStream(t, ts, client, authGood)
	defer a3()
	if resp.StatusCode != 200 {
		t.Errorf("after release: status %d, want 200", resp.StatusCode)
	}
}

// TestShutdown checks that Shutdown ends open streams promptly and refuses
// new ones.
func TestShutdown(t *testing.T) {
	env := newTestEnv(t, nil)
	ts, client := liveServer(t, env)
	var bodies []io.ReadCloser
	for i := 0; i < 3; i++ {
		resp, disconnect := openStream(t, ts, client, authGood)
		defer disconnect()
		bodies = append(bodies, resp.Body)
	}
	// The streams never end by themselves, so Shutdown succeeds before
	// its (generous) deadline only if it ends them.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := env.srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for i, b := range bodies {
		if data, err := io.ReadAll(b); err != nil || len(data) != 0 {
			t.Errorf("stream %d: read %q, %v; want a clean empty end", i, data, err)
		}
	}
	rec := env.do(http.MethodGet, "", hdr("Accept", "text/event-stream", "Authorization", authGood), "")
	if rec.Code != http.StatusServiceUnavailable || rec.Body.String() != `{"error":"Server is shutting down"}` {
		t.Errorf("after shutdown: %d %s", rec.Code, rec.Body)
	}
	// A second call is harmless.
	if err := env.srv.Shutdown(ctx); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
}

// TestStreamsLeakNothing opens and drops many streams and checks that no
// goroutine or limiter entry survives them.
// stableGoroutineCount returns the number of goroutines once it has stopped
// changing (the same in ten samples 10 ms apart), so that goroutines still
// winding down from earlier work are not mistaken for a baseline.
func stableGoroutineCount(t testing.TB) int {
	t.Helper()
	n, same := runtime.NumGoroutine(), 0
	waitFor(t, "a stable goroutine count", func() bool {
		time.Sleep(10 * time.Millisecond)
		if m := runtime.NumGoroutine(); m != n {
			n, same = m, 0
			return false
		}
		same++
		return same >= 10
	})
	return n
}

func TestStreamsLeakNothing(t *testing.T) {
	env := newTestEnv(t, func(o *Options) {
		o.KeepAlive = 5 * time.Millisecond
		o.MaxStreamsPerToken = 64
	})
	ts, client := liveServer(t, env)
	// Warm up one connection so lazily started runtime goroutines are
	// part of the baseline.
	_, d := openStream(t, ts, client, authGood)
	d()
	waitFor(t, "warm-up stream release", func() bool { return env.srv.streams.open() == 0 })
	client.Transport.(*http.Transport).CloseIdleConnections()
	base := stableGoroutineCount(t)

	var drops []context.CancelFunc
	for i := 0; i < 40; i++ {
		auth := authGood
		if i%2 == 1 {
			auth = authOther
		}
		_, d := openStream(t, ts, client, auth)
		drops = append(drops, d)
	}
	if n := env.srv.streams.open(); n != 40 {
		t.Fatalf("open streams = %d, want 40", n)
	}
	for _, d := range drops {
		d()
	}
	waitFor(t, "all streams released", func() bool { return env.srv.streams.open() == 0 })
	client.Transport.(*http.Transport).CloseIdleConnections()
	waitFor(t, "goroutines to return to the baseline", func() bool { return runtime.NumGoroutine() <= base })
	env.srv.streams.mu.Lock()
	left := len(env.srv.streams.byKey)
	env.srv.streams.mu.Unlock()
	if left != 0 {
		t.Errorf("limiter still tracks %d keys", left)
	}
}
