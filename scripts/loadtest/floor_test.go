package main

import (
	"bytes"
	"context"
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
)

// standInGateway answers like the gateway in shape: 401 with its headers
// without a token, otherwise a JSON-RPC result that names the request, with
// a header that does too.
func standInGateway(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("Authorization") != "Bearer tok" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Www-Authenticate", `Bearer resource_metadata="http://gw/.well-known/oauth-protected-resource"`)
		w.Header().Set("X-Request-Id", "0123456789abcdef0123456789abcdef")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Missing Authorization header"}}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Body-Length", fmt.Sprint(len(body)))
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":%q}]}}`, body)
}

// countingBackend is the fake backend, counting requests per path and
// connections.
type countingBackend struct {
	mu    sync.Mutex
	paths []string
	conns atomic.Int32
}

func (b *countingBackend) start(t *testing.T) string {
	inner := fakeBackend()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.paths = append(b.paths, r.URL.RequestURI())
		b.mu.Unlock()
		inner.ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			b.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func (b *countingBackend) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.paths
	b.paths = nil
	return p
}

// answerText is an answer's status, headers (without Date) and body.
func answerText(t *testing.T, url string, body []byte, token string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/functions/v1/mcp-server", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var lines []string
	for k, v := range resp.Header {
		if k != "Date" {
			lines = append(lines, k+": "+strings.Join(v, ", "))
		}
	}
	sort.Strings(lines)
	return fmt.Sprintf("%d\n%s\n\n%s", resp.StatusCode, strings.Join(lines, "\n"), b)
}

// TestFloorReplaysTheGateway: the floor answers every scenario with the
// gateway's exact answer, after the upstream calls the gateway would make —
// the look-up, plus the tool's read for a tool call.
func TestFloorReplaysTheGateway(t *testing.T) {
	gw := httptest.NewServer(http.HandlerFunc(standInGateway))
	t.Cleanup(gw.Close)
	backend := &countingBackend{}
	backendURL := backend.start(t)

	f := &floorServer{answers: map[string]*recordedAnswer{}, upstream: backendURL, client: newFloorClient()}
	if err := f.record(context.Background(), gw.URL, "tok", "2025-06-18"); err != nil {
		t.Fatal(err)
	}
	floor := httptest.NewServer(f)
	t.Cleanup(floor.Close)

	lookups := []string{floorLookup}
	totalReads := 0
	for _, sc := range Scenarios(IDs{Class: 1, Submission: 3, HelpRequest: 1, Assignment: 1}, "2025-06-18") {
		if sc.Write {
			continue
		}
		token := "tok"
		if sc.NoAuth {
			token = ""
		}
		want := answerText(t, gw.URL, sc.Body, token)
		backend.take()
		got := answerText(t, floor.URL, sc.Body, token)
		if got != want {
			t.Errorf("%s: the floor answered\n%s\nthe gateway\n%s", sc.Name, got, want)
		}
		var wantReads []string
		switch {
		case sc.NoAuth:
		case sc.Tool:
			wantReads = append(append(wantReads, lookups...), floorToolRead)
		default:
			wantReads = lookups
		}
		reads := backend.take()
		totalReads += len(reads)
		if fmt.Sprint(reads) != fmt.Sprint(wantReads) {
			t.Errorf("%s: upstream reads %v, want %v", sc.Name, reads, wantReads)
		}
	}
	// One connection serves the sequential calls and is reused. net/http
	// puts a connection back in its pool just after its body's end has
	// been read, so a following request may now and then dial another, and
	// on a busy machine it closes one whose write goroutine is late to
	// report; a client without reuse dials one per call.
	if n := backend.conns.Load(); n < 1 || int(n) > totalReads/2 {
		t.Errorf("the floor used %d upstream connections for %d sequential calls, want 1 to %d (reused)", n, totalReads, totalReads/2)
	}
	if totalReads < 8 {
		t.Errorf("the scenarios made %d upstream reads; too few to tell reuse from none", totalReads)
	}
	// A request it did not record is refused, not answered with another's
	// answer.
	if got := answerText(t, floor.URL, []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`), "tok"); !strings.HasPrefix(got, "400\n") {
		t.Errorf("an unrecorded request got\n%s", got)
	}
}

// startFloor records the stand-in gateway and serves the floor against the
// upstream at upstreamURL.
func startFloor(t *testing.T, upstreamURL string) string {
	t.Helper()
	gw := httptest.NewServer(http.HandlerFunc(standInGateway))
	t.Cleanup(gw.Close)
	f := &floorServer{answers: map[string]*recordedAnswer{}, upstream: upstreamURL, client: newFloorClient()}
	if err := f.record(context.Background(), gw.URL, "tok", "2025-06-18"); err != nil {
		t.Fatal(err)
	}
	floor := httptest.NewServer(f)
	t.Cleanup(floor.Close)
	return floor.URL
}

// TestFloorLookUpIsOneCall: the floor asks the upstream as the gateway
// does, one POST of mcp_auth_lookup with the token's ids as JSON.
func TestFloorLookUpIsOneCall(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	inner := fakeBackend()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == floorLookup {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			calls = append(calls, r.Method+" "+r.Header.Get("Content-Type")+" "+string(body))
			mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(upstream.Close)
	floorURL := startFloor(t, upstream.URL)
	tl := scenario(t, "tools/list")
	if got := answerText(t, floorURL, tl.Body, "tok"); !strings.HasPrefix(got, "200\n") {
		t.Errorf("tools/list got\n%s", got)
	}
	want := []string{"POST application/json " + floorLookupBody}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("look-up calls %q, want %q", calls, want)
	}
}

// TestFloorRefusesUpstreamErrors: a look-up answered with an error status
// makes the floor answer 502 rather than replay the recorded success.
func TestFloorRefusesUpstreamErrors(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	t.Cleanup(upstream.Close)
	floorURL := startFloor(t, upstream.URL)
	tl := scenario(t, "tools/list")
	if got := answerText(t, floorURL, tl.Body, "tok"); !strings.HasPrefix(got, "502\n") {
		t.Errorf("tools/list with a failing upstream got\n%s", got)
	}
}
