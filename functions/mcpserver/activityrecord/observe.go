package activityrecord

import (
	"log/slog"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pawtograder/mcp-gateway/gateway/calllimit"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// recorderMetrics are the record's series.
type recorderMetrics struct {
	rows    *prometheus.CounterVec
	batches *prometheus.CounterVec
	queue   prometheus.GaugeFunc
}

func newRecorderMetrics(queued func() float64) recorderMetrics {
	return recorderMetrics{
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_mcp_activity_rows_total",
			Help: "Activity record rows by result: written, dropped_queue_full, dropped_write_failed, dropped_closed, refusal_folded (a connection's refused calls beyond one row per minute).",
		}, []string{"result"}),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_mcp_activity_batches_total",
			Help: "Activity record batch writes by result: written, retried, failed.",
		}, []string{"result"}),
		queue: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "gateway_mcp_activity_queue_rows",
			Help: "Activity record rows waiting to be written.",
		}, queued),
	}
}

func (m recorderMetrics) register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.rows, m.batches, m.queue} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// dropLog logs dropped rows at most once per dropLogEvery, with how many
// were dropped since the last line, so an overload does not also flood
// the log.
type dropLog struct {
	mu      sync.Mutex
	last    time.Time
	pending int
}

const dropLogEvery = 10 * time.Second

func (d *dropLog) note(log *slog.Logger, reason string) {
	d.mu.Lock()
	d.pending++
	now := time.Now()
	if now.Sub(d.last) < dropLogEvery {
		d.mu.Unlock()
		return
	}
	n := d.pending
	d.pending, d.last = 0, now
	d.mu.Unlock()
	log.Warn("activityrecord: activity record rows dropped", "reason", reason, "rows", n)
}

// refusalEvery is how often one connection's refused calls are recorded.
const refusalEvery = time.Minute

// refusalThrottle remembers when each connection's last refused call was
// recorded (bounded, like the limiter's table).
type refusalThrottle struct {
	mu   sync.Mutex
	last *lru.Cache[string, time.Time]
}

func (t *refusalThrottle) init() {
	t.last, _ = lru.New[string, time.Time](10000)
}

// record reports whether p's refused call at at is recorded.
func (t *refusalThrottle) record(p *mcpauth.Principal, at time.Time) bool {
	key := calllimit.Key(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if prev, ok := t.last.Get(key); ok && at.Sub(prev) < refusalEvery {
		return false
	}
	t.last.Add(key, at)
	return true
}
