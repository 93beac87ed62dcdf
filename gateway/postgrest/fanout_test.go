package postgrest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/h1transport"
)

// tableServer answers each table with a fixed status and body, and counts
// connections and requests.
func tableServer(t *testing.T, answers map[string]string) (url string, conns, requests *atomic.Int32) {
	t.Helper()
	conns, requests = new(atomic.Int32), new(atomic.Int32)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		a, ok := answers[strings.TrimPrefix(r.URL.Path, "/rest/v1/")]
		if !ok {
			a = `404 {"code":"PGRST205","message":"Could not find the table"}`
		}
		var status int
		var body string
		fmt.Sscanf(a, "%d", &status)
		body = a[strings.IndexByte(a, ' ')+1:]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/rest/v1", conns, requests
}

// describe renders an answer or error for comparison.
func describe(body []byte, err error) string {
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) && pe.Message != "" {
			return fmt.Sprintf("error %d %s %q", pe.Status, pe.Code, pe.Message)
		}
		return "error " + err.Error()
	}
	if body == nil {
		return "nil"
	}
	return string(body)
}

// TestFanoutAnswersAsEachQuery: over h1transport every answer reads as the
// query's own method would read it, each query on its own connection; the
// hook sees each query.
func TestFanoutAnswersAsEachQuery(t *testing.T) {
	url, conns, _ := tableServer(t, map[string]string{
		"empty":  `200 []`,
		"one":    `200 [{"id":1}]`,
		"two":    `200 [{"id":1},{"id":2}]`,
		"broken": `500 {"code":"XX000","message":"internal error"}`,
		"big":    `200 ["` + strings.Repeat("x", 100) + `"]`,
	})
	var mu sync.Mutex
	var observed []string
	c, err := New(Options{BaseURL: url, APIKey: "k", MaxBodyBytes: 64,
		HTTPClient: &http.Client{Transport: &h1transport.Transport{Fallback: http.DefaultTransport}},
		Observe: func(_ context.Context, table string, status int, err error) {
			mu.Lock()
			observed = append(observed, fmt.Sprintf("%s %d %v", table, status, err != nil))
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	answers, ok := Fanout(ctx, c.From("empty"), c.From("one"), c.From("two"), c.From("broken"), c.From("big"), c.From("one"))
	if !ok {
		t.Fatal("Fanout declined over h1transport")
	}
	got := []string{
		describe(answers[0].MaybeSingle()),
		describe(answers[1].MaybeSingle()),
		describe(answers[2].MaybeSingle()),
		describe(answers[3].Rows()),
		describe(answers[4].Rows()),
		describe(answers[5].Rows()),
	}
	want := []string{
		"nil",
		`{"id":1}`,
		`error 200 PGRST116 "JSON object requested, multiple (or no) rows returned"`,
		`error 500 XX000 "internal error"`,
		"error postgrest: response body exceeds the configured limit",
		`[{"id":1}]`,
	}
	if n := conns.Load(); n != 6 {
		t.Errorf("%d connections for 6 queries in flight together, want 6", n)
	}
	// The same queries one by one say the same.
	one := []string{
		describe(c.From("empty").MaybeSingle(ctx)),
		describe(c.From("one").MaybeSingle(ctx)),
		describe(c.From("two").MaybeSingle(ctx)),
		describe(c.From("broken").Rows(ctx)),
		describe(c.From("big").Rows(ctx)),
		describe(c.From("one").Rows(ctx)),
	}
	for i := range want {
		if got[i] != want[i] || one[i] != want[i] {
			t.Errorf("query %d: fanned out %s, alone %s; want %s", i, got[i], one[i], want[i])
		}
	}
	wantObserved := "[empty 200 false one 200 false two 200 false broken 500 true big 200 true one 200 false]"
	if got := fmt.Sprint(observed[:6]); got != wantObserved {
		t.Errorf("observed %s, want %s", got, wantObserved)
	}
}

// TestFanoutDeclines: without a transport that can fan out, or across
// clients that do not share one, nothing is sent and the caller is told.
func TestFanoutDeclines(t *testing.T) {
	url, _, requests := tableServer(t, map[string]string{"one": `200 []`})
	plain, _ := New(Options{BaseURL: url})
	h1 := &http.Client{Transport: &h1transport.Transport{Fallback: http.DefaultTransport}}
	a, _ := New(Options{BaseURL: url, HTTPClient: h1})
	b, _ := New(Options{BaseURL: url, HTTPClient: &http.Client{Transport: &h1transport.Transport{Fallback: http.DefaultTransport}}})
	ctx := context.Background()
	if _, ok := Fanout(ctx, plain.From("one"), plain.From("one")); ok {
		t.Error("fanned out over net/http's transport")
	}
	if _, ok := Fanout(ctx, a.From("one"), b.From("one")); ok {
		t.Error("fanned out across two transports")
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("declined fan-outs sent %d requests", n)
	}
	// Clients that differ only in their bearer share the transport.
	answers, ok := Fanout(ctx, a.From("one"), a.WithBearer("user-jwt").From("one"))
	if !ok || describe(answers[1].Rows()) != "[]" {
		t.Errorf("WithBearer copies: ok=%v", ok)
	}
}
