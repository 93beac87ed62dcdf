package tools

import (
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// compileOutputSchema compiles a tool's declared outputSchema with a real
// JSON Schema implementation (draft 2020-12).
func compileOutputSchema(t *testing.T, tool *Tool) *jsonschema.Schema {
	t.Helper()
	return compileToolSchema(t, tool.Name, tool.OutputSchema)
}

// compileValueSchema compiles a tool's 2026-07-28 outputSchema (the schema
// of its value itself) as a JSON Schema 2020-12 document.
func compileValueSchema(t *testing.T, tool *Tool) *jsonschema.Schema {
	t.Helper()
	return compileToolSchema(t, tool.Name+".value", tool.ValueSchema)
}

func compileToolSchema(t *testing.T, name string, schema *jsjson.Object) *jsonschema.Schema {
	t.Helper()
	text, err := jsjson.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytesReader(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := fmt.Sprintf("mem://%s.json", name)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: outputSchema does not compile: %v", name, err)
	}
	return s
}

// validateOutput checks a tool's value, wrapped as structuredContent,
// against its declared schema.
func validateOutput(t *testing.T, s *jsonschema.Schema, tool string, v any) {
	t.Helper()
	text, err := jsjson.Marshal(StructuredResult(v))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytesReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s: output does not satisfy its outputSchema: %v\n%s", tool, err, text)
	}
}

// validateValue checks a tool's value, as 2026-07-28's structuredContent,
// against its value schema.
func validateValue(t *testing.T, s *jsonschema.Schema, tool string, v any) {
	t.Helper()
	text, err := jsjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytesReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s: value does not satisfy its 2026-07-28 outputSchema: %v\n%s", tool, err, text)
	}
}

// TestEveryToolDeclaresAValidValueSchema: at 2026-07-28 each tool's
// outputSchema is the schema of its value, with the definitions it uses at
// its root, and it says exactly what the older {"result": …} schema says
// about the value.
func TestEveryToolDeclaresAValidValueSchema(t *testing.T) {
	for _, tool := range New(Options{}).Tools() {
		if tool.ValueSchema == nil {
			t.Errorf("%s declares no value schema", tool.Name)
			continue
		}
		s := compileValueSchema(t, tool)
		inst, _ := jsonschema.UnmarshalJSON(bytesReader([]byte(`"not the right shape"`)))
		if s.Validate(inst) == nil {
			t.Errorf("%s: value schema accepts a bare string", tool.Name)
		}
		props, _ := tool.OutputSchema.Object("properties")
		wrapped, _ := props.Object("result")
		want := jsjson.NewObject(0)
		for _, k := range wrapped.Keys() {
			want.Set(k, wrapped.Value(k))
		}
		if defs, ok := tool.OutputSchema.Object("$defs"); ok {
			want.Set("$defs", defs)
		}
		got, _ := jsjson.Marshal(tool.ValueSchema)
		wantText, _ := jsjson.Marshal(want)
		if string(got) != string(wantText) {
			t.Errorf("%s: value schema\n%s\nwant the wrapped result schema\n%s", tool.Name, got, wantText)
		}
	}
}

func TestEveryToolDeclaresAValidOutputSchema(t *testing.T) {
	r := New(Options{})
	for _, tool := range r.Tools() {
		if tool.OutputSchema == nil {
			t.Errorf("%s declares no outputSchema", tool.Name)
			continue
		}
		s := compileOutputSchema(t, tool)
		if ty, _ := tool.OutputSchema.String("type"); ty != "object" {
			t.Errorf("%s: outputSchema type %q, MCP requires object", tool.Name, ty)
		}
		// A wrong shape must be refused, so the schema is not vacuous.
		text, _ := jsjson.Marshal(jsjson.NewObject(1).Set("result", "not the right shape"))
		inst, _ := jsonschema.UnmarshalJSON(bytesReader(text))
		if s.Validate(inst) == nil {
			t.Errorf("%s: outputSchema accepts a bare string result", tool.Name)
		}
	}
}
