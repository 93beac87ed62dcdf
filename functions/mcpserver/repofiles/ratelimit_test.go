package repofiles

import (
	"fmt"
	"testing"
	"time"
)

// TestRateLimitMemoryIsBounded: the remembered resets hold at most
// maxRateLimitKeys keys. A full memory first drops the resets that have
// passed, then the one ending soonest, so a flood of distinct keys cannot
// grow it and a new limit is always remembered; a reset is only ever moved
// later, and one already past is not remembered at all.
func TestRateLimitMemoryIsBounded(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	r := newRateLimits(clock.now)
	start := clock.now()
	for i := range maxRateLimitKeys {
		r.remember(fmt.Sprintf("k%d", i), start.Add(time.Duration(i+10)*time.Second))
	}
	r.remember("new", start.Add(time.Hour))
	if n := len(r.until); n != maxRateLimitKeys {
		t.Fatalf("%d keys remembered, want %d", n, maxRateLimitKeys)
	}
	if _, ok := r.blocked("k0"); ok {
		t.Error("the reset ending soonest was kept when the memory was full")
	}
	if _, ok := r.blocked("new"); !ok {
		t.Error("the new limit was not remembered")
	}
	// Past resets go first: after 20 s, k0..k10 (ending at 10..20 s) are over.
	clock.advance(20 * time.Second)
	r.remember("later", start.Add(2*time.Hour))
	if _, ok := r.blocked("k11"); !ok {
		t.Error("a live reset was dropped while past ones were there to drop")
	}
	if n, want := len(r.until), maxRateLimitKeys-9; n != want { // the ten past ones gone, later added
		t.Errorf("%d keys remembered, want %d", n, want)
	}
	// A reset moves only later, and a past one is not remembered.
	r.remember("new", start.Add(time.Minute))
	if u, _ := r.blocked("new"); !u.Equal(start.Add(time.Hour)) {
		t.Errorf("the reset of new moved to %v, want it kept at %v", u, start.Add(time.Hour))
	}
	r.remember("gone", clock.now().Add(-time.Second))
	if _, ok := r.until["gone"]; ok {
		t.Error("a reset already past was remembered")
	}
}
