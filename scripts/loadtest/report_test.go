package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMergeRepeats(t *testing.T) {
	rs := []LoadResult{
		{Scenario: "tools/list", Concurrency: 10, Elapsed: time.Second, Requests: 100, Errors: 1, FirstError: "HTTP 500",
			Latency: Summary{P50: ms(2), P95: ms(4), P99: ms(8)}, CPUPerRequest: 0.001, UpstreamPerRequest: 0, UpstreamSecPerReq: 0, PeakRSS: 10 << 20, ClientCPUPerReq: -1},
		{Scenario: "tools/list", Concurrency: 10, Elapsed: time.Second, Requests: 300,
			Latency: Summary{P50: ms(1), P95: ms(3), P99: ms(5)}, CPUPerRequest: 0.003, UpstreamPerRequest: 0, UpstreamSecPerReq: 0, PeakRSS: 12 << 20, ClientCPUPerReq: -1},
		{Scenario: "tools/list", Concurrency: 10, Elapsed: 2 * time.Second, Requests: 400,
			Latency: Summary{P50: ms(3), P95: ms(5), P99: ms(9)}, CPUPerRequest: 0.002, UpstreamPerRequest: 0, UpstreamSecPerReq: 0, PeakRSS: 11 << 20, ClientCPUPerReq: -1},
	}
	got := MergeRepeats(rs)
	want := Merged{Scenario: "tools/list", Concurrency: 10, Repeats: 3, Requests: 800, Errors: 1, FirstError: "HTTP 500",
		RPS: 200, RPSMin: 100, RPSMax: 300, P50ms: 2, P95ms: 4, P99ms: 8, CPUms: 2, UpstreamPerCall: 0, UpstreamMs: 0,
		ClientCPUms: -1, PeakRSS: 12 << 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MergeRepeats (-want +got):\n%s", diff)
	}
}

func TestWriteLoadTable(t *testing.T) {
	rows := []Merged{
		{Scenario: "initialize", Concurrency: 1, Repeats: 1, Requests: 5000, RPS: 1000, RPSMin: 1000, RPSMax: 1000,
			P50ms: 0.9, P95ms: 1.5, P99ms: 2.25, CPUms: 0.2, UpstreamPerCall: 0, UpstreamMs: 0, ClientCPUms: 0.1, PeakRSS: 20 << 20},
		{Scenario: "get_submission", Concurrency: 50, Repeats: 3, Requests: 900, Errors: 2, FirstError: "HTTP 503:\n busy",
			RPS: 100, RPSMin: 90, RPSMax: 110, P50ms: 400, P95ms: 600, P99ms: 700, CPUms: -1, UpstreamPerCall: 4, UpstreamMs: 12.5, ClientCPUms: -1, PeakRSS: -1},
	}
	var b strings.Builder
	WriteLoadTable(&b, rows)
	want := `| Request | Conc. | Requests | Req/s (min–max) | p50 ms | p95 ms | p99 ms | Errors | Gateway CPU ms/req | Upstream req/call | Upstream ms/call | Client CPU ms/req | Peak RSS MiB |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
| initialize | 1 | 5000 | 1000 | 0.90 | 1.50 | 2.25 | 0 | 0.200 | 0.00 | 0.00 | 0.100 | 20.0 |
| get_submission | 50 | 900 | 100 (90–110) | 400.00 | 600.00 | 700.00 | 2 | n/a | 4.00 | 12.50 | n/a | n/a |

- get_submission at concurrency 50: 2 errors; first: HTTP 503: busy
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WriteLoadTable (-want +got):\n%s", diff)
	}
}

func TestWriteStreamTable(t *testing.T) {
	r := StreamResult{Requested: 1000, Opened: 1000, OpenTime: 1500 * time.Millisecond, SettleTime: 2 * time.Second,
		Baseline: Snapshot{Goroutines: 20, RSS: 20 << 20, GoInUse: 8 << 20, StreamsOpen: 0, OutgoingConns: 2},
		Open:     Snapshot{Goroutines: 2020, RSS: 40 << 20, GoInUse: 30 << 20, StreamsOpen: 1000, OutgoingConns: 50},
		After:    Snapshot{Goroutines: 21, RSS: 30 << 20, GoInUse: -1, StreamsOpen: 0, OutgoingConns: -1}, Nudges: 32,
		GoroutineLimit: 30, RSSLimit: 36 << 20}
	var b strings.Builder
	WriteStreamTable(&b, r)
	want := `| Phase | Goroutines | RSS MiB | Go heap+stack in use MiB | SSE streams open | Upstream conns |
|---|--:|--:|--:|--:|--:|
| baseline | 20 | 20.0 | 8.0 | 0 | 2 |
| 1000 open | 2020 | 40.0 | 30.0 | 1000 | 50 |
| after close (+2.0 s, 32 pings) | 21 | 30.0 | n/a | 0 | n/a |

Opened 1000 of 1000 streams in 1.50 s; per open stream: 2.00 goroutines, 20.5 KiB RSS.
Tolerance after close: goroutines ≤ 30, RSS ≤ 36.0 MiB.
Result: PASS
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WriteStreamTable (-want +got):\n%s", diff)
	}
	r.Problems = []string{"goroutines 99 after close"}
	b.Reset()
	WriteStreamTable(&b, r)
	if !strings.HasSuffix(b.String(), "Result: FAIL\n- goroutines 99 after close\n") {
		t.Errorf("failed run printed %q", b.String())
	}
}

func TestParseEnvFile(t *testing.T) {
	data := "# settings\nGATEWAY_URL=http://127.0.0.1:9000\n\nDEMO_TOKEN=mcp_abc.def-ghi\nJWT_SECRET='{\"kty\":\"EC\",\"d\":\"x\"}'\nQUOTE='it'\\''s'\nEMPTY=''\n"
	got, err := ParseEnvFile([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"GATEWAY_URL": "http://127.0.0.1:9000",
		"DEMO_TOKEN":  "mcp_abc.def-ghi",
		"JWT_SECRET":  `{"kty":"EC","d":"x"}`,
		"QUOTE":       "it's",
		"EMPTY":       "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseEnvFile (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"NOEQUALS\n", "=x\n", "K='open\n"} {
		if _, err := ParseEnvFile([]byte(bad)); err == nil {
			t.Errorf("ParseEnvFile(%q) succeeded", bad)
		}
	}
}

func TestCheckRPC(t *testing.T) {
	tests := []struct {
		body string
		want error
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, nil},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"null"}]}}`, nil},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Access denied"}}`, errors.New("JSON-RPC error -32000: Access denied")},
		{`{"jsonrpc":"2.0","id":1}`, errors.New("JSON-RPC response without result")},
		{`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}`, errors.New("tool result with isError")},
	}
	for _, tt := range tests {
		got := CheckRPC([]byte(tt.body))
		if (got == nil) != (tt.want == nil) || (got != nil && got.Error() != tt.want.Error()) {
			t.Errorf("CheckRPC(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
	if err := CheckRPC([]byte("not json")); err == nil {
		t.Error("CheckRPC accepted invalid JSON")
	}
}

func TestParseInts(t *testing.T) {
	got, err := parseInts("1, 10,50")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 10, 50}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "0", "a", "1,,2"} {
		if _, err := parseInts(bad); err == nil {
			t.Errorf("parseInts(%q) succeeded", bad)
		}
	}
}
