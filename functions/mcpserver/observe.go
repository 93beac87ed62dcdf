package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
)

// Metrics receives the transport's counters. *metrics.Metrics from
// gateway/metrics satisfies it; the server calls it with a nil-safe no-op
// when Options.Metrics is nil.
type Metrics interface {
	// RPCRequest counts one dispatched JSON-RPC request by method.
	RPCRequest(method string)
	// ToolCall records one tools/call: the tool, its outcome (one of the
	// Outcome constants) and how long it ran.
	ToolCall(tool, outcome string, d time.Duration)
	// StreamOpened and StreamClosed track the open GET event streams.
	StreamOpened()
	StreamClosed()
}

// Outcomes of a tools/call, as passed to Metrics.ToolCall and written in the
// audit line.
const (
	OutcomeOK            = "ok"
	OutcomeError         = "error"
	OutcomeInvalidParams = "invalid_params"
	OutcomeForbidden     = "forbidden"
	OutcomeUnknownTool   = "unknown_tool"
	// OutcomeReadFailed: a negotiated-only tool could not read what its
	// answer needs, and answered a tool error saying so.
	OutcomeReadFailed = "read_failed"
)

// noMetrics is the Metrics used when none is configured.
type noMetrics struct{}

func (noMetrics) RPCRequest(string)                      {}
func (noMetrics) ToolCall(string, string, time.Duration) {}
func (noMetrics) StreamOpened()                          {}
func (noMetrics) StreamClosed()                          {}

// toolOutcome classifies a tool call's error.
func toolOutcome(err error) string {
	var (
		ip *tools.InvalidParamsError
		ms *tools.MissingScopeError
		ut *tools.UnknownToolError
	)
	switch {
	case err == nil:
		return OutcomeOK
	case errors.As(err, &ip):
		return OutcomeInvalidParams
	case errors.As(err, &ms):
		return OutcomeForbidden
	case errors.As(err, &ut):
		return OutcomeUnknownTool
	}
	var rf *approval.RefusedError
	if errors.As(err, &rf) && !rf.Fault {
		return OutcomeForbidden
	}
	var rd *tools.ReadFailedError
	if errors.As(err, &rd) {
		return OutcomeReadFailed
	}
	return OutcomeError
}

// observeToolCall is the one place every tools/call is observed when it
// ends, whatever its outcome (a panic included): the metrics and the
// audit line. A per-call hook belongs here.
func (s *Server) observeToolCall(cl *caller, name string, args *jsjson.Object, outcome string, d time.Duration, upstream int64) {
	s.metrics.ToolCall(name, outcome, d)
	s.auditToolCall(cl, name, args, outcome, d, upstream)
}

// upstreamCounterKey is the context key of a tool call's upstream counter.
type upstreamCounterKey struct{}

// withUpstreamCounter returns ctx carrying a fresh counter for CountUpstream.
func withUpstreamCounter(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, upstreamCounterKey{}, n), n
}

// CountUpstream counts one upstream (PostgREST) request made on behalf of
// the tool call running in ctx; it does nothing for other contexts. The
// gateway calls it from the PostgREST client's Observe hook so the audit
// line can say how many requests a call made. It is safe for concurrent use
// (tools issue requests in parallel).
func CountUpstream(ctx context.Context) {
	if n, ok := ctx.Value(upstreamCounterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// Audit line attribute limits: a client chooses the tool name, so an
// unknown one is cut before it is logged.
const maxAuditToolName = 64

// auditToolCall writes the audit line of one tools/call (docs/audit.md). It
// never logs argument text or results: only the caller's identity, the
// tool, the class id when the arguments carry a numeric one, the outcome,
// the duration and the number of upstream requests.
func (s *Server) auditToolCall(cl *caller, tool string, args *jsjson.Object, outcome string, d time.Duration, upstream int64) {
	if s.audit == nil {
		return
	}
	p := cl.principal
	if outcome == OutcomeUnknownTool && len(tool) > maxAuditToolName {
		tool = strings.ToValidUTF8(tool[:maxAuditToolName], "") + "…"
	}
	r := auditRecord{requestID: cl.requestID, tokenID: p.TokenID, clientID: p.ClientID, credential: string(p.Kind),
		userID: p.UserID, tool: tool, outcome: outcome, durationMS: d.Milliseconds(), upstream: upstream}
	r.classID, _ = classID(args)
	// The line carries request_id itself, so it is logged without the
	// request's context: a handler that adds request_id from the context
	// (gateway.NewLogHandler) would print it twice.
	s.audit.LogAttrs(context.Background(), slog.LevelInfo, auditMessage, r.attrs()...)
}

// auditRecord is what one audit line says; empty optional fields are left
// out.
type auditRecord struct {
	requestID, tokenID, clientID, credential, userID, tool, classID, outcome string
	durationMS, upstream                                                     int64
}

// attrs is the record as slog attributes, in the line's order.
func (r *auditRecord) attrs() []slog.Attr {
	attrs := make([]slog.Attr, 0, 9)
	if r.requestID != "" {
		attrs = append(attrs, slog.String("request_id", r.requestID))
	}
	switch {
	case r.tokenID != "":
		attrs = append(attrs, slog.String("token_id", r.tokenID))
	case r.clientID != "":
		attrs = append(attrs, slog.String("client_id", r.clientID))
	}
	if r.credential != "" {
		attrs = append(attrs, slog.String("credential", r.credential))
	}
	attrs = append(attrs, slog.String("user_id", r.userID), slog.String("tool", r.tool))
	if r.classID != "" {
		attrs = append(attrs, slog.String("class_id", r.classID))
	}
	return append(attrs,
		slog.String("outcome", r.outcome),
		slog.Int64("duration_ms", r.durationMS),
		slog.Int64("upstream_requests", r.upstream))
}

// auditMessage is the audit line's msg, which log routing matches on.
const auditMessage = "tool call"

// classID returns the arguments' class_id as text when it is a number (as
// every tool declares it) or a string of at most 20 digits; anything else
// is argument text and is not logged.
func classID(args *jsjson.Object) (string, bool) {
	if args == nil {
		return "", false
	}
	switch v := args.Value("class_id").(type) {
	case float64:
		return string(jsjson.AppendNumber(nil, v)), true
	case string:
		if v == "" || len(v) > 20 || strings.Trim(v, "0123456789") != "" {
			return "", false
		}
		return v, true
	}
	return "", false
}

// OutcomeRateLimited: the connection's tool-call limit refused the call
// before it ran (Options.Calls, gateway/calllimit).
const OutcomeRateLimited = "rate_limited"

// admitCall asks Options.Calls whether the call may run, and answers a
// refused one: a tool execution error the model can read from 2025-06-18,
// the original's kind of JSON-RPC error (-32000) on the drop-in path
// (docs/compatibility.md), each with Retry-After on a single answer.
func (s *Server) admitCall(cl *caller, id any) *jsonrpc.Response {
	if s.calls == nil {
		return nil
	}
	r := s.calls.Admit(cl.principal)
	if r == nil {
		return nil
	}
	var resp *jsonrpc.Response
	if revision.Structured(cl.version) {
		resp = toolError(cl, id, r.Message)
	} else {
		resp = jsonrpc.Fail(id, jsonrpc.CodeServerError, r.Message)
	}
	resp.RetryAfter = r.RetryAfter
	return resp
}

// callDone tells Options.Calls how a call ended; text is the answer's JSON
// text on success.
func (s *Server) callDone(cl *caller, start time.Time, tool string, args *jsjson.Object, outcome string, d time.Duration, text []byte) {
	if s.calls == nil {
		return
	}
	ev := &toolcall.Event{At: start, Principal: cl.principal, RequestID: cl.requestID, Tool: tool,
		Outcome: outcome, Duration: d, Result: text}
	ev.ClassID, _ = classID(args)
	s.calls.Done(ev)
}
