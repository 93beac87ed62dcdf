package jsonrpc

import (
	"math"
	"strconv"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// JSString converts a decoded JSON value (or an absent one) to text as
// JavaScript's String(v) does, which is how the original prints a method
// or tool name inside its messages: absent → "undefined", objects →
// "[object Object]", arrays → their elements joined with ",".
func JSString(v any, present bool) string {
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
