package tools

import (
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// undefined stands for a JavaScript undefined argument when it is turned
// into query text, as the original's template strings do.
const undefined = "undefined"

// jsString converts an argument to text as JavaScript's String(v) does, the
// way the original interpolates arguments into PostgREST filters.
func jsString(v any, present bool) string {
	if !present {
		return undefined
	}
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return string(jsjson.AppendNumber(nil, x))
	case []any:
		// String([1,2]) is "1,2"; nested values follow the same rule.
		out := make([]byte, 0, 16)
		for i, e := range x {
			if i > 0 {
				out = append(out, ',')
			}
			if e != nil {
				out = append(out, jsString(e, true)...)
			}
		}
		return string(out)
	case *jsjson.Object:
		return "[object Object]"
	default:
		return undefined
	}
}

// arg returns the JavaScript string form of args[name].
func arg(args *jsjson.Object, name string) string {
	v, ok := args.Get(name)
	return jsString(v, ok)
}
