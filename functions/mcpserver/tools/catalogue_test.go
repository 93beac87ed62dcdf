package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// TestCatalogue pins tools/list byte for byte. The golden file was written
// by hand from the contract's catalogue (docs/contract/tools.md §3), not generated
// from the code, so -update does not touch it: a difference is either a
// declaration bug or a deliberate change that must edit both.
func TestCatalogue(t *testing.T) {
	want, err := os.ReadFile("testdata/golden/catalogue/tools_list.json")
	if err != nil {
		t.Fatal(err)
	}
	reg := New(Options{})
	list := make([]any, 0, len(reg.Tools()))
	for _, tool := range reg.Tools() {
		if tool.NegotiatedOnly {
			continue // not the original's
		}
		list = append(list, jsjson.NewObject(3).
			Set("name", tool.Name).
			Set("description", tool.Description).
			Set("inputSchema", tool.InputSchema))
	}
	got, err := jsjson.Marshal(jsjson.NewObject(1).Set("tools", list))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.TrimSuffix(string(want), "\n"), string(got)); diff != "" {
		t.Errorf("tools/list catalogue differs from docs/contract/tools.md §3 (-want +got):\n%s", diff)
		// Per-tool diffs name the offending declaration.
		var w any
		if w, err = jsjson.Decode(want); err == nil {
			wantTools, _ := w.(*jsjson.Object).Array("tools")
			for i, tool := range reg.Tools() {
				if i >= len(wantTools) {
					break
				}
				wt, _ := jsjson.Marshal(wantTools[i])
				gt, _ := jsjson.Marshal(list[i])
				if d := cmp.Diff(string(wt), string(gt)); d != "" {
					t.Errorf("tool %d (%s) (-want +got):\n%s", i+1, tool.Name, d)
				}
			}
		}
	}
}

// TestCatalogueSchemasAreWellFormed checks the shape every input schema
// must have for argument validation to work: an object schema whose
// required names are declared properties with a primitive type.
func TestCatalogueSchemasAreWellFormed(t *testing.T) {
	for _, tool := range New(Options{}).Tools() {
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Scope != ScopeRead {
				t.Errorf("scope = %q, want %q", tool.Scope, ScopeRead)
			}
			if tool.Handler == nil {
				t.Fatal("no handler")
			}
			props, ok := tool.InputSchema.Object("properties")
			if !ok {
				t.Fatal("no properties")
			}
			for _, name := range props.Keys() {
				p, _ := props.Object(name)
				switch typ, _ := p.String("type"); typ {
				case "number", "integer", "string", "boolean":
				default:
					t.Errorf("property %s has type %q", name, typ)
				}
			}
			req, _ := tool.InputSchema.Array("required")
			for _, r := range req {
				if _, ok := props.Get(r.(string)); !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
		})
	}
}

func TestNamesFollowTheCatalogue(t *testing.T) {
	r := New(Options{})
	names := Names()
	if len(names) != len(r.Tools()) {
		t.Fatalf("Names() has %d entries, the registry %d", len(names), len(r.Tools()))
	}
	for i, tool := range r.Tools() {
		if names[i] != tool.Name {
			t.Errorf("Names()[%d] = %q, want %q", i, names[i], tool.Name)
		}
	}
}

// TestEveryWriteToolIsDestructive holds the one decision on destructiveHint
// (docs/directories.md): every write tool is annotated destructive, and no
// read tool is.
func TestEveryWriteToolIsDestructive(t *testing.T) {
	writes := 0
	for _, tool := range New(Options{Approvals: &fakeApprovals{}}).Tools() {
		got := tool.Annotations().Value("destructiveHint")
		if got != tool.Write {
			t.Errorf("%s: destructiveHint %v, want %v", tool.Name, got, tool.Write)
		}
		if tool.Write {
			writes++
		}
	}
	if writes == 0 {
		t.Fatal("no write tools in the catalogue")
	}
}
