// Package errorreport sends server faults to Sentry when SENTRY_DSN is set,
// following the original's rule: only 5xx and configuration errors are
// reported, never a caller's bad token. Events are scrubbed of tokens and
// the Authorization header before they leave the process.
package errorreport

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/getsentry/sentry-go"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

// Reporter reports server faults. A nil *Reporter reports nothing.
type Reporter struct {
	hub *sentry.Hub
}

// Options configures the reporter.
type Options struct {
	DSN         string
	Environment string
	Release     string
	// Transport overrides Sentry's HTTP transport (tests).
	Transport sentry.Transport
}

// New returns nil (reporting off) when DSN is empty.
func New(opts Options) (*Reporter, error) {
	if opts.DSN == "" {
		return nil, nil
	}
	client, err := sentry.NewClient(sentry.ClientOptions{
		Dsn:              opts.DSN,
		Environment:      opts.Environment,
		Release:          opts.Release,
		Transport:        opts.Transport,
		AttachStacktrace: true,
		BeforeSend:       scrubEvent,
	})
	if err != nil {
		return nil, err
	}
	return &Reporter{hub: sentry.NewHub(client, sentry.NewScope())}, nil
}

// Report sends err when it is a server fault (status ≥ 500). Tags must be
// low-cardinality facts such as component and method.
func (r *Reporter) Report(ctx context.Context, err error, tags map[string]string) {
	if r == nil || err == nil {
		return
	}
	var e *apierror.Error
	if errors.As(err, &e) && !e.IsServerFault() {
		return
	}
	hub := r.hub.Clone()
	hub.WithScope(func(s *sentry.Scope) {
		for k, v := range tags {
			s.SetTag(k, v)
		}
		hub.CaptureException(err)
	})
}

// Warn sends a warning message (e.g. EDGE_FUNCTIONS_URL unset).
func (r *Reporter) Warn(msg string) {
	if r == nil {
		return
	}
	r.hub.CaptureMessage(msg)
}

// Flush waits up to d for queued events.
func (r *Reporter) Flush(d time.Duration) {
	if r != nil {
		r.hub.Flush(d)
	}
}

// tokenPattern matches bearer credentials that could appear in messages:
// mcp_ tokens and compact JWTs.
var tokenPattern = regexp.MustCompile(`(?:mcp_)?eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)

func scrub(s string) string { return tokenPattern.ReplaceAllString(s, "[REDACTED]") }

func scrubEvent(ev *sentry.Event, _ *sentry.EventHint) *sentry.Event {
	if ev.Request != nil {
		for k := range ev.Request.Headers {
			switch strings.ToLower(k) {
			case "authorization", "apikey", "cookie", "x-api-key":
				ev.Request.Headers[k] = "[REDACTED]"
			}
		}
		ev.Request.Cookies = ""
		ev.Request.QueryString = scrub(ev.Request.QueryString)
		ev.Request.Data = ""
	}
	ev.Message = scrub(ev.Message)
	for i := range ev.Exception {
		ev.Exception[i].Value = scrub(ev.Exception[i].Value)
	}
	for i := range ev.Breadcrumbs {
		ev.Breadcrumbs[i].Message = scrub(ev.Breadcrumbs[i].Message)
	}
	return ev
}
