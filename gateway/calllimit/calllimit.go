// Package calllimit bounds the tool calls of one connection (an mcp_ token
// or OAuth grant, or a Supabase session's client for its user) on one
// replica: GATEWAY_TOOL_CALLS_PER_MINUTE calls a minute, any of them
// together (docs/activity.md). A runaway assistant loop is refused with a
// message that says when to try again, while the same person's other
// connections keep their own allowance: nobody can spend another
// connection's calls, because the key is the authenticated connection.
//
// The rule is GCRA (a token bucket kept as one time per connection): a
// connection may make PerMinute calls at once and then one every
// minute/PerMinute. Connections are kept in an LRU of bounded size; one
// pushed out (idle the longest) starts again with a full allowance.
package calllimit

import (
	"errors"
	"fmt"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
)

// DefaultMaxConnections bounds the connections one replica tracks.
const DefaultMaxConnections = 100000

// Options configures a Limiter.
type Options struct {
	// PerMinute is the calls one connection may make per minute. Required
	// (positive); a limit of 0 means no Limiter at all.
	PerMinute int
	// MaxConnections bounds the connections tracked. Default
	// DefaultMaxConnections.
	MaxConnections int
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Metrics, when set, registers gateway_mcp_tool_call_limit_total.
	Metrics prometheus.Registerer
}

// Limiter implements toolcall.Hook. It is safe for concurrent use.
type Limiter struct {
	perMinute int
	interval  time.Duration // minute / perMinute
	burst     time.Duration // how far ahead a connection may run: (perMinute-1) intervals
	now       func() time.Time

	mu   sync.Mutex
	next *lru.Cache[string, time.Time] // per connection: GCRA's theoretical arrival time

	outcomes *prometheus.CounterVec
}

var _ toolcall.Hook = (*Limiter)(nil)

// New validates opts.
func New(opts Options) (*Limiter, error) {
	if opts.PerMinute <= 0 {
		return nil, errors.New("calllimit: Options.PerMinute must be positive")
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = DefaultMaxConnections
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cache, err := lru.New[string, time.Time](opts.MaxConnections)
	if err != nil {
		return nil, err
	}
	interval := time.Minute / time.Duration(opts.PerMinute)
	l := &Limiter{perMinute: opts.PerMinute, interval: interval, burst: interval * time.Duration(opts.PerMinute-1),
		now: opts.Now, next: cache,
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_mcp_tool_call_limit_total",
			Help: "Tool calls checked against the per-connection limit, by outcome (allowed, refused).",
		}, []string{"outcome"})}
	if opts.Metrics != nil {
		if err := opts.Metrics.Register(l.outcomes); err != nil {
			return nil, fmt.Errorf("calllimit: registering metrics: %w", err)
		}
	}
	return l, nil
}

// Key names p's connection: its token id (an mcp_ token or a gateway OAuth
// grant), else its OAuth client and user (a Supabase access token), else
// its user.
func Key(p *mcpauth.Principal) string {
	switch {
	case p.TokenID != "":
		return "t:" + p.TokenID
	case p.ClientID != "":
		return "c:" + p.UserID + "/" + p.ClientID
	}
	return "u:" + p.UserID
}

// Admit implements toolcall.Hook: nil when p's connection may call now,
// else a refusal saying when it may.
func (l *Limiter) Admit(p *mcpauth.Principal) *toolcall.Refusal {
	wait := l.take(Key(p))
	if wait <= 0 {
		l.outcomes.WithLabelValues("allowed").Inc()
		return nil
	}
	l.outcomes.WithLabelValues("refused").Inc()
	return &toolcall.Refusal{Message: Message(l.perMinute, wait), RetryAfter: wait}
}

// Done implements toolcall.Hook; the limit counts calls when they start.
func (l *Limiter) Done(*toolcall.Event) {}

// take spends one call of key's allowance and returns 0, or returns how
// long until the next call fits, spending nothing.
func (l *Limiter) take(key string) time.Duration {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	tat, ok := l.next.Get(key)
	if !ok || tat.Before(now) {
		tat = now
	}
	if ahead := tat.Sub(now); ahead > l.burst {
		return ahead - l.burst
	}
	l.next.Add(key, tat.Add(l.interval))
	return 0
}

// Message is the refusal's text: the limit, and when to try again in
// whole seconds (rounded up, at least one).
func Message(perMinute int, wait time.Duration) string {
	s := toolcall.Seconds(wait)
	unit := "seconds"
	if s == 1 {
		unit = "second"
	}
	return fmt.Sprintf("Too many tool calls from this connection: at most %d a minute. Nothing was run. Try again in %d %s; if an assistant is repeating a call in a loop, stop it first.", perMinute, s, unit)
}
