package calllimit

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var (
	loop  = &mcpauth.Principal{UserID: "ta", TokenID: "tok-loop", Kind: mcpauth.KindAPIToken}
	other = &mcpauth.Principal{UserID: "ta", TokenID: "tok-desktop", Kind: mcpauth.KindAPIToken}
)

// TestAdmit: a connection gets PerMinute calls at once, then one per
// interval; the wait it is told is exact; the same person's other
// connection is unaffected.
func TestAdmit(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	reg := prometheus.NewRegistry()
	l, err := New(Options{PerMinute: 3, Now: c.now, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		advance time.Duration
		p       *mcpauth.Principal
		wait    time.Duration // 0: admitted
	}{
		{0, loop, 0}, {0, loop, 0}, {0, loop, 0},
		{0, loop, 20 * time.Second},
		{0, other, 0},
		{5 * time.Second, loop, 15 * time.Second},
		{15 * time.Second, loop, 0},
		{0, loop, 20 * time.Second},
		{time.Hour, loop, 0}, {0, loop, 0}, {0, loop, 0},
		{0, loop, 20 * time.Second},
	}
	for i, s := range steps {
		c.add(s.advance)
		r := l.Admit(s.p)
		switch {
		case s.wait == 0 && r != nil:
			t.Fatalf("step %d: refused (%s), want admitted", i, r.Message)
		case s.wait != 0 && r == nil:
			t.Fatalf("step %d: admitted, want refused for %v", i, s.wait)
		case s.wait != 0 && r.RetryAfter != s.wait:
			t.Fatalf("step %d: retry after %v, want %v", i, r.RetryAfter, s.wait)
		}
	}
	if got := testutil.ToFloat64(l.outcomes.WithLabelValues("allowed")); got != 8 {
		t.Errorf("allowed = %v, want 8", got)
	}
	if got := testutil.ToFloat64(l.outcomes.WithLabelValues("refused")); got != 4 {
		t.Errorf("refused = %v, want 4", got)
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		p    mcpauth.Principal
		want string
	}{
		{mcpauth.Principal{UserID: "u", TokenID: "j", Kind: mcpauth.KindAPIToken}, "t:j"},
		{mcpauth.Principal{UserID: "u", ClientID: "c", Kind: mcpauth.KindSupabase}, "c:u/c"},
		{mcpauth.Principal{UserID: "u", Kind: mcpauth.KindSupabase}, "u:u"},
	}
	for _, tt := range tests {
		if got := Key(&tt.p); got != tt.want {
			t.Errorf("Key(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		wait time.Duration
		want string
	}{
		{20 * time.Second, "Too many tool calls from this connection: at most 120 a minute. Nothing was run. Try again in 20 seconds; if an assistant is repeating a call in a loop, stop it first."},
		{100 * time.Millisecond, "Too many tool calls from this connection: at most 120 a minute. Nothing was run. Try again in 1 second; if an assistant is repeating a call in a loop, stop it first."},
		{1500 * time.Millisecond, "Too many tool calls from this connection: at most 120 a minute. Nothing was run. Try again in 2 seconds; if an assistant is repeating a call in a loop, stop it first."},
	}
	for _, tt := range tests {
		if got := Message(120, tt.wait); got != tt.want {
			t.Errorf("Message(%v) = %q, want %q", tt.wait, got, tt.want)
		}
	}
}

// TestBoundedConnections: past MaxConnections the least recently seen
// connection is forgotten, so the table cannot grow without bound.
func TestBoundedConnections(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l, err := New(Options{PerMinute: 1, MaxConnections: 2, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if r := l.Admit(&mcpauth.Principal{TokenID: id}); r != nil {
			t.Fatal(r)
		}
	}
	if n := l.next.Len(); n != 2 {
		t.Fatalf("tracked %d connections, want 2", n)
	}
	if r := l.Admit(&mcpauth.Principal{TokenID: "c"}); r == nil || !strings.Contains(r.Message, "at most 1 a minute") {
		t.Fatalf("c admitted twice within its minute: %v", r)
	}
}

func TestNewRefusesNoLimit(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("New accepted PerMinute 0")
	}
}
