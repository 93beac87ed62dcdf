package mcpserver

import (
	"math"
	"strconv"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// JSON-RPC 2.0 error codes used by the server.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	// codeServerError is what the original answers for any failure inside a
	// method, and for a 401 at the transport level.
	codeServerError = -32000
)

// Messages of the transport errors this server adds (the original answered
// these cases with 500 and a JavaScript exception text).
const (
	msgParseError      = "Parse error"
	msgInvalidRequest  = "Invalid Request"
	msgBodyTooLarge    = "Request body too large"
	msgInternalError   = "Internal server error"
	msgBatchTooLargeFn = "Batch too large: at most %d messages"
)

// rpcError is a JSON-RPC error object. The original never sends data;
// revision 2026-07-28 errors may (data is compact JSON, nil for none).
type rpcError struct {
	code    int
	message string
	data    []byte
}

// response is one JSON-RPC response. result holds the compact JSON text of
// the result so constant results are encoded once per process.
type response struct {
	id     any
	result []byte
	err    *rpcError
	// challenge, when set, is the WWW-Authenticate value of a tools/call
	// that lacked a scope at a stated revision: a single such response is
	// answered with 403 and this challenge (writeResponse); inside a batch,
	// whose one status covers every element, it is not used.
	challenge []string
	// retryAfter, when positive, is sent as Retry-After on a single
	// answer (a call refused by the connection's limit, callhook.go).
	retryAfter time.Duration
}

// overflowID is a numeric id too large for a double, kept as the client
// wrote it (e.g. 1e999). JavaScript reads it as Infinity and the original
// prints null, which no client can match to its request; the gateway
// echoes the text (docs/compatibility.md S22).
type overflowID string

// messageID returns the id of msg to echo in its response: the decoded
// value, or the source text of a number that overflowed a double.
func messageID(msg *jsjson.Object) any {
	id := msg.Value("id")
	if f, ok := id.(float64); ok && math.IsInf(f, 0) {
		if text, ok := msg.OverflowText("id"); ok {
			return overflowID(text)
		}
	}
	return id
}

func resultResponse(id any, result []byte) *response { return &response{id: id, result: result} }

func errorResponse(id any, code int, message string) *response {
	return &response{id: id, err: &rpcError{code: code, message: message}}
}

// appendJSON appends the response as the original's JSON.stringify prints
// it: keys jsonrpc, id, then result or error{code, message}.
func (r *response) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst, err := r.appendID(dst)
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		dst = append(dst, `,"error":`...)
		dst = r.err.appendJSON(dst)
	} else {
		dst = append(dst, `,"result":`...)
		dst = append(dst, r.result...)
	}
	return append(dst, '}'), nil
}

// appendID appends the response's id: the request's own text for an id
// that overflows a double, else as JavaScript prints it.
func (r *response) appendID(dst []byte) ([]byte, error) {
	if text, ok := r.id.(overflowID); ok {
		return append(dst, text...), nil
	}
	return jsjson.AppendCompact(dst, r.id)
}

func (e *rpcError) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.code), 10)
	dst = append(dst, `,"message":`...)
	dst = jsjson.AppendString(dst, e.message)
	if e.data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.data...)
	}
	return append(dst, '}')
}

// envelope returns {"jsonrpc":"2.0","id":null,"error":{…}}, the answer to a
// request that failed before or outside method dispatch.
func envelope(code int, message string) []byte {
	dst := make([]byte, 0, 64+len(message))
	dst = append(dst, `{"jsonrpc":"2.0","id":null,"error":`...)
	dst = (&rpcError{code: code, message: message}).appendJSON(dst)
	return append(dst, '}')
}

// transportCode is the original's rule for the envelope's code: -32000 for
// a 401, -32603 for every other status (docs/contract/protocol.md A5).
func transportCode(status int) int {
	if status == 401 {
		return codeServerError
	}
	return codeInternalError
}

// errorBody returns {"error":"<message>"}, the shape of non-JSON-RPC
// errors (GET, 405, 406).
func errorBody(message string) []byte {
	dst := make([]byte, 0, 16+len(message))
	dst = append(dst, `{"error":`...)
	dst = jsjson.AppendString(dst, message)
	return append(dst, '}')
}

// jsString converts a decoded JSON value (or an absent one) to text as
// JavaScript's String(v) does, which is how the original prints a method
// or tool name inside its messages: absent → "undefined", objects →
// "[object Object]", arrays → their elements joined with ",".
func jsString(v any, present bool) string {
	if !present {
		return "undefined"
	}
	return string(appendJSString(nil, v))
}

func appendJSString(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return append(dst, x...)
	case bool:
		return strconv.AppendBool(dst, x)
	case float64:
		switch {
		case math.IsInf(x, 1):
			return append(dst, "Infinity"...)
		case math.IsInf(x, -1):
			return append(dst, "-Infinity"...)
		}
		return jsjson.AppendNumber(dst, x)
	case []any:
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e != nil { // null and undefined elements print as ""
				dst = appendJSString(dst, e)
			}
		}
		return dst
	default:
		return append(dst, "[object Object]"...)
	}
}
