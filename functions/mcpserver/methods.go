package mcpserver

import (
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"

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
	methodDiscover    = "server/discover"
	methodListen      = "subscriptions/listen"
)

// protocolVersion is the revision the original always answers, whatever the
// client asks for.
const protocolVersion = "2024-11-05"

// pingResult is the empty result of ping.
var pingResult = []byte(`{}`)

// handler answers one request (a message with a non-null id) and returns
// its response, or nil when the method produces none.
type handler func(s *Server, ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *response

// method is how one JSON-RPC method is answered in each protocol era. A nil
// handler means the method does not exist in that era: -32601 (with HTTP
// 404 at 2026-07-28). Adding a method is one entry here.
type method struct {
	// legacy answers under the handshake revisions, 2024-11-05 … 2025-11-25.
	legacy handler
	// modern answers at 2026-07-28; its result carries resultType and the
	// server's identity (modernResult). subscriptions/listen, answered with
	// an event stream, is served by the transport (serveListen).
	modern handler
}

// methods is the dispatch table of both eras. initialize, ping and
// notifications/initialized were removed by 2026-07-28, which answers them
// as unknown methods, as the revision says.
var methods = map[string]method{
	methodInitialize: {legacy: func(s *Server, _ context.Context, _ *caller, msg *jsjson.Object, _ *slog.Logger) *response {
		params := msg.Value("params")
		v := s.negotiate(params)
		if appsDeclaredAtInitialize(v, params) {
			return resultResponse(messageID(msg), s.apps.initialize[v]) // MCP Apps (apps.go)
		}
		return resultResponse(messageID(msg), s.initializeResults[v])
	}},
	methodInitialized: {legacy: func(*Server, context.Context, *caller, *jsjson.Object, *slog.Logger) *response { return nil }},
	methodPing: {legacy: func(_ *Server, _ context.Context, _ *caller, msg *jsjson.Object, _ *slog.Logger) *response {
		return resultResponse(messageID(msg), pingResult)
	}},
	methodToolsList: {
		legacy: func(s *Server, _ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
			switch {
			case appsOffered(cl.version, cl.clientCapabilities):
				return resultResponse(messageID(msg), s.apps.toolsList) // with _meta.ui (apps.go)
			case structuredOutput(cl.version):
				return resultResponse(messageID(msg), s.toolsListResultStructured)
			}
			return resultResponse(messageID(msg), s.toolsListResult)
		},
		modern: func(s *Server, _ context.Context, cl *caller, msg *jsjson.Object, _ *slog.Logger) *response {
			if appsOffered(cl.version, cl.clientCapabilities) {
				return resultResponse(messageID(msg), s.apps.toolsListModern)
			}
			return resultResponse(messageID(msg), s.toolsListResultModern)
		},
	},
	methodToolsCall: {legacy: (*Server).toolsCallRequest, modern: (*Server).toolsCallRequest},
	methodDiscover:  {legacy: (*Server).discoverLegacy, modern: (*Server).discover},
	// The MCP Apps views' and the skills' resources (resources.go,
	// skillserve.go): both eras, answered only where appsOffered or
	// skillsOffered allows and -32601 elsewhere.
	methodResourcesList:         {legacy: (*Server).resourcesList, modern: (*Server).resourcesList},
	methodResourcesRead:         {legacy: (*Server).resourcesRead, modern: (*Server).resourcesRead},
	methodResourceTemplatesList: {legacy: (*Server).resourceTemplatesList, modern: (*Server).resourceTemplatesList},
	// The Skills extension (skillserve.go): 2026-07-28 only, for a request
	// that declares it.
	methodSkillsList: {modern: (*Server).skillsList},
	methodSkillsGet:  {modern: (*Server).skillsGet},
}

// dispatch runs one request of a handshake revision (a message with a
// non-null id) and returns its response, or nil when the method produces
// none (notifications/initialized sent with an id). It mirrors the
// original's handleMCPRequest: the method is compared with strict
// equality, so only strings match, and any failure inside a method becomes
// -32000 in an HTTP 200 answer.
func (s *Server) dispatch(ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *response {
	m, present := msg.Get("method")
	name, _ := m.(string)
	s.metrics.RPCRequest(name)
	if h := methods[name].legacy; h != nil {
		return h(s, ctx, cl, msg, log)
	}
	return errorResponse(messageID(msg), codeMethodNotFound, "Method not found: "+jsString(m, present))
}

// toolsCallRequest is tools/call as a table entry.
func (s *Server) toolsCallRequest(ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *response {
	return s.toolsCall(ctx, cl, messageID(msg), msg.Value("params"), log)
}

// toolsCall runs tools/call. params.name is printed with JavaScript's String
// (a missing name is "undefined"); params.arguments is used when it is an
// object, and is otherwise treated as {} — the original's `arguments || {}`
// followed by property reads that find nothing on a non-object.
//
// The answer depends on the request's revision: from 2025-06-18 the result
// also carries structuredContent {"result": <value>} (the value itself from
// 2026-07-28, with resultType and the server's identity); from 2025-11-25
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
	var text []byte // the answer's JSON text, for Options.Calls
	defer func() {
		// A panicking tool must not take the batch (or the process) down.
		if r := recover(); r != nil {
			log.Error("mcp-server: tool panicked", "tool", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			resp, outcome = errorResponse(id, codeServerError, msgInternalError), OutcomeError
		}
		d := time.Since(start)
		s.metrics.ToolCall(name, outcome, d)
		s.auditToolCall(cl, name, args, outcome, d, upstream.Load())
		s.callDone(cl, start, name, args, outcome, d, text)
	}()
	if refused := s.admitCall(cl, id); refused != nil {
		outcome = OutcomeRateLimited
		return refused
	}
	if structuredOutput(cl.version) {
		ctx = tools.WithNegotiated(ctx) // fields the original lacks (S31)
	}
	var result any
	var err error
	switch {
	case s.hiddenFrom(cl.version, name):
		err = &tools.UnknownToolError{Name: name}
	case s.isWriteTool(name):
		result, err = s.callWriteTool(ctx, cl, name, params, args) // writes.go
	default:
		result, err = s.callTool(ctx, cl.db, cl.principal.Scopes, name, args)
	}
	if err != nil {
		outcome = toolOutcome(err)
		code := toolErrorCode(err)
		log.Info("mcp-server: tool call failed", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "code", code, "error", err)
		return s.toolErrorResponse(cl, id, name, outcome, code, err)
	}
	if pr, ok := result.(*tools.Proposed); ok {
		if declaresURLElicitation(cl) {
			body, err := inputRequiredResult(pr)
			if err != nil {
				log.Error("mcp-server: encoding input_required result", "tool", name, "error", err)
				return errorResponse(id, codeServerError, msgInternalError)
			}
			outcome = OutcomeOK
			return resultResponse(id, body)
		}
		result = pr.Value
	}
	result = s.cleanResult(cl, name, result, log)
	text, err = jsjson.MarshalIndent(result)
	if err != nil {
		log.Error("mcp-server: encoding tool result", "tool", name, "error", err)
		return errorResponse(id, codeServerError, msgInternalError)
	}
	var structured []byte
	if structuredOutput(cl.version) {
		// From 2026-07-28 structuredContent may be any JSON value, so it is
		// the tool's value itself; before, it had to be an object.
		var value any = result
		if cl.version != versionModern {
			value = tools.StructuredResult(result)
		}
		if structured, err = jsjson.Marshal(value); err != nil {
			log.Error("mcp-server: encoding structured tool result", "tool", name, "error", err)
			return errorResponse(id, codeServerError, msgInternalError)
		}
	}
	outcome = OutcomeOK
	// At debug: the audit line, always written, already records the call.
	if log.Enabled(ctx, slog.LevelDebug) {
		log.Debug("mcp-server: tool call", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "result_bytes", len(text))
	}
	return resultResponse(id, eraResult(cl, toolCallResult(text, structured)))
}

// toolErrorResponse answers a failed tool call: a refused write and a
// negotiated-only tool's failed read are tool execution errors (isError)
// the model can read; so are invalid arguments from 2025-11-25; the rest
// are JSON-RPC errors, with a scope challenge on a request that states a
// revision (MCP authorization, "Scope Challenge Handling"; the drop-in
// path keeps the original's -32000 in a 200).
func (s *Server) toolErrorResponse(cl *caller, id any, name, outcome string, code int, err error) *response {
	var rf *approval.RefusedError
	if errors.As(err, &rf) {
		return resultResponse(id, eraResult(cl, toolErrorResult(rf.Message)))
	}
	var rd *tools.ReadFailedError
	if errors.As(err, &rd) {
		return resultResponse(id, eraResult(cl, toolErrorResult(rd.Error())))
	}
	if toolInputErrorsAsResults(cl.version) {
		switch outcome {
		case OutcomeInvalidParams:
			return resultResponse(id, eraResult(cl, toolErrorResult(err.Error())))
		case OutcomeUnknownTool:
			code = codeInvalidParams
		}
	}
	resp := errorResponse(id, code, err.Error())
	var ms *tools.MissingScopeError
	if cl.versionStated && errors.As(err, &ms) {
		resp.challenge = s.insufficientScope(name, ms.Scope)
	}
	return resp
}

// cleanResult is a tool's value as it may leave the server: credential-named
// values redacted, and at negotiated revisions hidden characters marked
// (S30).
func (s *Server) cleanResult(cl *caller, name string, result any, log *slog.Logger) any {
	if s.redactor != nil {
		var n int
		if result, n = s.redactor.Value(result); n > 0 {
			log.Warn("mcp-server: redacted credential-named values from a tool result", "tool", name, "values", n)
		}
	}
	if structuredOutput(cl.version) {
		var n int
		if result, n = markHidden(result); n > 0 {
			log.Info("mcp-server: marked hidden characters in a tool result", "tool", name, "characters", n)
		}
	}
	return result
}

// hiddenFrom reports whether the tool called name is one the original
// lacks and version does not list (tools/list shows such tools only from
// 2025-06-18): calling it there is calling an unknown tool, so the drop-in
// path answers exactly as the original would.
func (s *Server) hiddenFrom(version, name string) bool {
	t, ok := s.tools.Lookup(name)
	return ok && t.NegotiatedOnly && !structuredOutput(version)
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
// resourcesInitializeResult is initialize's answer from 2025-06-18 to a
// client without the MCP Apps extension: the skills are resources there.
func resourcesInitializeResult(version string) []byte {
	dst := append([]byte(nil), `{"protocolVersion":`...)
	dst = jsjson.AppendString(dst, version)
	return append(dst, `,"serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{},"resources":{}}}`...)
}

func initializeResult(version string) []byte {
	dst := append([]byte(nil), `{"protocolVersion":`...)
	dst = jsjson.AppendString(dst, version)
	return append(dst, `,"serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{}}}`...)
}

// toolsListResult encodes {"tools":[…]} in catalogue order. Without
// withOutput it is the original's catalogue (the drop-in path, 2024-11-05
// and 2025-03-26): its tools with name, description and inputSchema only.
// With it (2025-06-18 and 2025-11-25) every tool, titled, annotated and
// with its outputSchema (toolEntries). The catalogue is fixed, so this runs
// once per process.
func toolsListResult(reg *tools.Registry, withOutput bool) ([]byte, error) {
	if withOutput {
		return jsjson.Marshal(jsjson.NewObject(1).Set("tools", toolEntries(reg, func(t *tools.Tool) *jsjson.Object { return t.OutputSchema })))
	}
	list := make([]any, 0, len(reg.Tools()))
	for _, t := range reg.Tools() {
		if t.NegotiatedOnly {
			continue
		}
		list = append(list, jsjson.NewObject(3).
			Set("name", t.Name).
			Set("description", t.Description).
			Set("inputSchema", inputSchema(t)))
	}
	return jsjson.Marshal(jsjson.NewObject(1).Set("tools", list))
}

// toolEntries lists the whole catalogue in its fixed order as the
// tools/list entries of revisions from 2025-06-18: name, title,
// description (what the tool returns), inputSchema, outputSchema when
// output(t) gives one (each revision describes results its own way) and
// annotations (Tool.Annotations).
func toolEntries(reg *tools.Registry, output func(*tools.Tool) *jsjson.Object) []any {
	list := make([]any, 0, len(reg.Tools()))
	for _, t := range reg.Tools() {
		entry := jsjson.NewObject(6).
			Set("name", t.Name).
			Set("title", t.Title).
			Set("description", t.NegotiatedDescription()).
			Set("inputSchema", inputSchema(t))
		if out := output(t); out != nil {
			entry.Set("outputSchema", out)
		}
		entry.Set("annotations", t.Annotations())
		list = append(list, entry)
	}
	return list
}

// inputSchema is t's input schema, or an empty object when it has none.
func inputSchema(t *tools.Tool) *jsjson.Object {
	if t.InputSchema == nil {
		return jsjson.NewObject(0)
	}
	return t.InputSchema
}
