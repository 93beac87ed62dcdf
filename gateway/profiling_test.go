package gateway

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// getStatus GETs url, retrying while the listener is not up yet, and
// returns the status and body.
func getStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	var last error
	for range 50 {
		resp, err := http.Get(url)
		if err != nil {
			last = err
			time.Sleep(10 * time.Millisecond)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	t.Fatalf("GET %s: %v", url, last)
	return 0, ""
}

func TestProfilingListener(t *testing.T) {
	// (The CPU profile and trace endpoints take at least a second; they are
	// registered beside these and exercised by scripts/bench.)
	paths := []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/allocs?debug=1", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline", "/debug/pprof/symbol"}
	for _, enabled := range []bool{true, false} {
		t.Run(map[bool]string{true: "enabled", false: "disabled"}[enabled], func(t *testing.T) {
			mln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := mln.Addr().String()
			mln.Close()
			s, _ := newTestServer(t, Options{MetricsAddr: addr, Profiling: enabled,
				MetricsHandler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "up 1\n") })})
			ctx, cancel := context.WithCancel(context.Background())
			base, done := serve(t, s, ctx)
			defer func() { cancel(); <-done }()

			for _, p := range paths {
				status, body := getStatus(t, "http://"+addr+p)
				switch {
				case enabled && status != http.StatusOK:
					t.Errorf("metrics listener %s: status %d, want 200", p, status)
				case enabled && p == "/debug/pprof/heap?debug=1" && !strings.Contains(body, "heap profile"):
					t.Errorf("metrics listener %s: body %.80q is not a heap profile", p, body)
				case !enabled && status != http.StatusNotFound:
					t.Errorf("metrics listener %s with profiling off: status %d, want 404", p, status)
				}
				// Never on the public listener, whatever the setting.
				if status, _ := getStatus(t, base+p); status != http.StatusNotFound {
					t.Errorf("public listener %s: status %d, want 404", p, status)
				}
				if status, _ := getStatus(t, base+"/functions/v1"+p); status != http.StatusNotFound {
					t.Errorf("public listener /functions/v1%s: status %d, want 404", p, status)
				}
			}
		})
	}
}
