package mcpserver

import (
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/toolcall"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// OutcomeRateLimited: the connection's tool-call limit refused the call
// before it ran (Options.Calls, gateway/calllimit).
const OutcomeRateLimited = "rate_limited"

// admitCall asks Options.Calls whether the call may run, and answers a
// refused one: a tool execution error the model can read from 2025-06-18,
// the original's kind of JSON-RPC error (-32000) on the drop-in path
// (docs/compatibility.md), each with Retry-After on a single answer.
func (s *Server) admitCall(cl *caller, id any) *response {
	if s.calls == nil {
		return nil
	}
	r := s.calls.Admit(cl.principal)
	if r == nil {
		return nil
	}
	var resp *response
	if structuredOutput(cl.version) {
		resp = resultResponse(id, eraResult(cl, toolErrorResult(r.Message)))
	} else {
		resp = errorResponse(id, codeServerError, r.Message)
	}
	resp.retryAfter = r.RetryAfter
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
