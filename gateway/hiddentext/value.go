package hiddentext

import "github.com/pawtograder/mcp-gateway/gateway/jsjson"

// MarkValue returns v with every character that renders blank or
// reorders text, in every string value, replaced by a visible marker
// (Mark: "[U+202E]"), and how many it replaced. At negotiated
// revisions a model reads student-written text (requests, messages,
// posts, code, test output) with whatever was hidden in it shown, never
// silently; the drop-in path keeps the original's bytes. Keys are the
// tool's own and left alone. v is not changed: an object or array that
// holds a marked string is copied, so a value shared with a cache or
// another answer stays as it was.
func MarkValue(v any) (any, int) {
	switch x := v.(type) {
	case string:
		if n := Count(x); n > 0 {
			return Mark(x), n
		}
	case []any:
		var out []any
		total := 0
		for i, e := range x {
			m, n := MarkValue(e)
			if n == 0 {
				continue
			}
			if out == nil {
				out = append([]any(nil), x...)
			}
			out[i], total = m, total+n
		}
		if out != nil {
			return out, total
		}
	case *jsjson.Object:
		if x == nil {
			return v, 0
		}
		var out *jsjson.Object
		total := 0
		for _, k := range x.Keys() {
			m, n := MarkValue(x.Value(k))
			if n == 0 {
				continue
			}
			if out == nil {
				out = copyObject(x)
			}
			out.Set(k, m)
			total += n
		}
		if out != nil {
			return out, total
		}
	}
	return v, 0
}

// copyObject is a shallow copy of o, in o's key order.
func copyObject(o *jsjson.Object) *jsjson.Object {
	c := jsjson.NewObject(o.Len())
	for _, k := range o.Keys() {
		c.Set(k, o.Value(k))
	}
	return c
}
