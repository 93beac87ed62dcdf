package mcpserver

import (
	"testing"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/answers"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/appsext"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/skillsext"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/writesext"
	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// The names the tests read the protocol by, from the packages that hold
// them now.
const (
	headerProtocolVersion = revision.HeaderProtocolVersion
	headerMcpMethod       = revision.HeaderMcpMethod
	headerMcpName         = revision.HeaderMcpName
	versionModern         = revision.Modern
	codeMethodNotFound    = jsonrpc.CodeMethodNotFound
	codeInvalidParams     = jsonrpc.CodeInvalidParams
	firstVersionWithApps  = "2025-06-18"
	instructions          = answers.Instructions
	writeInstructions     = writesext.Instructions
)

type response = jsonrpc.Response

var (
	resultResponse      = jsonrpc.Result
	jsString            = jsonrpc.JSString
	markHidden          = hiddentext.MarkValue
	decodeHeaderValue   = revision.DecodeHeaderValue
	skillsInstructions  = skillsext.Instructions
	requestCapabilities = revision.Capabilities
	structuredOutput    = revision.Structured
)

// appsOffered reports whether tools/list marks the view tools for a
// request at version declaring caps.
func appsOffered(version string, caps *jsjson.Object) bool {
	return appsext.ToolMetaOffered(version, appsext.Declared(caps))
}

// rowOf is the answer table's row for k.
func rowOf(t testing.TB, s *Server, k answers.Key) *answers.Row {
	t.Helper()
	row, err := s.answers.Row(k)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// objectResult is a decoded result object as an answers.Result.
type objectResult struct{ o *jsjson.Object }

func (r objectResult) Members(o *jsjson.Object) {
	for _, k := range r.o.Keys() {
		o.Set(k, r.o.Value(k))
	}
}

// encodeAt encodes the result object body at rev through answers.Encode.
func encodeAt(rev string, body []byte) []byte {
	v, err := jsjson.Decode(body)
	if err != nil {
		panic(err)
	}
	out, err := answers.Encode(rev, objectResult{v.(*jsjson.Object)}, nil)
	if err != nil {
		panic(err)
	}
	return out
}

// modernResult is a result object at 2026-07-28.
func modernResult(body []byte) []byte { return encodeAt(revision.Modern, body) }

// eraResult is a result object at cl's revision.
func eraResult(cl *caller, body []byte) []byte { return encodeAt(cl.version, body) }

// toolCallResult is the tools/call result of text, with structured (compact
// JSON) as structuredContent when it is not nil.
func toolCallResult(text, structured []byte) []byte {
	r := answers.ToolCall{Text: string(text)}
	if structured != nil {
		v, err := jsjson.Decode(structured)
		if err != nil {
			panic(err)
		}
		r.Structured, r.HasStructured = v, true
	}
	out, err := answers.Encode("", r, nil)
	if err != nil {
		panic(err)
	}
	return out
}

// toolErrorResult is the tool execution error result carrying message.
func toolErrorResult(message string) []byte {
	out, err := answers.Encode("", answers.ToolCall{Text: message, IsError: true}, nil)
	if err != nil {
		panic(err)
	}
	return out
}
