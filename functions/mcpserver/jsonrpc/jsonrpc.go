// Package jsonrpc is the JSON-RPC 2.0 layer of the MCP transport: the
// response and error objects printed as the original prints them (keys
// jsonrpc, id, then result or error), the transport envelopes, and
// JavaScript's String() of a decoded value, which the original's messages
// use. It knows nothing of MCP revisions.
package jsonrpc

import (
	"math"
	"strconv"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// JSON-RPC 2.0 error codes used by the server.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeServerError is what the original answers for any failure inside a
	// method, and for a 401 at the transport level.
	CodeServerError = -32000
)

// Messages of the transport errors this server adds (the original answered
// these cases with 500 and a JavaScript exception text).
const (
	MsgParseError      = "Parse error"
	MsgInvalidRequest  = "Invalid Request"
	MsgBodyTooLarge    = "Request body too large"
	MsgInternalError   = "Internal server error"
	MsgBatchTooLargeFn = "Batch too large: at most %d messages"
)

// Error is a JSON-RPC error object. The original never sends data;
// revision 2026-07-28 errors may (Data is compact JSON, nil for none).
type Error struct {
	Code    int
	Message string
	Data    []byte
}

// Response is one JSON-RPC response. Result holds the compact JSON text of
// the result, so constant results are encoded once per process.
type Response struct {
	ID     any
	Result []byte
	Err    *Error
	// Challenge, when set, is the WWW-Authenticate value of a tools/call
	// that lacked a scope at a stated revision: a single such response is
	// answered with 403 and this challenge; inside a batch, whose one
	// status covers every element, it is not used.
	Challenge []string
	// RetryAfter, when positive, is sent as Retry-After on a single
	// answer (a call refused by the connection's limit); inside a batch
	// it is not used.
	RetryAfter time.Duration
}

// OverflowID is a numeric id too large for a double, kept as the client
// wrote it (e.g. 1e999). JavaScript reads it as Infinity and the original
// prints null, which no client can match to its request; the gateway
// echoes the text (docs/compatibility.md S22).
type OverflowID string

// MessageID returns the id of msg to echo in its response: the decoded
// value, or the source text of a number that overflowed a double.
func MessageID(msg *jsjson.Object) any {
	id := msg.Value("id")
	if f, ok := id.(float64); ok && math.IsInf(f, 0) {
		if text, ok := msg.OverflowText("id"); ok {
			return OverflowID(text)
		}
	}
	return id
}

// Result is the response carrying result.
func Result(id any, result []byte) *Response { return &Response{ID: id, Result: result} }

// Fail is the response carrying the error code and message.
func Fail(id any, code int, message string) *Response {
	return &Response{ID: id, Err: &Error{Code: code, Message: message}}
}

// FailWithData is Fail with data, the value encoded as compact JSON.
func FailWithData(id any, code int, message string, data *jsjson.Object) *Response {
	r := Fail(id, code, message)
	b, err := jsjson.Marshal(data)
	if err != nil { // the callers' data is strings and lists of strings
		panic(err)
	}
	r.Err.Data = b
	return r
}

// MethodNotFound is -32601 for msg's method, printed as the original does.
func MethodNotFound(msg *jsjson.Object) *Response {
	m, present := msg.Get("method")
	return Fail(MessageID(msg), CodeMethodNotFound, "Method not found: "+JSString(m, present))
}

// AppendJSON appends the response as the original's JSON.stringify prints
// it: keys jsonrpc, id, then result or error{code, message}.
func (r *Response) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst, err := r.AppendID(dst)
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		dst = append(dst, `,"error":`...)
		dst = r.Err.appendJSON(dst)
	} else {
		dst = append(dst, `,"result":`...)
		dst = append(dst, r.Result...)
	}
	return append(dst, '}'), nil
}

// AppendID appends the response's id: the request's own text for an id
// that overflows a double, else as JavaScript prints it.
func (r *Response) AppendID(dst []byte) ([]byte, error) {
	if text, ok := r.ID.(OverflowID); ok {
		return append(dst, text...), nil
	}
	return jsjson.AppendCompact(dst, r.ID)
}

func (e *Error) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = jsjson.AppendString(dst, e.Message)
	if e.Data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	return append(dst, '}')
}

// Envelope returns {"jsonrpc":"2.0","id":null,"error":{…}}, the answer to a
// request that failed before or outside method dispatch.
func Envelope(code int, message string) []byte {
	dst := make([]byte, 0, 64+len(message))
	dst = append(dst, `{"jsonrpc":"2.0","id":null,"error":`...)
	dst = (&Error{Code: code, Message: message}).appendJSON(dst)
	return append(dst, '}')
}

// TransportCode is the original's rule for the envelope's code: -32000 for
// a 401, -32603 for every other status (docs/contract/protocol.md A5).
func TransportCode(status int) int {
	if status == 401 {
		return CodeServerError
	}
	return CodeInternalError
}

// ErrorBody returns {"error":"<message>"}, the shape of non-JSON-RPC
// errors (GET, 405, 406).
func ErrorBody(message string) []byte {
	dst := make([]byte, 0, 16+len(message))
	dst = append(dst, `{"error":`...)
	dst = jsjson.AppendString(dst, message)
	return append(dst, '}')
}
