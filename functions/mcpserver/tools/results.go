package tools

// Typed results of the staff tools (the read tools offered only on
// negotiated revisions). Each tool's answer is a Go type from its file;
// typedHandler turns it into the jsjson value the registry serialises, and
// resultschema_test.go holds each tool's declared output schema against its
// type.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// typedHandler adapts a staff tool's typed handler to Handler: the result
// is converted by typedResult, so no answer is assembled by hand. A nil
// pointer result is JSON null.
func typedHandler[T any](f func(context.Context, *Call) (T, error)) Handler {
	return func(ctx context.Context, c *Call) (any, error) {
		v, err := f(ctx, c)
		if err != nil {
			return nil, err
		}
		return typedResult(v)
	}
}

// typedResult converts a typed result to a jsjson value (*jsjson.Object,
// []any, string, float64, bool or nil), object keys in field order.
//
// It follows encoding/json's rules for the types results use (json tags
// with omitempty; exported fields; pointers; json.RawMessage kept as its
// JSON), with two differences that keep today's answers byte for byte: a
// number too large for a double (a database value or argument decoded as
// ±Inf) becomes null, as JSON.stringify writes it, instead of failing; and
// a nil slice is an empty list, since no result has a nullable list.
// Strings are copied unchanged, with no HTML escaping or replacement of
// invalid UTF-8. Maps, whose key order Go does not keep, are refused.
func typedResult(v any) (any, error) {
	return jsValue(reflect.ValueOf(v))
}

// rawMessageType is json.RawMessage, kept as the JSON it holds.
var rawMessageType = reflect.TypeFor[json.RawMessage]()

func jsValue(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	if v.Type() == rawMessageType {
		if v.Len() == 0 {
			return nil, nil
		}
		return jsjson.Decode(v.Bytes())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return jsValue(v.Elem())
	case reflect.Struct:
		return jsStruct(v)
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			e, err := jsValue(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), nil
	}
	return nil, fmt.Errorf("tools: typed result of unsupported type %s", v.Type())
}

func jsStruct(v reflect.Value) (any, error) {
	t := v.Type()
	o := jsjson.NewObject(t.NumField())
	for i := range t.NumField() {
		name, omitEmpty, ok := jsonField(t.Field(i))
		if !ok {
			continue
		}
		f := v.Field(i)
		if omitEmpty && isEmptyValue(f) {
			continue
		}
		e, err := jsValue(f)
		if err != nil {
			return nil, err
		}
		o.Set(name, e)
	}
	return o, nil
}

// isEmptyValue is encoding/json's test for omitempty: false, 0, "", a nil
// pointer or interface, an empty slice, map, array or string.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}

// jsonField is a struct field's JSON name and omitempty option, as
// encoding/json reads its tag; ok is false for a field JSON leaves out
// (unexported or tagged "-"). Embedded structs are not used by results.
func jsonField(f reflect.StructField) (name string, omitEmpty, ok bool) {
	if !f.IsExported() {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for _, o := range strings.Split(opts, ",") {
		omitEmpty = omitEmpty || o == "omitempty"
	}
	return name, omitEmpty, true
}

// decodeTyped reads a jsjson value built by the shared submission code
// into dst, refusing a key dst's type does not have, so a key added there
// cannot be dropped here without a failing test.
func decodeTyped(v any, dst any) error {
	text, err := jsjson.Marshal(v)
	if err != nil {
		return err
	}
	d := json.NewDecoder(strings.NewReader(string(text)))
	d.DisallowUnknownFields()
	return d.Decode(dst)
}

// nullValue is the type of a key that is always null (stdout and stderr of
// a build output): a nil *nullValue.
type nullValue struct{}

// Accessors turning the values of PostgREST rows (and arguments) into the
// fields of typed results. A value of another JSON type than the column's
// reads as the zero value or, for the nullable forms, as null.

// numberOf is v as a number.
func numberOf(v any) float64 {
	f, _ := v.(float64)
	return f
}

// nullableNumber is v as a number, nil when it is not one (null).
func nullableNumber(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

// stringOf is v as a string.
func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// nullableString is v as a string, nil when it is not one (null).
func nullableString(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

// boolOf is v as a boolean.
func boolOf(v any) bool {
	b, _ := v.(bool)
	return b
}
