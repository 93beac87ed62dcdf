package mcpauth

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func apiPrincipal(jti string) *Principal {
	return &Principal{UserID: "u", TokenID: jti, Kind: KindAPIToken, Scopes: []string{ScopeMCPRead}}
}

func patches(f *fakeRest) []recorded {
	var out []recorded
	for _, r := range f.recorded() {
		if r.Method == "PATCH" {
			out = append(out, r)
		}
	}
	return out
}

// TestTouchLastUsed checks the request shape and the coalescing window:
// one write per token per 30 s, other tokens unaffected.
func TestTouchLastUsed(t *testing.T) {
	fake, srv := newFakeRest(t)
	clk := &clock{t: time.Date(2026, 11, 29, 23, 0, 0, 123_456_789, time.UTC)}
	a, err := New(Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	a.TouchLastUsed(apiPrincipal("t1"))
	a.TouchLastUsed(apiPrincipal("t1")) // coalesced
	a.TouchLastUsed(apiPrincipal("t2"))
	clk.Advance(29 * time.Second)
	a.TouchLastUsed(apiPrincipal("t1")) // still inside the window
	clk.Advance(time.Second)
	a.TouchLastUsed(apiPrincipal("t1")) // 30 s later: written again
	a.TouchLastUsed(&Principal{UserID: "u", Kind: KindSupabase})
	a.TouchLastUsed(nil)
	a.Close()
	a.TouchLastUsed(apiPrincipal("t3")) // after Close: ignored

	want := []recorded{
		{Method: "PATCH", Path: "/rest/v1/api_tokens", Query: "token_id=eq.t1", APIKey: testServiceKey, Authorization: "Bearer " + testServiceKey, Prefer: "return=minimal", Body: `{"last_used_at":"2026-11-29T23:00:00.123Z"}`},
		{Method: "PATCH", Path: "/rest/v1/api_tokens", Query: "token_id=eq.t2", APIKey: testServiceKey, Authorization: "Bearer " + testServiceKey, Prefer: "return=minimal", Body: `{"last_used_at":"2026-11-29T23:00:00.123Z"}`},
		{Method: "PATCH", Path: "/rest/v1/api_tokens", Query: "token_id=eq.t1", APIKey: testServiceKey, Authorization: "Bearer " + testServiceKey, Prefer: "return=minimal", Body: `{"last_used_at":"2026-11-29T23:00:30.123Z"}`},
	}
	if diff := cmp.Diff(want, patches(fake)); diff != "" {
		t.Errorf("PATCH requests (-want +got):\n%s", diff)
	}
}

// TestTouchLastUsedNonBlocking: a hung PostgREST neither blocks callers
// nor grows the queue beyond its bound; extra writes are dropped.
//
// PostgREST stays hung until the calls have returned, and a write's own
// timeout is an hour, so a call that waited for a write could only return
// after the generous deadline below; nothing depends on how fast the
// machine is.
func TestTouchLastUsedNonBlocking(t *testing.T) {
	fake, srv := newFakeRest(t)
	release := make(chan struct{})
	fake.hook = func(method, table string) { <-release }
	clk := &clock{t: testNow}
	a, err := New(Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret, Now: clk.Now,
		LastUsedQueue: 2, WriteTimeout: time.Hour, CloseTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		for i := 0; i < 100; i++ {
			a.TouchLastUsed(apiPrincipal(string(rune('a'+i%26)) + itoa(int64(i))))
		}
	}()
	select {
	case <-returned:
	case <-time.After(time.Minute):
		close(release)
		t.Fatal("TouchLastUsed blocked while PostgREST was hung")
	}
	close(release)
	a.Close()
	// At most: one in flight + queue of 2 (+ flush); never 100.
	if n := len(patches(fake)); n > 4 {
		t.Errorf("%d writes, want at most 4", n)
	}
}

// TestTouchLastUsedTrackedBound: the coalescing map never exceeds its bound.
func TestTouchLastUsedTrackedBound(t *testing.T) {
	_, srv := newFakeRest(t)
	clk := &clock{t: testNow}
	a, err := New(Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret, Now: clk.Now, LastUsedTracked: 3, LastUsedQueue: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := 0; i < 10; i++ {
		a.TouchLastUsed(apiPrincipal(itoa(int64(i))))
	}
	a.mu.Lock()
	n := len(a.lastSeen)
	a.mu.Unlock()
	if n != 3 {
		t.Errorf("tracked = %d, want 3", n)
	}
	clk.Advance(31 * time.Second) // all windows over: pruned on the next full insert
	a.TouchLastUsed(apiPrincipal("new"))
	a.mu.Lock()
	n = len(a.lastSeen)
	a.mu.Unlock()
	if n != 1 {
		t.Errorf("tracked after prune = %d, want 1", n)
	}
}

func TestTouchLastUsedNotConfigured(t *testing.T) {
	a, err := New(Options{MCPJWTSecret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	a.TouchLastUsed(apiPrincipal("t1")) // swallowed, no panic
	a.Close()
	a.Close() // idempotent
}

func TestIsoMillis(t *testing.T) {
	tests := map[time.Time]string{
		time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC):                    "2026-01-02T03:04:05.006Z",
		time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.FixedZone("x", 3600)): "2026-01-02T02:04:05.999Z",
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC):                            "2026-01-02T03:04:05.000Z",
	}
	for in, want := range tests {
		if got := isoMillis(in); got != want {
			t.Errorf("isoMillis(%v) = %q, want %q", in, got, want)
		}
	}
}
