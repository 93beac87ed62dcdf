package gateway

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"
)

// TestRefusalLogAdmits pins which refusals get a line and the count of
// those left out that each line carries: five per window, the window
// starting at the first refusal after the previous one ended (or after
// the clock went back).
func TestRefusalLogAdmits(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	type step struct {
		at        time.Time
		ok        bool
		notLogged int64
	}
	steps := []step{
		{ms(0), true, 0}, {ms(1), true, 0}, {ms(2), true, 0}, {ms(3), true, 0}, {ms(4), true, 0},
		{ms(5), false, 0}, {ms(500), false, 0}, {ms(999), false, 0}, // three left out
		{ms(1000), true, 3}, // a new window; its first line counts them
		{ms(1001), true, 0}, {ms(1002), true, 0}, {ms(1003), true, 0}, {ms(1004), true, 0},
		{ms(1005), false, 0},
		{ms(5000), true, 1}, // a quiet spell: the window starts at this refusal
		{ms(5999), true, 0}, {ms(5999), true, 0}, {ms(5999), true, 0}, {ms(5999), true, 0},
		{ms(5999), false, 0}, {ms(5999), false, 0},
		{ms(4000), true, 2}, // the clock went back: a new window
	}
	l := newRefusalLog()
	for i, s := range steps {
		ok, n := l.admit(s.at)
		if ok != s.ok || n != s.notLogged {
			t.Errorf("step %d (+%v): admit = %v, %d; want %v, %d", i, s.at.Sub(t0), ok, n, s.ok, s.notLogged)
		}
	}
}

// TestRefusalsLoggedBounded: through the server, a burst of refused
// requests is answered exactly as each would be alone, every one is
// observed (metrics), and the request log keeps at most five lines per
// second of them; another status is logged every time.
func TestRefusalsLoggedBounded(t *testing.T) {
	refuse := Function{Slug: "f", Register: func(g *echo.Group) {
		g.Any("/*", func(c echo.Context) error {
			if c.Request().URL.Path == "/functions/v1/f/ok" {
				return c.String(http.StatusOK, "ok")
			}
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="f"`)
			return c.JSON(http.StatusUnauthorized, map[string]string{"error": "no token"})
		})
	}}
	observed := 0
	s, logs := newTestServer(t, Options{Functions: []Function{refuse}, ObserveRequest: func(string, string, int, time.Duration, bool) { observed++ }})
	const burst = 40
	want := response{Status: 401, ContentType: "application/json", Body: "{\"error\":\"no token\"}\n", Header: map[string]string{"Www-Authenticate": `Bearer realm="f"`}}
	start := time.Now()
	for i := range burst {
		got := do(t, s.Handler(), "POST", "/functions/v1/f/x", nil, nil, []string{"Www-Authenticate"})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("refusal %d (-want +got):\n%s", i, diff)
		}
	}
	elapsed := time.Since(start)
	for range 3 {
		do(t, s.Handler(), "GET", "/functions/v1/f/ok", nil, nil, nil)
	}
	if observed != burst+3 {
		t.Errorf("observed %d requests, want %d", observed, burst+3)
	}
	var refusals, oks int
	var leftOut float64
	for _, l := range logs.lines(t) {
		switch l["status"] {
		case float64(401):
			refusals++
			n, _ := l["refusals_not_logged"].(float64)
			leftOut += n
		case float64(200):
			oks++
		}
	}
	// A loaded machine may stretch the burst over more than one window.
	windows := 1 + int(elapsed/refusalWindow)
	if refusals < 1 || refusals > refusalLinesPerWindow*windows {
		t.Errorf("%d refusal lines for %d refusals over %v; want 1 to %d", refusals, burst, elapsed, refusalLinesPerWindow*windows)
	}
	if refusals+int(leftOut) > burst {
		t.Errorf("%d lines and %v counted as left out, more than the %d refusals", refusals, leftOut, burst)
	}
	if oks != 3 {
		t.Errorf("%d lines for 3 answered requests, want 3", oks)
	}
}
