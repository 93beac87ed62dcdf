package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// activityUpstream is benchUpstream that also takes the activity
// record's batches, counting their rows.
func activityUpstream(b *testing.B, rows *atomic.Int64) *httptest.Server {
	b.Helper()
	canned := benchUpstream(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/rest/v1/rpc/mcp_activity_record" {
			canned.Config.Handler.ServeHTTP(w, r)
			return
		}
		var args struct {
			Rows []json.RawMessage `json:"p_rows"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &args) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rows.Add(int64(len(args.Rows)))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strconv.Itoa(len(args.Rows))))
	}))
	b.Cleanup(srv.Close)
	return srv
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkActivityRecordCost is the load cost of the activity record
// (docs/activity.md): get_assignment through the whole gateway from 50
// connections (50 tokens, 50 goroutines), with the record off and on. It
// reports the process's CPU time per call (cpu-ns/call: the gateway and
// the in-process fake upstream, the same in both) and, with the record
// on, checks that every call became a written row once the gateway closes.
//
//	go test -run '^$' -bench ActivityRecordCost -count 5 ./gateway/cmd/gateway
func BenchmarkActivityRecordCost(b *testing.B) {
	for _, record := range []string{"off", "on"} {
		b.Run("record_"+record, func(b *testing.B) {
			var rows atomic.Int64
			up := activityUpstream(b, &rows)
			extra := map[string]string{"GATEWAY_ACTIVITY_RECORD": record, "GATEWAY_OAUTH_SECRET": "bench-oauth-secret-of-at-least-32-bytes", "GATEWAY_OAUTH_SERVER": "off"}
			h, _, closeGateway := benchGatewayWith(b, up, extra)
			tokens := make([]string, 50)
			for i := range tokens {
				tok, err := mcpauth.MintAPIToken(e2eSecret, benchUser, []string{"mcp:read"}, uuid.NewString(), 30, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				tokens[i] = "Bearer " + tok
			}
			var next, calls atomic.Int64
			procs := runtime.GOMAXPROCS(0)
			b.SetParallelism((50 + procs - 1) / procs)
			start := cpuTime(b)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				auth := tokens[int(next.Add(1)-1)%len(tokens)]
				for pb.Next() {
					serveOne(b, h, auth)
					calls.Add(1)
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(cpuTime(b)-start)/float64(calls.Load()), "cpu-ns/call")
			closeGateway()
			if record == "on" && rows.Load() != calls.Load() {
				b.Fatalf("%d calls, %d rows written", calls.Load(), rows.Load())
			}
		})
	}
}

// serveOne serves one get_assignment call as auth and checks its answer.
func serveOne(b *testing.B, h http.Handler, auth string) {
	body := benchRequests[3].body
	r := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", strings.NewReader(body))
	r.RemoteAddr = "127.0.0.1:40000"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	r.Header.Set("Authorization", auth)
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, r)
	if w.status != http.StatusOK || strings.Contains(w.head.String(), `"error"`) {
		b.Errorf("status %d, body %q", w.status, w.head.String())
	}
}
