package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeGateway answers POSTs with a tool result (or an error for bodies
// naming "broken"), holds GET event streams open, and serves metrics
// computed from its own counters.
type fakeGateway struct {
	upstream atomic.Int64
	streams  atomic.Int64
	noGauge  bool // serve gateway_sse_streams_open as a constant 0
}

func (f *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/metrics":
		fmt.Fprintf(w, "# TYPE go_goroutines gauge\ngo_goroutines %d\nprocess_resident_memory_bytes 1.048576e+07\nprocess_cpu_seconds_total 2\n", runtime.NumGoroutine())
		open := f.streams.Load()
		if f.noGauge {
			open = 0
		}
		fmt.Fprintf(w, "gateway_sse_streams_open %d\n", open)
		fmt.Fprintf(w, "gateway_upstream_requests_total{upstream=\"postgrest\",endpoint=\"x\",status=\"2xx\"} %d\n", f.upstream.Load())
		fmt.Fprintf(w, "gateway_upstream_request_duration_seconds_sum{upstream=\"postgrest\",endpoint=\"x\"} %g\n", float64(f.upstream.Load())*0.001)
	case r.URL.Path != "/functions/v1/mcp-server" || r.Header.Get("Authorization") != "Bearer tok":
		http.Error(w, "no", http.StatusUnauthorized)
	case r.Method == http.MethodGet:
		f.streams.Add(1)
		defer f.streams.Add(-1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	default:
		body, _ := io.ReadAll(r.Body)
		f.upstream.Add(2)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(string(body), "broken") {
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}`)
			return
		}
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"id\":3}"}]}}`)
	}
}

func newFake(t *testing.T) (*fakeGateway, *httptest.Server, Target, *Probe) {
	t.Helper()
	f := &fakeGateway{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	tgt := Target{Endpoint: srv.URL + "/functions/v1/mcp-server", Token: "tok", Client: newLoadClient(8, 10*time.Second)}
	return f, srv, tgt, &Probe{MetricsURL: srv.URL + "/metrics", Client: srv.Client()}
}

func TestRunLoad(t *testing.T) {
	_, _, tgt, probe := newFake(t)
	ctx := context.Background()
	sc := scenario(t, "get_submission")
	if err := tgt.Preflight(ctx, sc); err != nil {
		t.Fatalf("Preflight: %v", err)
	}
	r, err := RunLoad(ctx, tgt, probe, sc, LoadOptions{Concurrency: 4, Duration: 10 * time.Second, MaxRequests: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 200 || r.Errors != 0 {
		t.Errorf("requests %d errors %d, want 200 and 0 (first error %q)", r.Requests, r.Errors, r.FirstError)
	}
	if r.UpstreamPerRequest != 2 {
		t.Errorf("upstream per request = %v, want 2", r.UpstreamPerRequest)
	}
	if r.CPUPerRequest != 0 { // the fake's process_cpu_seconds_total is constant
		t.Errorf("CPU per request = %v, want 0", r.CPUPerRequest)
	}
	if r.Latency.P50 <= 0 || r.Latency.P99 < r.Latency.P50 || r.PeakRSS != 10<<20 {
		t.Errorf("implausible result %+v", r)
	}

	broken := Scenario{Name: "broken", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"broken"}`)}
	if err := tgt.Preflight(ctx, broken); err == nil {
		t.Error("Preflight accepted a JSON-RPC error")
	}
	r, err = RunLoad(ctx, tgt, probe, broken, LoadOptions{Concurrency: 2, Duration: 10 * time.Second, MaxRequests: 10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 10 || r.Errors != 10 || !strings.Contains(r.FirstError, "boom") {
		t.Errorf("broken: requests %d errors %d first %q", r.Requests, r.Errors, r.FirstError)
	}
}

func TestRunStreams(t *testing.T) {
	f, _, tgt, probe := newFake(t)
	tgt.Client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	r, err := RunStreams(context.Background(), tgt, probe, StreamOptions{
		Streams: 40, Hold: 10 * time.Millisecond, OpenParallel: 8, Settle: 10 * time.Second,
		GoroutineSlack: 10, RSSSlack: 1 << 20, RSSGrowthFraction: 0.25,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed() {
		t.Errorf("stream run failed: %v", r.Problems)
	}
	if r.Opened != 40 || r.Open.StreamsOpen != 40 || r.After.StreamsOpen != 0 {
		t.Errorf("opened %d, open gauge %v, after %v", r.Opened, r.Open.StreamsOpen, r.After.StreamsOpen)
	}
	if r.Open.Goroutines < r.Baseline.Goroutines+40 {
		t.Errorf("goroutines while open %v, baseline %v: streams not held", r.Open.Goroutines, r.Baseline.Goroutines)
	}
	if f.streams.Load() != 0 {
		t.Errorf("%d streams still open on the server", f.streams.Load())
	}

	f.noGauge = true
	r, err = RunStreams(context.Background(), tgt, probe, StreamOptions{
		Streams: 5, Hold: time.Millisecond, OpenParallel: 5, Settle: 10 * time.Second,
		GoroutineSlack: 10, RSSSlack: 1 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed() || len(r.Notes) != 1 {
		t.Errorf("a gauge that never moves: problems %v, notes %v; want a note only", r.Problems, r.Notes)
	}

	tgt.Token = "wrong"
	r, err = RunStreams(context.Background(), tgt, probe, StreamOptions{Streams: 3, OpenParallel: 1, Settle: time.Second})
	if err == nil {
		t.Errorf("a refused warm-up stream did not fail the run: %+v", r)
	}
}

// scenario is the load run's scenario called name.
func scenario(t *testing.T, name string) Scenario {
	t.Helper()
	scs, err := pickScenarios(Scenarios(IDs{Class: 1, Submission: 3, HelpRequest: 1, Assignment: 1}, "2025-06-18"), name)
	if err != nil {
		t.Fatal(err)
	}
	return scs[0]
}

// TestRunLoadKeepsItsConnections: with the load run's client a row never
// has more than one connection per worker open and reuses them, so the row
// measures requests and not connection set-up. net/http closes a
// connection instead of reusing it when its write goroutine has not
// reported the request written within 50 ms of the answer's end, which a
// machine busy with the parallel test binaries sometimes delays; so a few
// replacements are allowed, far fewer than a client without reuse makes.
func TestRunLoadKeepsItsConnections(t *testing.T) {
	const workers, requests = 8, 4000
	f := &fakeGateway{}
	var opened, closed, open, peak atomic.Int32
	srv := httptest.NewUnstartedServer(f)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			opened.Add(1)
			n := open.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			closed.Add(1)
			open.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	client := newLoadClient(workers, 10*time.Second)
	t.Cleanup(client.CloseIdleConnections)
	tgt := Target{Endpoint: srv.URL + "/functions/v1/mcp-server", Token: "tok", Client: client, ProtocolVersion: "2025-06-18"}
	// The probe reads the same fake's metrics through a listener of its
	// own, so only the load's connections are counted.
	metrics := httptest.NewServer(f)
	t.Cleanup(metrics.Close)
	probe := &Probe{MetricsURL: metrics.URL + "/metrics", Client: metrics.Client()}
	// The row ends at its request count; the duration only bounds a stuck
	// run, so a loaded machine that needs longer than usual still sends
	// every request (once the row ended at 3,845 after 10 s).
	r, err := RunLoad(context.Background(), tgt, probe, scenario(t, "tools/list"), LoadOptions{Concurrency: workers, Duration: 3 * time.Minute, MaxRequests: requests})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != requests || r.Errors != 0 {
		t.Fatalf("requests %d errors %d, want %d and 0 (first error %q)", r.Requests, r.Errors, requests, r.FirstError)
	}
	// A connection the server closed may still be counted open for a
	// moment after the worker's next one opened (the server's ConnState
	// hook runs on its own goroutine), so each close allows one more.
	if n, c := peak.Load(), closed.Load(); n > workers+c {
		t.Errorf("%d connections were open at once for %d workers and %d closes, want at most %d", n, workers, c, workers+c)
	}
	if n := closed.Load(); n > requests/400 {
		t.Errorf("%d connections were closed during the row of %d requests (%d opened), want at most %d", n, requests, opened.Load(), requests/400)
	}
}

func TestCheckAnswerQuick(t *testing.T) {
	toolCall, noAuth := scenario(t, "get_assignment"), scenario(t, "unauthenticated")
	tests := []struct {
		name    string
		sc      Scenario
		status  int
		body    string
		wantErr bool
	}{
		{"result", toolCall, 200, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{}"}]}}`, false},
		{"JSON-RPC error", toolCall, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}`, true},
		{"tool error", toolCall, 200, `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`, true},
		{"wrong status", toolCall, 500, `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{"empty body", toolCall, 200, ``, true},
		{"expected 401", noAuth, 401, `{"error":"x"}`, false},
		{"401 scenario answered 200", noAuth, 200, `{"jsonrpc":"2.0","id":1,"result":{}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkAnswerQuick(tt.sc, tt.status, []byte(tt.body))
			if (err != nil) != tt.wantErr {
				t.Errorf("checkAnswerQuick = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

// TestRunRefusesItsOwnProcess: the gateway's CPU and memory come from
// /proc/<pid>, so measuring the load generator's own process (given by
// -pid, or found listening on the gateway's port, as an in-process server
// is) would report the generator's work as the gateway's.
func TestRunRefusesItsOwnProcess(t *testing.T) {
	srv := httptest.NewServer(&fakeGateway{})
	t.Cleanup(srv.Close)
	for _, pid := range []int{os.Getpid(), 0} {
		t.Run(fmt.Sprintf("pid %d", pid), func(t *testing.T) {
			o := options{baseURL: srv.URL, token: "tok", pid: pid, mode: "load", concurrency: "1", scenarios: "tools/list",
				repeat: 1, maxRequests: 10, duration: time.Second, requestTimeout: time.Second, maxTime: time.Minute}
			var stdout, stderr strings.Builder
			err := run(context.Background(), o, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), "load generator's own process") {
				t.Errorf("run = %v, want the own-process refusal (stderr %q)", err, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("run printed %q before refusing", stdout.String())
			}
		})
	}
}

// TestWriteScenario: the write proposal is chosen only by name (each one
// stores a pending action), and asks for a reply to the seeded open help
// request of the class.
func TestWriteScenario(t *testing.T) {
	sc := scenario(t, "reply_to_help_request")
	if !sc.Write || !sc.Tool || sc.NoAuth {
		t.Errorf("reply_to_help_request: Write %v, Tool %v, NoAuth %v; want a tool call that writes", sc.Write, sc.Tool, sc.NoAuth)
	}
	var body struct {
		Method string `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(sc.Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"class_id": 1.0, "help_request_id": 1.0, "message": "loadtest proposal"}
	if diff := cmp.Diff(want, body.Params.Arguments); diff != "" || body.Method != "tools/call" || body.Params.Name != "reply_to_help_request" {
		t.Errorf("body %s (arguments -want +got):\n%s", sc.Body, diff)
	}
	defaults, err := pickScenarios(Scenarios(IDs{Class: 1, Submission: 3, HelpRequest: 1, Assignment: 1}, "2025-06-18"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defaults {
		if d.Write {
			t.Errorf("%s writes but is among the default scenarios", d.Name)
		}
	}
}
