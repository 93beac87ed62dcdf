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
	text, err := jsjson.Marshal(tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytesReader(text))
	if err != nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	c := jsonschema.NewCompiler()
	url := fmt.Sprintf("mem://%s.json", tool.Name)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: outputSchema does not compile: %v", tool.Name, err)
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
