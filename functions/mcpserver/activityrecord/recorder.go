package activityrecord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
)

// Defaults of Options.
const (
	DefaultQueueSize  = 20000
	DefaultBatchSize  = 500
	DefaultFlushEvery = 250 * time.Millisecond
	DefaultRetention  = 90 * 24 * time.Hour
)

// Row is one recorded call, as mcp_activity_record reads it.
type Row struct {
	CallID     string   `json:"call_id"`
	At         string   `json:"at"`
	UserID     string   `json:"user_id"`
	TokenID    string   `json:"token_id,omitempty"`
	ClientID   string   `json:"client_id,omitempty"`
	ClassID    *int64   `json:"class_id"`
	Tool       string   `json:"tool"`
	Outcome    string   `json:"outcome"`
	DurationMS int64    `json:"duration_ms"`
	Students   []string `json:"students"`
}

// Store writes batches and purges old rows.
type Store interface {
	// Insert records rows (at most 1000) in one transaction and returns
	// how many were new; a row whose call id is already recorded is
	// skipped. now bounds the rows' times.
	Insert(ctx context.Context, rows []Row, now time.Time) (int, error)
	// Purge deletes up to limit rows recorded before before.
	Purge(ctx context.Context, before time.Time, limit int) (int, error)
}

// Options configures a Recorder.
type Options struct {
	// Store is where batches go. Required.
	Store Store
	// QueueSize bounds the rows waiting to be written. Default
	// DefaultQueueSize.
	QueueSize int
	// BatchSize bounds a batch (at most 1000). Default DefaultBatchSize.
	BatchSize int
	// FlushEvery is how long the worker gathers a batch after its first
	// row. Default DefaultFlushEvery.
	FlushEvery time.Duration
	// Retention is how long rows are kept (RunPurge). Default
	// DefaultRetention.
	Retention time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// StudentTools, when set, are the tools whose answers can name a
	// student (main passes those whose output schema has a
	// student_profile_id): only their answers are read for students, so a
	// large answer without any (a file's contents) costs nothing. Nil reads
	// every answer.
	StudentTools map[string]bool
	// Logger receives drops and failed writes. Default: discard.
	Logger *slog.Logger
	// Metrics, when set, registers the recorder's series.
	Metrics prometheus.Registerer
}

// Recorder implements toolcall.Hook. It is safe for concurrent use.
type Recorder struct {
	opts    Options
	queue   chan Row
	mu      sync.RWMutex // held for reading while a row is offered; Close takes it to stop offers
	closed  bool
	stop    chan struct{}
	done    chan struct{}
	drops   dropLog
	refusal refusalThrottle
	m       recorderMetrics
}

var _ toolcall.Hook = (*Recorder)(nil)

// New validates opts and starts the worker; Close ends it.
func New(opts Options) (*Recorder, error) {
	if opts.Store == nil {
		return nil, errors.New("activityrecord: Options.Store is required")
	}
	if opts.BatchSize > 1000 || opts.QueueSize < 0 || opts.BatchSize < 0 {
		return nil, errors.New("activityrecord: BatchSize must be at most 1000 and sizes not negative")
	}
	setDefaults(&opts)
	r := &Recorder{opts: opts, queue: make(chan Row, opts.QueueSize), stop: make(chan struct{}), done: make(chan struct{})}
	r.refusal.init()
	r.m = newRecorderMetrics(func() float64 { return float64(len(r.queue)) })
	if opts.Metrics != nil {
		if err := r.m.register(opts.Metrics); err != nil {
			return nil, fmt.Errorf("activityrecord: registering metrics: %w", err)
		}
	}
	go r.work()
	return r, nil
}

func setDefaults(o *Options) {
	if o.QueueSize == 0 {
		o.QueueSize = DefaultQueueSize
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = DefaultFlushEvery
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Admit implements toolcall.Hook: the record refuses nothing.
func (r *Recorder) Admit(*mcpauth.Principal) *toolcall.Refusal { return nil }

// Done implements toolcall.Hook: the call becomes a row offered to the
// queue without waiting. Of a connection's refused calls (outcome
// rate_limited) one row per refusalEvery is kept, so a runaway loop does
// not flood the record the limit protects.
func (r *Recorder) Done(e *toolcall.Event) {
	if e.Outcome == outcomeRateLimited && !r.refusal.record(e.Principal, e.At) {
		r.m.rows.WithLabelValues("refusal_folded").Inc()
		return
	}
	row := rowOf(e, r.opts.StudentTools == nil || r.opts.StudentTools[e.Tool])
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		r.m.rows.WithLabelValues("dropped_closed").Inc()
		r.drops.note(r.opts.Logger, "closed")
		return
	}
	select {
	case r.queue <- row:
	default:
		r.m.rows.WithLabelValues("dropped_queue_full").Inc()
		r.drops.note(r.opts.Logger, "queue_full")
	}
}

// outcomeRateLimited is mcpserver.OutcomeRateLimited (the record does not
// import the transport).
const outcomeRateLimited = "rate_limited"

// maxToolName cuts a client-chosen (unknown) tool name, as the audit line
// does.
const maxToolName = 64

// rowOf is the row of e: a fresh call id, the time in milliseconds, and
// the students of the answer when readStudents.
func rowOf(e *toolcall.Event, readStudents bool) Row {
	tool := e.Tool
	if len(tool) > maxToolName {
		tool = strings.ToValidUTF8(tool[:maxToolName], "") + "…"
	}
	row := Row{CallID: uuid.NewString(), At: e.At.UTC().Format("2006-01-02T15:04:05.000Z"),
		UserID: e.Principal.UserID, TokenID: e.Principal.TokenID, ClientID: e.Principal.ClientID,
		Tool: tool, Outcome: e.Outcome, DurationMS: e.Duration.Milliseconds()}
	if readStudents {
		row.Students = Students(e.Result)
	}
	if row.Students == nil {
		row.Students = []string{}
	}
	if id, err := strconv.ParseInt(e.ClassID, 10, 64); err == nil {
		row.ClassID = &id
	}
	return row
}

// Close stops taking rows and waits until the worker has written what was
// queued, or ctx ends (what is left is then counted as dropped).
func (r *Recorder) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
