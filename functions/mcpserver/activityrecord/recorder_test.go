package activityrecord

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
)

// fakeStore keeps rows by call id; fail makes the next n inserts fail
// (after storing, when lost is set: the answer was lost, not the write);
// gate, when set, holds every insert until it is closed.
type fakeStore struct {
	mu      sync.Mutex
	rows    map[string]Row
	order   []string
	inserts int
	fail    int
	lost    bool
	gate    chan struct{}
}

func newFakeStore() *fakeStore { return &fakeStore{rows: map[string]Row{}} }

func (f *fakeStore) Insert(_ context.Context, rows []Row, _ time.Time) (int, error) {
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inserts++
	if f.fail > 0 && !f.lost {
		f.fail--
		return 0, errors.New("upstream down")
	}
	added := 0
	for _, r := range rows {
		if _, ok := f.rows[r.CallID]; !ok {
			f.rows[r.CallID] = r
			f.order = append(f.order, r.CallID)
			added++
		}
	}
	if f.fail > 0 {
		f.fail--
		return 0, errors.New("answer lost")
	}
	return added, nil
}

func (f *fakeStore) Purge(context.Context, time.Time, int) (int, error) { return 0, nil }

func (f *fakeStore) count() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.rows) }

func (f *fakeStore) ordered() []Row {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Row, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, f.rows[id])
	}
	return out
}

var (
	ta      = &mcpauth.Principal{UserID: "10000000-0000-4000-8000-000000000002", TokenID: "tok-1", Kind: mcpauth.KindAPIToken}
	t0      = time.Date(2026, 12, 7, 16, 0, 0, 0, time.UTC)
	student = "20000001-0000-4000-8000-000000000003"
)

func event(tool, class, outcome, result string) *toolcall.Event {
	return &toolcall.Event{At: t0, Principal: ta, Tool: tool, ClassID: class, Outcome: outcome,
		Duration: 12 * time.Millisecond, Result: []byte(result)}
}

func init() { retryWait = func(int) time.Duration { return time.Millisecond } }

// TestRecordedRows: what a row says for each kind of call.
func TestRecordedRows(t *testing.T) {
	st := newFakeStore()
	r, err := New(Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	r.Done(event("get_submission", "1", "ok", `{"student_profile_id": "`+student+`"}`))
	r.Done(event("search_help_requests", "abc", "invalid_params", ""))
	long := "x" + string(make([]byte, 100))
	r.Done(event(long, "", "unknown_tool", ""))
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	one := int64(1)
	base := Row{At: "2026-12-07T16:00:00.000Z", UserID: ta.UserID, TokenID: "tok-1", DurationMS: 12, Students: []string{}}
	want := []Row{base, base, base}
	want[0].ClassID, want[0].Tool, want[0].Outcome, want[0].Students = &one, "get_submission", "ok", []string{student}
	want[1].Tool, want[1].Outcome = "search_help_requests", "invalid_params"
	want[2].Tool, want[2].Outcome = long[:64]+"…", "unknown_tool"
	if diff := cmp.Diff(want, st.ordered(), cmpopts.IgnoreFields(Row{}, "CallID")); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestFullQueueDropsWithoutWaiting: while the store hangs, Done still
// returns at once; what the queue cannot hold is dropped and counted, and
// everything queued is written once the store answers.
func TestFullQueueDropsWithoutWaiting(t *testing.T) {
	st := newFakeStore()
	st.gate = make(chan struct{})
	r, err := New(Options{Store: st, QueueSize: 10, BatchSize: 5, FlushEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// The worker holds one batch of at most 5 at the gate; the queue 10.
	for range 100 {
		r.Done(event("get_submission", "1", "ok", ""))
	}
	dropped := testutil.ToFloat64(r.m.rows.WithLabelValues("dropped_queue_full"))
	if dropped < 85 || dropped > 90 {
		t.Fatalf("dropped %v of 100, want 85 to 90", dropped)
	}
	close(st.gate)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := float64(st.count()); got != 100-dropped {
		t.Fatalf("wrote %v rows, want %v", got, 100-dropped)
	}
	if got := testutil.ToFloat64(r.m.rows.WithLabelValues("written")); got != 100-dropped {
		t.Errorf("written counter %v, want %v", got, 100-dropped)
	}
}

// TestFailedWritesRetried: a batch is retried after failures, and one
// whose answer was lost is not recorded twice; a batch that keeps failing
// is dropped and counted.
func TestFailedWritesRetried(t *testing.T) {
	tests := []struct {
		name               string
		fail               int
		lost               bool
		written, failedRow float64
	}{
		{"two failures", 2, false, 3, 0},
		{"lost answer", 1, true, 3, 0},
		{"every attempt fails", writeAttempts, false, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newFakeStore()
			st.fail, st.lost = tt.fail, tt.lost
			r, err := New(Options{Store: st, FlushEvery: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				r.Done(event("get_submission", "1", "ok", ""))
			}
			if err := r.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := float64(st.count()); got != tt.written {
				t.Errorf("stored %v rows, want %v", got, tt.written)
			}
			if got := testutil.ToFloat64(r.m.rows.WithLabelValues("dropped_write_failed")); got != tt.failedRow {
				t.Errorf("dropped_write_failed %v, want %v", got, tt.failedRow)
			}
		})
	}
}

// TestRefusalsFolded: a connection's refused calls are recorded once a
// minute; another connection's are its own.
func TestRefusalsFolded(t *testing.T) {
	st := newFakeStore()
	r, err := New(Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		e := event("get_submission", "1", "rate_limited", "")
		e.At = t0.Add(time.Duration(i) * 100 * time.Millisecond)
		r.Done(e)
	}
	e := event("get_submission", "1", "rate_limited", "")
	e.At = t0.Add(time.Minute)
	r.Done(e)
	e = event("get_submission", "1", "rate_limited", "")
	e.Principal = &mcpauth.Principal{UserID: ta.UserID, TokenID: "tok-2"}
	r.Done(e)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := st.count(); got != 3 {
		t.Errorf("recorded %d refused calls, want 3", got)
	}
	if got := testutil.ToFloat64(r.m.rows.WithLabelValues("refusal_folded")); got != 49 {
		t.Errorf("refusal_folded %v, want 49", got)
	}
}

// TestDoneAfterClose: a call finishing after Close is counted, not lost
// silently, and never blocks.
func TestDoneAfterClose(t *testing.T) {
	r, err := New(Options{Store: newFakeStore()})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Done(event("get_submission", "1", "ok", ""))
	if got := testutil.ToFloat64(r.m.rows.WithLabelValues("dropped_closed")); got != 1 {
		t.Errorf("dropped_closed %v, want 1", got)
	}
}

// TestStudentToolsOnly: with StudentTools set, only those tools' answers
// are read for students.
func TestStudentToolsOnly(t *testing.T) {
	st := newFakeStore()
	r, err := New(Options{Store: st, StudentTools: map[string]bool{"get_submission": true}})
	if err != nil {
		t.Fatal(err)
	}
	answer := `{"student_profile_id": "` + student + `"}`
	r.Done(event("get_submission", "1", "ok", answer))
	r.Done(event("get_submission_files", "1", "ok", answer))
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := st.ordered()
	if len(rows) != 2 || len(rows[0].Students) != 1 || len(rows[1].Students) != 0 {
		t.Errorf("rows: %+v", rows)
	}
}
