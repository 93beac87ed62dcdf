package errorreport

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getsentry/sentry-go"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

type captureTransport struct {
	mu     sync.Mutex
	events []*sentry.Event
}

func (c *captureTransport) Configure(sentry.ClientOptions) {}
func (c *captureTransport) SendEvent(e *sentry.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e)
}
func (c *captureTransport) Flush(time.Duration) bool              { return true }
func (c *captureTransport) FlushWithContext(context.Context) bool { return true }
func (c *captureTransport) Close()                                {}

func TestReportsOnlyServerFaults(t *testing.T) {
	tr := &captureTransport{}
	r, err := New(Options{DSN: "https://public@sentry.example/1", Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r.Report(ctx, apierror.Unauthorized(apierror.ReasonInvalid, "Invalid or expired API token"), nil)
	r.Report(ctx, apierror.New(http.StatusForbidden, apierror.ReasonForbidden, "not staff"), nil)
	r.Report(ctx, apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, "JWT_SECRET must be set"), map[string]string{"component": "auth"})
	r.Report(ctx, errors.New("upstream said mcp_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"), nil)
	r.Flush(time.Second)
	if len(tr.events) != 2 {
		t.Fatalf("sent %d events, want 2 (server faults only)", len(tr.events))
	}
	if tr.events[0].Tags["component"] != "auth" {
		t.Errorf("tags = %v", tr.events[0].Tags)
	}
	for _, e := range tr.events {
		for _, ex := range e.Exception {
			if strings.Contains(ex.Value, "eyJ") {
				t.Errorf("token leaked into event: %q", ex.Value)
			}
		}
	}
}

func TestScrubHeaders(t *testing.T) {
	ev := &sentry.Event{Request: &sentry.Request{Headers: map[string]string{"Authorization": "Bearer mcp_x", "Accept": "*/*"}}}
	ev = scrubEvent(ev, nil)
	if ev.Request.Headers["Authorization"] != "[REDACTED]" || ev.Request.Headers["Accept"] != "*/*" {
		t.Errorf("headers = %v", ev.Request.Headers)
	}
}

func TestDisabledWithoutDSN(t *testing.T) {
	r, err := New(Options{})
	if err != nil || r != nil {
		t.Fatalf("New without DSN = %v, %v", r, err)
	}
	r.Report(context.Background(), errors.New("x"), nil) // nil-safe
}
