package jsjson

import "math"

// Truthy is JavaScript's Boolean(v) for a JSON value: false for null,
// false, 0, -0, NaN and "", true for everything else, empty objects and
// arrays included. Values are read as Marshal writes them: a nil *Object
// is null, a nil []any is [] and Go integers are numbers.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case float32:
		return x != 0 && x == x // NaN is the only value unequal to itself
	case int:
		return x != 0
	case int32:
		return x != 0
	case int64:
		return x != 0
	case uint32:
		return x != 0
	case string:
		return x != ""
	case *Object:
		return x != nil
	default:
		return true
	}
}
