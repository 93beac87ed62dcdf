package tools

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// TestStaffResultTypesMatchOutputSchemas holds each staff tool's declared
// output schema against the Go type its handler returns (staffTool): every
// field has a property and every property a field, required is exactly
// the fields without omitempty, and each JSON type (nullable where the
// field is a pointer, enum values where the type lists them) agrees.
func TestStaffResultTypesMatchOutputSchemas(t *testing.T) {
	for _, tool := range New(Options{}).Tools() {
		if !tool.NegotiatedOnly || tool.Write {
			continue
		}
		t.Run(tool.Name, func(t *testing.T) {
			if tool.resultType == nil {
				t.Fatalf("%s is a staff tool with no typed result (declare it with staffTool)", tool.Name)
			}
			for _, p := range schemaMismatches(tool.resultType, tool.ValueSchema) {
				t.Errorf("%s: %s", tool.Name, p)
			}
		})
	}
}

// TestSchemaMismatchesFindsDrift checks the checker: each drift between a
// type and a schema is reported, and a matching pair is not.
func TestSchemaMismatchesFindsDrift(t *testing.T) {
	type item struct {
		ID   float64 `json:"id"`
		Note *string `json:"note"`
	}
	type base struct {
		ID     float64          `json:"id"`
		Name   *string          `json:"name"`
		State  autograderState  `json:"state"`
		Items  []item           `json:"items"`
		Count  *int             `json:"count,omitempty"`
		Status helpStatusCounts `json:"status"`
	}
	const schemaText = `{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","state","items","status"],
		"properties":{"id":{"type":"number"},"name":{"$ref":"#/$defs/nstring"},"state":{"enum":["pending","passed","failed"]},
		"items":{"type":"array","items":{"type":"object","required":["id","note"],"properties":{"id":{"type":"number"},"note":{"$ref":"#/$defs/nstring"}},"additionalProperties":false}},
		"count":{"type":"number"},"status":{"type":"object","additionalProperties":{"type":"number"}}},"additionalProperties":false}]}`
	schema := func(edit func(string) string) *jsjson.Object {
		s := mustSchema(edit(schemaText))
		return s.Set("$defs", schemaDefsFor(schemaText))
	}
	same := func(s string) string { return s }
	tests := []struct {
		name   string
		typ    reflect.Type
		schema *jsjson.Object
		want   string // a substring of a problem expected; "" for none
	}{
		{"matching", reflect.TypeFor[*base](), schema(same), ""},
		{"added field", reflect.TypeFor[*struct {
			ID     float64          `json:"id"`
			Name   *string          `json:"name"`
			State  autograderState  `json:"state"`
			Items  []item           `json:"items"`
			Count  *int             `json:"count,omitempty"`
			Status helpStatusCounts `json:"status"`
			Extra  string           `json:"extra"`
		}](), schema(same), "field extra has no property"},
		{"removed field", reflect.TypeFor[*struct {
			ID     float64          `json:"id"`
			State  autograderState  `json:"state"`
			Items  []item           `json:"items"`
			Count  *int             `json:"count,omitempty"`
			Status helpStatusCounts `json:"status"`
		}](), schema(same), "property name has no field"},
		{"required but omitempty", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `"required":["id","name"`, `"required":["id","count","name"`, 1)
		}), "count: required in the schema"},
		{"not required", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `"required":["id","name"`, `"required":["name"`, 1)
		}), "id: not required"},
		{"not nullable", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `"name":{"$ref":"#/$defs/nstring"}`, `"name":{"type":"string"}`, 1)
		}), "name: JSON type [null string], schema [string]"},
		{"nullable result", reflect.TypeFor[base](), schema(same), "JSON type [object], schema [null object]"},
		{"wrong type", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `"id":{"type":"number"},"name"`, `"id":{"type":"string"},"name"`, 1)
		}), "id: JSON type [number], schema [string]"},
		{"nested property", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `"required":["id","note"],"properties":{"id":{"type":"number"},`,
				`"required":["id","note","extra"],"properties":{"id":{"type":"number"},"extra":{"type":"string"},`, 1)
		}), "result.items[]: property extra has no field"},
		{"enum", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `"pending","passed","failed"`, `"pending","passed"`, 1)
		}), "state: enum [passed pending], type lists [failed passed pending]"},
		{"open object", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `,"additionalProperties":false}]}`, `}]}`, 1)
		}), "additionalProperties is not false"},
		{"map values", reflect.TypeFor[*base](), schema(func(s string) string {
			return strings.Replace(s, `"additionalProperties":{"type":"number"}`, `"additionalProperties":{"type":"string"}`, 1)
		}), "status.open: JSON type [number], schema [string]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := schemaMismatches(tc.typ, tc.schema)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case tc.want != "" && !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tc.want) }):
				t.Errorf("problems %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// schemaMismatches compares the Go type t, as typedResult encodes it, with
// root, a value schema whose $defs sit at its root.
func schemaMismatches(t reflect.Type, root *jsjson.Object) []string {
	defs, _ := root.Object("$defs")
	c := &schemaChecker{defs: defs}
	c.check("result", t, false, root)
	return c.problems
}

// schemaChecker walks a Go type and a JSON schema side by side.
type schemaChecker struct {
	defs     *jsjson.Object
	problems []string
}

func (c *schemaChecker) fail(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// enumType is a string type that lists its values.
type enumType interface{ enumValues() []string }

var (
	enumTypeType  = reflect.TypeFor[enumType]()
	nullValuePtr  = reflect.TypeFor[*nullValue]()
	numberKinds   = []reflect.Kind{reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64}
	anySchemaText = "any JSON value"
)

// goTypes is the set of JSON types t encodes as, with t less its pointers;
// omitEmpty drops the first pointer's null (a nil pointer is left out).
func goTypes(t reflect.Type, omitEmpty bool) (types []string, base reflect.Type) {
	if t == nullValuePtr {
		return []string{"null"}, t
	}
	if t == rawMessageType {
		return []string{anySchemaText}, t
	}
	nullable := false
	if omitEmpty && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for t.Kind() == reflect.Pointer {
		nullable, t = true, t.Elem()
	}
	switch {
	case t.Kind() == reflect.String:
		types = []string{"string"}
	case t.Kind() == reflect.Bool:
		types = []string{"boolean"}
	case slices.Contains(numberKinds, t.Kind()):
		types = []string{"number"}
	case t.Kind() == reflect.Slice:
		types = []string{"array"}
	case t.Kind() == reflect.Struct:
		types = []string{"object"}
	default:
		types = []string{"unsupported " + t.String()}
	}
	if nullable {
		types = append(types, "null")
	}
	sort.Strings(types)
	return types, t
}

// schemaShape is what a schema says of a value: its JSON types (nil for
// any value), the schema describing it as an object or array, and its
// enum values.
type schemaShape struct {
	types []string
	node  *jsjson.Object
	enum  []string
}

func (c *schemaChecker) shape(path string, s *jsjson.Object) schemaShape {
	var sh schemaShape
	if ref, ok := s.String("$ref"); ok {
		def, found := c.defs.Object(strings.TrimPrefix(ref, "#/$defs/"))
		if !found {
			c.fail(path, "unknown $ref %s", ref)
			return sh
		}
		return c.shape(path, def)
	}
	if alts, ok := s.Array("anyOf"); ok {
		for _, a := range alts {
			o, _ := a.(*jsjson.Object)
			alt := c.shape(path, o)
			sh.types = append(sh.types, alt.types...)
			sh.enum = append(sh.enum, alt.enum...)
			if alt.node != nil {
				sh.node = alt.node
			}
		}
	}
	var own []string
	switch ty := s.Value("type").(type) {
	case string:
		own = []string{ty}
	case []any:
		for _, e := range ty {
			own = append(own, jsjson.String(e))
		}
	}
	if slices.Contains(own, "object") || slices.Contains(own, "array") {
		sh.node = s
	}
	sh.types = append(sh.types, own...)
	if values, ok := s.Array("enum"); ok {
		for _, v := range values {
			sh.enum = append(sh.enum, jsjson.String(v))
			if _, isString := v.(string); isString {
				sh.types = append(sh.types, "string")
			} else {
				sh.types = append(sh.types, "non-string enum")
			}
		}
	}
	if sh.types == nil {
		sh.types = []string{anySchemaText}
	}
	sort.Strings(sh.types)
	sh.types = slices.Compact(sh.types)
	sort.Strings(sh.enum)
	sh.enum = slices.Compact(sh.enum)
	return sh
}

// check compares the Go type t of the value at path with schema s.
func (c *schemaChecker) check(path string, t reflect.Type, omitEmpty bool, s *jsjson.Object) {
	types, base := goTypes(t, omitEmpty)
	sh := c.shape(path, s)
	if !slices.Equal(types, sh.types) {
		c.fail(path, "JSON type %v, schema %v", types, sh.types)
		return
	}
	if base.Implements(enumTypeType) {
		values := reflect.Zero(base).Interface().(enumType).enumValues()
		values = slices.Sorted(slices.Values(values))
		if !slices.Equal(values, sh.enum) {
			c.fail(path, "enum %v, type lists %v", sh.enum, values)
		}
	}
	switch base.Kind() {
	case reflect.Slice:
		if base == rawMessageType {
			return
		}
		items, _ := sh.node.Object("items")
		c.check(path+"[]", base.Elem(), false, items)
	case reflect.Struct:
		c.checkObject(path, base, sh.node)
	}
}

// checkObject compares struct type t with object schema s: its properties
// (with additionalProperties false), or, when it has none, the schema of
// every member (additionalProperties).
func (c *schemaChecker) checkObject(path string, t reflect.Type, s *jsjson.Object) {
	props, hasProps := s.Object("properties")
	required := map[string]bool{}
	if req, ok := s.Array("required"); ok {
		for _, r := range req {
			required[jsjson.String(r)] = true
		}
	}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, omitEmpty, ok := jsonField(f)
		if f.Anonymous {
			c.fail(path, "embedded field %s: results spell their fields out", f.Name)
			continue
		}
		if !ok {
			continue
		}
		fpath := path + "." + name
		seen[name] = true
		if !hasProps {
			member, isSchema := s.Object("additionalProperties")
			if !isSchema {
				c.fail(path, "object schema with neither properties nor a member schema")
				return
			}
			c.check(fpath, f.Type, omitEmpty, member)
			continue
		}
		prop, ok := props.Object(name)
		if !ok {
			c.fail(path, "field %s has no property", name)
			continue
		}
		if required[name] == omitEmpty {
			if omitEmpty {
				c.fail(fpath, "required in the schema, omitempty in the type")
			} else {
				c.fail(fpath, "not required in the schema, always present in the type")
			}
		}
		c.check(fpath, f.Type, omitEmpty, prop)
	}
	if !hasProps {
		return
	}
	if s.Value("additionalProperties") != false {
		c.fail(path, "additionalProperties is not false")
	}
	for _, k := range props.Keys() {
		if !seen[k] {
			c.fail(path, "property %s has no field", k)
		}
	}
	for k := range required {
		if _, ok := props.Get(k); !ok {
			c.fail(path, "required %s is not a property", k)
		}
	}
}
