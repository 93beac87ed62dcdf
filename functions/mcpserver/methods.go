package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Method names the server implements.
const (
	methodInitialize  = "initialize"
	methodToolsList   = "tools/list"
	methodToolsCall   = "tools/call"
	methodPing        = "ping"
	methodInitialized = "notifications/initialized"
)

// protocolVersion is the revision the original always answers, whatever the
// client asks for.
const protocolVersion = "2024-11-05"

// pingResult is the empty result of ping.
var pingResult = []byte(`{}`)

// dispatch runs one request (a message with a non-null id) and returns its
// response, or nil when the method produces none (notifications/initialized
// sent with an id). It mirrors the original's handleMCPRequest: the method is
// compared with strict equality, so only strings match, and any failure
// inside a method becomes -32000 in an HTTP 200 answer.
func (s *Server) dispatch(ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *response {
	id := messageID(msg)
	method, present := msg.Get("method")
	name, _ := method.(string)
	s.metrics.RPCRequest(name)
	if resp, ok := s.dispatchApps(cl, id, name, msg.Value("params")); ok {
		return resp // MCP Apps views, where negotiated (apps.go)
	}
	switch name {
	case methodInitialize:
		return resultResponse(id, s.initializeResults[s.negotiate(msg.Value("params"))])
	case methodToolsList:
		if structuredOutput(cl.version) {
			return resultResponse(id, s.toolsListResultStructured)
		}
		return resultResponse(id, s.toolsListResult)
	case methodToolsCall:
		return s.toolsCall(ctx, cl, id, msg.Value("params"), log)
	case methodInitialized:
		return nil
	case methodPing:
		return resultResponse(id, pingResult)
	}
	return errorResponse(id, codeMethodNotFound, "Method not found: "+jsString(method, present))
}

// toolsCall runs tools/call. params.name is printed with JavaScript's String
// (a missing name is "undefined"); params.arguments is used when it is an
// object, and is otherwise treated as {} — the original's `arguments || {}`
// followed by property reads that find nothing on a non-object.
//
// The answer depends on the request's revision: from 2025-06-18 the result
// also carries structuredContent {"result": <value>}; from 2025-11-25
// arguments that fail the tool's schema are a tool execution error (an
// isError result the model can act on, SEP-1303) and an unknown tool is
// -32602. Every call is counted in Metrics and written to the audit log.
func (s *Server) toolsCall(ctx context.Context, cl *caller, id, params any, log *slog.Logger) (resp *response) {
	name := "undefined"
	var args *jsjson.Object
	if p, ok := params.(*jsjson.Object); ok && p != nil {
		v, present := p.Get("name")
		name = jsString(v, present)
		args, _ = p.Object("arguments")
	}
	start := time.Now()
	ctx, upstream := withUpstreamCounter(ctx)
	outcome := OutcomeError
	defer func() {
		// A panicking tool must not take the batch (or the process) down.
		if r := recover(); r != nil {
			log.Error("mcp-server: tool panicked", "tool", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			resp, outcome = errorResponse(id, codeServerError, msgInternalError), OutcomeError
		}
		d := time.Since(start)
		s.metrics.ToolCall(name, outcome, d)
		s.auditToolCall(cl, name, args, outcome, d, upstream.Load())
	}()
	result, err := s.callTool(ctx, cl.db, cl.principal.Scopes, name, args)
	if err != nil {
		outcome = toolOutcome(err)
		code := toolErrorCode(err)
		log.Info("mcp-server: tool call failed", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "code", code, "error", err)
		if toolInputErrorsAsResults(cl.version) {
			switch outcome {
			case OutcomeInvalidParams:
				return resultResponse(id, toolErrorResult(err.Error()))
			case OutcomeUnknownTool:
				code = codeInvalidParams
			}
		}
		return errorResponse(id, code, err.Error())
	}
	if s.redactor != nil {
		var n int
		if result, n = s.redactor.Value(result); n > 0 {
			log.Warn("mcp-server: redacted credential-named values from a tool result", "tool", name, "values", n)
		}
	}
	text, err := jsjson.MarshalIndent(result)
	if err != nil {
		log.Error("mcp-server: encoding tool result", "tool", name, "error", err)
		return errorResponse(id, codeServerError, msgInternalError)
	}
	var structured []byte
	if structuredOutput(cl.version) {
		if structured, err = jsjson.Marshal(tools.StructuredResult(result)); err != nil {
			log.Error("mcp-server: encoding structured tool result", "tool", name, "error", err)
			return errorResponse(id, codeServerError, msgInternalError)
		}
	}
	outcome = OutcomeOK
	log.Info("mcp-server: tool call", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "result_bytes", len(text))
	return resultResponse(id, toolCallResult(text, structured))
}

// toolErrorCode maps a registry error to its JSON-RPC code. Only schema
// violations get a code of their own; everything else, including unknown
// tools and missing scopes, is the original's -32000.
func toolErrorCode(err error) int {
	var ip *tools.InvalidParamsError
	if errors.As(err, &ip) {
		return codeInvalidParams
	}
	return codeServerError
}

// toolCallResult returns {"content":[{"type":"text","text":<text>}]}, with
// ,"structuredContent":<structured> before the closing brace when
// structured (compact JSON) is not nil.
func toolCallResult(text, structured []byte) []byte {
	dst := make([]byte, 0, len(text)+len(text)/8+len(structured)+72)
	dst = append(dst, `{"content":[{"type":"text","text":`...)
	dst = jsjson.AppendString(dst, string(text))
	dst = append(dst, `}]`...)
	if structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, structured...)
	}
	return append(dst, '}')
}

// toolErrorResult returns a tool execution error:
// {"content":[{"type":"text","text":<message>}],"isError":true}.
func toolErrorResult(message string) []byte {
	dst := make([]byte, 0, len(message)+64)
	dst = append(dst, `{"content":[{"type":"text","text":`...)
	dst = jsjson.AppendString(dst, message)
	return append(dst, `}],"isError":true}`...)
}

// initializeResult returns the initialize result for version, with the
// original's key order.
func initializeResult(version string) []byte {
	dst := append([]byte(nil), `{"protocolVersion":`...)
	dst = jsjson.AppendString(dst, version)
	return append(dst, `,"serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{}}}`...)
}

// toolsListResult encodes {"tools":[{name, description, inputSchema}…]} in
// catalogue order, with each declared outputSchema after inputSchema when
// withOutput is set. The catalogue is fixed, so this runs once per process.
func toolsListResult(reg *tools.Registry, withOutput bool) ([]byte, error) {
	list := make([]any, 0, len(reg.Tools()))
	for _, t := range reg.Tools() {
		schema := t.InputSchema
		if schema == nil {
			schema = jsjson.NewObject(0)
		}
		entry := jsjson.NewObject(4).
			Set("name", t.Name).
			Set("description", t.Description).
			Set("inputSchema", schema)
		if withOutput && t.OutputSchema != nil {
			entry.Set("outputSchema", t.OutputSchema)
		}
		list = append(list, entry)
	}
	return jsjson.Marshal(jsjson.NewObject(1).Set("tools", list))
}
