package tools

import (
	"fmt"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// validateArgs checks args against the subset of JSON Schema the catalogue
// uses: required properties and primitive property types. The original runs
// tools with whatever arrives; answering -32602 instead is a documented
// deviation (docs/compatibility.md).
func validateArgs(t *Tool, args *jsjson.Object) error {
	if req, ok := t.InputSchema.Array("required"); ok {
		for _, r := range req {
			name, _ := r.(string)
			if v, present := args.Get(name); !present || v == nil {
				return &InvalidParamsError{Message: fmt.Sprintf("Invalid params: missing required argument '%s' for tool %s", name, t.Name)}
			}
		}
	}
	props, _ := t.InputSchema.Object("properties")
	for _, name := range props.Keys() {
		v, present := args.Get(name)
		if !present || v == nil {
			continue
		}
		p, _ := props.Object(name)
		want, _ := p.String("type")
		if !hasType(v, want) {
			return &InvalidParamsError{Message: fmt.Sprintf("Invalid params: argument '%s' of tool %s must be a %s", name, t.Name, want)}
		}
	}
	return nil
}

func hasType(v any, want string) bool {
	switch want {
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(*jsjson.Object)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	}
	return true
}
