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
	id := msg.Value("id")
	method, present := msg.Get("method")
	if name, ok := method.(string); ok {
		switch name {
		case methodInitialize:
			return resultResponse(id, s.initializeResults[s.negotiate(msg.Value("params"))])
		case methodToolsList:
			return resultResponse(id, s.toolsListResult)
		case methodToolsCall:
			return s.toolsCall(ctx, cl, id, msg.Value("params"), log)
		case methodInitialized:
			return nil
		case methodPing:
			return resultResponse(id, pingResult)
		}
	}
	return errorResponse(id, codeMethodNotFound, "Method not found: "+jsString(method, present))
}

// toolsCall runs tools/call. params.name is printed with JavaScript's String
// (a missing name is "undefined"); params.arguments is used when it is an
// object, and is otherwise treated as {} — the original's `arguments || {}`
// followed by property reads that find nothing on a non-object.
func (s *Server) toolsCall(ctx context.Context, cl *caller, id, params any, log *slog.Logger) (resp *response) {
	name := "undefined"
	var args *jsjson.Object
	if p, ok := params.(*jsjson.Object); ok && p != nil {
		v, present := p.Get("name")
		name = jsString(v, present)
		args, _ = p.Object("arguments")
	}
	start := time.Now()
	defer func() {
		// A panicking tool must not take the batch (or the process) down.
		if r := recover(); r != nil {
			log.Error("mcp-server: tool panicked", "tool", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			resp = errorResponse(id, codeServerError, msgInternalError)
		}
	}()
	result, err := s.callTool(ctx, cl.db, cl.principal.Scopes, name, args)
	if err != nil {
		code := toolErrorCode(err)
		log.Info("mcp-server: tool call failed", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "code", code, "error", err)
		return errorResponse(id, code, err.Error())
	}
	text, err := jsjson.MarshalIndent(result)
	if err != nil {
		log.Error("mcp-server: encoding tool result", "tool", name, "error", err)
		return errorResponse(id, codeServerError, msgInternalError)
	}
	log.Info("mcp-server: tool call", "tool", name, "duration_ms", time.Since(start).Milliseconds(), "result_bytes", len(text))
	return resultResponse(id, toolCallResult(text))
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

// toolCallResult returns {"content":[{"type":"text","text":<text>}]}.
func toolCallResult(text []byte) []byte {
	dst := make([]byte, 0, len(text)+len(text)/8+48)
	dst = append(dst, `{"content":[{"type":"text","text":`...)
	dst = jsjson.AppendString(dst, string(text))
	return append(dst, `}]}`...)
}

// initializeResult returns the initialize result for version, with the
// original's key order.
func initializeResult(version string) []byte {
	dst := append([]byte(nil), `{"protocolVersion":`...)
	dst = jsjson.AppendString(dst, version)
	return append(dst, `,"serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":{"tools":{}}}`...)
}

// toolsListResult encodes {"tools":[{name, description, inputSchema}…]} in
// catalogue order. The catalogue is fixed, so this runs once per process.
func toolsListResult(reg *tools.Registry) ([]byte, error) {
	list := make([]any, 0, len(reg.Tools()))
	for _, t := range reg.Tools() {
		schema := t.InputSchema
		if schema == nil {
			schema = jsjson.NewObject(0)
		}
		list = append(list, jsjson.NewObject(3).
			Set("name", t.Name).
			Set("description", t.Description).
			Set("inputSchema", schema))
	}
	return jsjson.Marshal(jsjson.NewObject(1).Set("tools", list))
}
