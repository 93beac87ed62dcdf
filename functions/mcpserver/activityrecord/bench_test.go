package activityrecord

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
)

// encodingStore encodes each batch as PostgRESTStore sends it, so the
// benchmark counts the worker's whole share of a row.
type encodingStore struct{ rows atomic.Int64 }

func (s *encodingStore) Insert(_ context.Context, rows []Row, now time.Time) (int, error) {
	if _, err := json.Marshal(map[string]any{"p_rows": rows, "p_now": ts(now)}); err != nil {
		return 0, err
	}
	s.rows.Add(int64(len(rows)))
	return len(rows), nil
}

func (s *encodingStore) Purge(context.Context, time.Time, int) (int, error) { return 0, nil }

// BenchmarkRecordedCall is the record's CPU per call: Done on the call's
// goroutine (the row, the students read from a 20-item answer) and the
// worker's batching and encoding, measured until every row is written.
func BenchmarkRecordedCall(b *testing.B) {
	var answer strings.Builder
	answer.WriteString("[\n")
	for i := range 20 {
		answer.WriteString(`  {"id": ` + string(rune('0'+i%10)) + `, "student_profile_id": "` + student[:35] + string(rune('0'+i%10)) + `", "student_name": "A Student", "request": "` + strings.Repeat("x", 200) + `"},` + "\n")
	}
	answer.WriteString("  {}\n]")
	for _, tt := range []struct {
		name     string
		students map[string]bool
	}{{"answer_read_for_students", nil}, {"answer_not_read", map[string]bool{}}} {
		b.Run(tt.name, func(b *testing.B) {
			benchRecordedCall(b, event("search_help_requests", "1", "ok", answer.String()), tt.students)
		})
	}
}

func benchRecordedCall(b *testing.B, e *toolcall.Event, students map[string]bool) {
	st := &encodingStore{}
	r, err := New(Options{Store: st, QueueSize: 1 << 20, StudentTools: students})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		r.Done(e)
	}
	if err := r.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/call")
	if got := st.rows.Load(); got != int64(b.N) {
		b.Fatalf("%d rows written of %d", got, b.N)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
