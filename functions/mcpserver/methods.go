package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/answers"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/appsext"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skillsext"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/writesext"
	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Method names the server implements.
const (
	methodInitialize            = "initialize"
	methodToolsList             = "tools/list"
	methodToolsCall             = "tools/call"
	methodPing                  = "ping"
	methodInitialized           = "notifications/initialized"
	methodDiscover              = "server/discover"
	methodListen                = "subscriptions/listen"
	methodResourcesList         = "resources/list"
	methodResourcesRead         = "resources/read"
	methodResourceTemplatesList = "resources/templates/list"
)

// codeResourceNotFound is the resources specification's error for an
// unknown URI from 2025-06-18 to 2025-11-25; 2026-07-28 answers -32602
// with the URI in data instead (server/resources, "Error Handling").
const codeResourceNotFound = -32002

// handler answers one request (a message with a non-null id) and returns
// its response, or nil when the method produces none.
type handler func(s *Server, ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response

// method is how one JSON-RPC method is answered in each protocol era. A nil
// handler means the method does not exist in that era: -32601 (with HTTP
// 404 at a stateless revision). Adding a method is one entry here.
type method struct {
	// handshake answers under the handshake revisions, 2024-11-05 …
	// 2025-11-25.
	handshake handler
	// stateless answers from 2026-07-28; its result carries resultType and
	// the server's identity. subscriptions/listen, answered with an event
	// stream, is served by the transport (serveListen).
	stateless handler
}

// methods is the dispatch table of both eras. initialize, ping and
// notifications/initialized were removed by 2026-07-28, which answers them
// as unknown methods, as the revision says. Everything but tools/call is
// a lookup in the answer table (package answers).
var methods = map[string]method{
	methodInitialize:  {handshake: (*Server).initialize},
	methodInitialized: {handshake: func(*Server, context.Context, *caller, *jsjson.Object, *slog.Logger) *jsonrpc.Response { return nil }},
	methodPing: {handshake: func(_ *Server, _ context.Context, _ *caller, msg *jsjson.Object, _ *slog.Logger) *jsonrpc.Response {
		return jsonrpc.Result(jsonrpc.MessageID(msg), pingResult)
	}},
	methodToolsList:             both(answered(func(r *answers.Row) []byte { return r.ToolsList })),
	methodToolsCall:             both((*Server).toolsCallRequest),
	methodDiscover:              {handshake: (*Server).discoverHandshake, stateless: answered(func(r *answers.Row) []byte { return r.Discover })},
	methodResourcesList:         both(answered(func(r *answers.Row) []byte { return r.ResourcesList })),
	methodResourceTemplatesList: both(answered(func(r *answers.Row) []byte { return r.Templates })),
	methodResourcesRead:         both((*Server).resourcesRead),
	skillsext.MethodList:        {stateless: answered(func(r *answers.Row) []byte { return r.SkillsList })},
	skillsext.MethodGet:         {stateless: (*Server).skillsGet},
}

// pingResult is the empty result of ping.
var pingResult = []byte(`{}`)

func both(h handler) method { return method{handshake: h, stateless: h} }

// answered is a handler that answers the row's result chosen by pick, or
// -32601 where the row has none (a method the request is not offered).
func answered(pick func(*answers.Row) []byte) handler {
	return func(s *Server, _ context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
		row, resp := s.row(cl, cl.clientCapabilities, msg, log)
		if resp != nil {
			return resp
		}
		if body := pick(row); body != nil {
			return jsonrpc.Result(jsonrpc.MessageID(msg), body)
		}
		return jsonrpc.MethodNotFound(msg)
	}
}

// row is the answer table's row for cl's request, whose client declares
// caps; a row that could not be built is answered -32000.
func (s *Server) row(cl *caller, caps *jsjson.Object, msg *jsjson.Object, log *slog.Logger) (*answers.Row, *jsonrpc.Response) {
	k := answers.Key{Revision: cl.version, Apps: appsext.Declared(caps), Writer: cl.principal.HasScope(tools.ScopeWrite)}
	row, err := s.answers.Row(k)
	if err != nil {
		log.Error("mcp-server: building answers", "error", err)
		return nil, jsonrpc.Fail(jsonrpc.MessageID(msg), jsonrpc.CodeServerError, jsonrpc.MsgInternalError)
	}
	return row, nil
}

// initialize answers with the negotiated revision's row, for the
// capabilities the client declares in this same request.
func (s *Server) initialize(_ context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
	params := msg.Value("params")
	at := *cl
	at.version = s.negotiate(params)
	var caps *jsjson.Object
	if p, ok := params.(*jsjson.Object); ok && p != nil {
		caps, _ = p.Object("capabilities")
	}
	row, resp := s.row(&at, caps, msg, log)
	if resp != nil {
		return resp
	}
	return jsonrpc.Result(jsonrpc.MessageID(msg), row.Initialize)
}

// discoverHandshake answers server/discover sent under a handshake
// revision: the same result whenever the request names a revision (with
// the capabilities its _meta declares), so a client may probe at any
// MCP-Protocol-Version. Without any (the original's clients never send
// one) and with PinProtocol2024 it is the original's -32601.
func (s *Server) discoverHandshake(_ context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
	if s.pinProtocol || !cl.versionStated {
		return jsonrpc.Fail(jsonrpc.MessageID(msg), jsonrpc.CodeMethodNotFound, "Method not found: "+methodDiscover)
	}
	row, resp := s.row(cl, revision.Capabilities(msg.Value("params")), msg, log)
	if resp != nil {
		return resp
	}
	return jsonrpc.Result(jsonrpc.MessageID(msg), row.Discover)
}

// uriParam returns params.uri, or the -32602 answer when it is not a string.
func uriParam(msg *jsjson.Object) (string, *jsonrpc.Response) {
	if p, ok := msg.Value("params").(*jsjson.Object); ok && p != nil {
		if uri, ok := p.String("uri"); ok {
			return uri, nil
		}
	}
	return "", jsonrpc.Fail(jsonrpc.MessageID(msg), jsonrpc.CodeInvalidParams, "Invalid params: uri must be a string")
}

// resourcesRead answers resources/read where the views or the skills are
// offered: the view or SKILL.md at params.uri the request is served, and
// for any other URI -32002 (handshake revisions) or -32602 with the URI in
// data (stateless).
func (s *Server) resourcesRead(_ context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
	return s.byURI(cl, msg, log, func(r *answers.Row) (bool, map[string][]byte) { return r.ResourcesList != nil, r.Read },
		func(uri string) *jsonrpc.Response {
			if !revision.Stateless(cl.version) {
				return jsonrpc.Fail(jsonrpc.MessageID(msg), codeResourceNotFound, "Resource not found")
			}
			return notFoundWithURI(msg, "Resource not found", uri)
		})
}

// skillsGet answers skills/get: the entry of the skill whose SKILL.md is
// params.uri, and -32602 (with the URI in data) for a URI that names no
// skill the caller is served.
func (s *Server) skillsGet(_ context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
	return s.byURI(cl, msg, log, func(r *answers.Row) (bool, map[string][]byte) { return r.SkillsList != nil, r.SkillsGet },
		func(uri string) *jsonrpc.Response { return notFoundWithURI(msg, "Skill not found", uri) })
}

// byURI answers a method that reads one answer by params.uri from the
// row: -32601 where the row does not serve the method (pick's bool), the
// answer at the URI, or notFound's.
func (s *Server) byURI(cl *caller, msg *jsjson.Object, log *slog.Logger,
	pick func(*answers.Row) (bool, map[string][]byte), notFound func(uri string) *jsonrpc.Response) *jsonrpc.Response {
	row, resp := s.row(cl, cl.clientCapabilities, msg, log)
	if resp != nil {
		return resp
	}
	served, byURI := pick(row)
	if !served {
		return jsonrpc.MethodNotFound(msg)
	}
	uri, resp := uriParam(msg)
	if resp != nil {
		return resp
	}
	if body, ok := byURI[uri]; ok {
		return jsonrpc.Result(jsonrpc.MessageID(msg), body)
	}
	return notFound(uri)
}

// notFoundWithURI is -32602 with message and {"uri": uri} in data, the
// stateless answer for an unknown resource or skill.
func notFoundWithURI(msg *jsjson.Object, message, uri string) *jsonrpc.Response {
	return jsonrpc.FailWithData(jsonrpc.MessageID(msg), jsonrpc.CodeInvalidParams, message, jsjson.NewObject(1).Set("uri", uri))
}

// dispatch runs one request of a handshake revision (a message with a
// non-null id) and returns its response, or nil when the method produces
// none (notifications/initialized sent with an id). It mirrors the
// original's handleMCPRequest: the method is compared with strict
// equality, so only strings match, and any failure inside a method becomes
// -32000 in an HTTP 200 answer.
func (s *Server) dispatch(ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
	m, present := msg.Get("method")
	name, _ := m.(string)
	s.metrics.RPCRequest(name)
	if h := methods[name].handshake; h != nil {
		return h(s, ctx, cl, msg, log)
	}
	return jsonrpc.Fail(jsonrpc.MessageID(msg), jsonrpc.CodeMethodNotFound, "Method not found: "+jsonrpc.JSString(m, present))
}

// dispatchStateless runs a stateless request through the method table.
// Methods the revision removed (initialize, ping, …) and unknown ones are
// -32601, which the transport answers with 404.
func (s *Server) dispatchStateless(ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
	m, present := msg.Get("method")
	name, _ := m.(string)
	s.metrics.RPCRequest(name)
	entry := methods[name]
	if entry.stateless != nil {
		return entry.stateless(s, ctx, cl, msg, log)
	}
	text := "Method not found: " + jsonrpc.JSString(m, present)
	if entry.handshake != nil {
		text += " (removed in protocol version " + revision.Modern + ")"
	}
	return jsonrpc.Fail(jsonrpc.MessageID(msg), jsonrpc.CodeMethodNotFound, text)
}

// negotiate picks the initialize answer's protocolVersion
// (revision.Negotiate); with PinProtocol2024 it is always 2024-11-05, the
// original's fixed answer.
func (s *Server) negotiate(params any) string {
	if s.pinProtocol {
		return revision.Original
	}
	return revision.Negotiate(params)
}

// toolsCallRequest is tools/call as a table entry.
func (s *Server) toolsCallRequest(ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *jsonrpc.Response {
	return s.toolsCall(ctx, cl, jsonrpc.MessageID(msg), msg.Value("params"), log)
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
// -32602. Every call is observed once (observeToolCall).
func (s *Server) toolsCall(ctx context.Context, cl *caller, id, params any, log *slog.Logger) (resp *jsonrpc.Response) {
	name := "undefined"
	var args *jsjson.Object
	if p, ok := params.(*jsjson.Object); ok && p != nil {
		v, present := p.Get("name")
		name = jsonrpc.JSString(v, present)
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
			resp, outcome = jsonrpc.Fail(id, jsonrpc.CodeServerError, jsonrpc.MsgInternalError), OutcomeError
		}
		d := time.Since(start)
		s.observeToolCall(cl, name, args, outcome, d, upstream.Load())
		s.callDone(cl, start, name, args, outcome, d, text)
	}()
	if refused := s.admitCall(cl, id); refused != nil {
		outcome = OutcomeRateLimited
		return refused
	}
	result, err := s.runTool(ctx, cl, name, params, args)
	if err != nil {
		outcome = toolOutcome(err)
		code := toolErrorCode(err)
		log.Info("mcp-server: tool call failed", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "code", code, "error", err)
		return s.toolErrorResponse(cl, id, name, outcome, code, err)
	}
	var r answers.Result
	if pr, ok := result.(*tools.Proposed); ok && writesext.DeclaresURLElicitation(cl.version, cl.clientCapabilities) {
		r = writesext.InputRequired{Proposal: pr}
	} else if r, err = s.toolResult(cl, name, result, log); err != nil {
		log.Error("mcp-server: encoding tool result", "tool", name, "error", err)
		return jsonrpc.Fail(id, jsonrpc.CodeServerError, jsonrpc.MsgInternalError)
	}
	if tc, ok := r.(answers.ToolCall); ok {
		text = []byte(tc.Text)
	}
	body, err := answers.Encode(cl.version, r, nil)
	if err != nil {
		log.Error("mcp-server: encoding tool result", "tool", name, "error", err)
		return jsonrpc.Fail(id, jsonrpc.CodeServerError, jsonrpc.MsgInternalError)
	}
	outcome = OutcomeOK
	// At debug: the audit line, always written, already records the call.
	if log.Enabled(ctx, slog.LevelDebug) {
		log.Debug("mcp-server: tool call", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "result_bytes", len(body))
	}
	return jsonrpc.Result(id, body)
}

// runTool calls the tool name for cl. A tool the original lacks is unknown
// where tools/list does not show it (the drop-in path); a write tool is
// handed the caller (tools.WithCaller), and at a stateless revision a
// call carrying requestState is the retry of an input_required answer,
// which reports the sealed action's state instead of proposing again.
func (s *Server) runTool(ctx context.Context, cl *caller, name string, params any, args *jsjson.Object) (any, error) {
	t, known := s.tools.Lookup(name)
	if !revision.Structured(cl.version) {
		if known && t.NegotiatedOnly {
			return nil, &tools.UnknownToolError{Name: name}
		}
	} else {
		ctx = tools.WithNegotiated(ctx) // fields the original lacks (S31)
	}
	if !known || !t.Write {
		return s.callTool(ctx, cl.db, cl.principal.Scopes, name, args)
	}
	p := cl.principal
	ctx = tools.WithCaller(ctx, tools.Caller{UserID: p.UserID, TokenID: p.TokenID, ClientID: p.ClientID})
	if po, ok := params.(*jsjson.Object); ok && po != nil && revision.Stateless(cl.version) {
		if rs, ok := po.String("requestState"); ok {
			return s.tools.Resume(ctx, p.Scopes, name, rs)
		}
	}
	return s.callTool(ctx, cl.db, p.Scopes, name, args)
}

// toolResult is a tool's value as a tools/call result: as indented text,
// and from 2025-06-18 as structuredContent (before 2026-07-28 wrapped in
// an object, as those revisions require; after, the value itself).
func (s *Server) toolResult(cl *caller, name string, result any, log *slog.Logger) (answers.Result, error) {
	if pr, ok := result.(*tools.Proposed); ok {
		result = pr.Value
	}
	result = s.cleanResult(cl, name, result, log)
	text, err := jsjson.MarshalIndent(result)
	if err != nil {
		return nil, err
	}
	r := answers.ToolCall{Text: string(text)}
	if revision.Structured(cl.version) {
		r.Structured, r.HasStructured = result, true
		if !revision.Stateless(cl.version) {
			r.Structured = tools.StructuredResult(result)
		}
	}
	return r, nil
}

// toolErrorResponse answers a failed tool call: a refused write and a
// negotiated-only tool's failed read are tool execution errors (isError)
// the model can read; so are invalid arguments from 2025-11-25; the rest
// are JSON-RPC errors, with a scope challenge on a request that states a
// revision (MCP authorization, "Scope Challenge Handling"; the drop-in
// path keeps the original's -32000 in a 200).
func (s *Server) toolErrorResponse(cl *caller, id any, name, outcome string, code int, err error) *jsonrpc.Response {
	var rf *approval.RefusedError
	var rd *tools.ReadFailedError
	switch {
	case errors.As(err, &rf):
		return toolError(cl, id, rf.Message)
	case errors.As(err, &rd):
		return toolError(cl, id, rd.Error())
	case revision.ToolInputErrorsAsResults(cl.version) && outcome == OutcomeInvalidParams:
		return toolError(cl, id, err.Error())
	case revision.ToolInputErrorsAsResults(cl.version) && outcome == OutcomeUnknownTool:
		code = jsonrpc.CodeInvalidParams
	}
	resp := jsonrpc.Fail(id, code, err.Error())
	var ms *tools.MissingScopeError
	if cl.versionStated && errors.As(err, &ms) {
		resp.Challenge = s.insufficientScope(name, ms.Scope)
	}
	return resp
}

// toolError is a tool execution error result carrying message.
func toolError(cl *caller, id any, message string) *jsonrpc.Response {
	body, err := answers.Encode(cl.version, answers.ToolCall{Text: message, IsError: true}, nil)
	if err != nil { // a string always encodes
		panic(err)
	}
	return jsonrpc.Result(id, body)
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
	if revision.Structured(cl.version) {
		var n int
		if result, n = hiddentext.MarkValue(result); n > 0 {
			log.Info("mcp-server: marked hidden characters in a tool result", "tool", name, "characters", n)
		}
	}
	return result
}

// toolErrorCode maps a registry error to its JSON-RPC code. Only schema
// violations get a code of their own; everything else, including unknown
// tools and missing scopes, is the original's -32000.
func toolErrorCode(err error) int {
	var ip *tools.InvalidParamsError
	if errors.As(err, &ip) {
		return jsonrpc.CodeInvalidParams
	}
	return jsonrpc.CodeServerError
}
