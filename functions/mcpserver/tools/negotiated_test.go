package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// negotiatedFields are the fields the original's tools add at negotiated
// revisions (docs/compatibility.md S31): per tool, the list that holds
// them and the fields of its items.
var negotiatedFields = map[string]struct {
	list   string
	fields []string
}{
	"get_help_request":      {"messages", []string{"instructors_only", "is_caller"}},
	"list_submission_tests": {"tests", []string{"is_released"}},
}

// callToolNegotiated is callToolWith for a call at a negotiated revision
// (WithNegotiated).
func callToolNegotiated(t testing.TB, reg *Registry, db *userclient.Client, name, argsJSON string) string {
	t.Helper()
	res, err := callNegotiated(reg, db, name, argsJSON)
	if err != nil {
		t.Fatalf("%s(%s) at a negotiated revision: %v", name, argsJSON, err)
	}
	text, err := jsjson.MarshalIndent(res)
	if err != nil {
		t.Fatalf("%s(%s): marshal: %v", name, argsJSON, err)
	}
	return string(text)
}

// callNegotiated runs one call at a negotiated revision and returns the
// registry's answer as it is.
func callNegotiated(reg *Registry, db *userclient.Client, name, argsJSON string) (any, error) {
	v, err := jsjson.Decode([]byte(argsJSON))
	if err != nil {
		return nil, err
	}
	args, ok := v.(*jsjson.Object)
	if !ok {
		return nil, errors.New("test arguments are not an object")
	}
	ctx, cancel := context.WithTimeout(WithNegotiated(context.Background()), time.Minute)
	defer cancel()
	return reg.Call(ctx, db, []string{ScopeRead}, name, args)
}

// toolJSONNegotiated is toolJSON at a negotiated revision.
func toolJSONNegotiated(t *testing.T, user, tool, args string) any {
	t.Helper()
	db, _ := clientFor(t, user)
	text := callToolNegotiated(t, New(Options{}), db, tool, args)
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s(%s) answered text that is not JSON: %v\n%s", tool, args, err, text)
	}
	return v
}

// withoutNegotiatedFields returns the text of a negotiated answer of tool
// with the fields S31 adds taken out: what the drop-in path answers.
func withoutNegotiatedFields(t testing.TB, tool, text string) string {
	t.Helper()
	nf, ok := negotiatedFields[tool]
	if !ok {
		return text
	}
	v, err := jsjson.Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := v.(*jsjson.Object); o != nil {
		items, _ := o.Array(nf.list)
		for _, it := range items {
			item, _ := it.(*jsjson.Object)
			for _, f := range nf.fields {
				if _, present := item.Get(f); !present {
					t.Errorf("%s: an item of %s has no %s at a negotiated revision", tool, nf.list, f)
				}
				item.Delete(f)
			}
		}
	}
	out, err := jsjson.MarshalIndent(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestNegotiatedFieldsOnly: the answer at a negotiated revision is the
// drop-in answer, byte for byte, plus the fields of S31 and nothing else;
// the drop-in answer has none of them (its bytes are the goldens').
func TestNegotiatedFieldsOnly(t *testing.T) {
	for _, tc := range []struct{ tool, user, args string }{
		{"get_help_request", userAlice, `{"help_request_id":1,"class_id":1}`},
		{"get_help_request", userSam, `{"help_request_id":1,"class_id":1}`},
		{"get_help_request", userTara, `{"help_request_id":6,"class_id":2}`},
		{"list_submission_tests", userAlice, `{"submission_id":2,"class_id":1}`},
		{"list_submission_tests", userSam, `{"submission_id":2,"class_id":1,"only_failed":true}`},
	} {
		t.Run(tc.tool+" "+tc.user+" "+tc.args, func(t *testing.T) {
			db, _ := clientFor(t, tc.user)
			dropIn := callTool(t, db, tc.tool, tc.args)
			negotiated := callToolNegotiated(t, New(Options{}), db, tc.tool, tc.args)
			if got := withoutNegotiatedFields(t, tc.tool, negotiated); got != dropIn {
				t.Errorf("negotiated answer without its added fields differs from the drop-in answer:\n%s\nwant\n%s", got, dropIn)
			}
			for _, f := range negotiatedFields[tc.tool].fields {
				if strings.Contains(dropIn, `"`+f+`"`) {
					t.Errorf("the drop-in answer carries %s", f)
				}
			}
		})
	}
}

// TestOutputSchemasRequireNegotiatedFields: each field S31 adds is
// required by its tool's declared outputSchema (both forms), so an answer
// missing it would fail the seeded schema tests.
func TestOutputSchemasRequireNegotiatedFields(t *testing.T) {
	reg := New(Options{})
	cases := map[string]struct{ user, args string }{
		"get_help_request":      {userAlice, `{"help_request_id":1,"class_id":1}`},
		"list_submission_tests": {userAlice, `{"submission_id":2,"class_id":1}`},
	}
	for tool, nf := range negotiatedFields {
		decl, _ := reg.Lookup(tool)
		schemas := map[string]*jsonschema.Schema{"outputSchema": compileOutputSchema(t, decl), "2026-07-28 outputSchema": compileValueSchema(t, decl)}
		db, _ := clientFor(t, cases[tool].user)
		text := callToolNegotiated(t, reg, db, tool, cases[tool].args)
		for _, f := range nf.fields {
			t.Run(tool+" "+f, func(t *testing.T) {
				v, err := jsjson.Decode([]byte(text))
				if err != nil {
					t.Fatal(err)
				}
				items, _ := v.(*jsjson.Object).Array(nf.list)
				if len(items) == 0 {
					t.Fatalf("no %s to take %s from", nf.list, f)
				}
				items[0].(*jsjson.Object).Delete(f)
				for name, s := range schemas {
					wrapped := any(v)
					if name == "outputSchema" {
						wrapped = StructuredResult(v)
					}
					b, err := jsjson.Marshal(wrapped)
					if err != nil {
						t.Fatal(err)
					}
					inst, err := jsonschema.UnmarshalJSON(bytesReader(b))
					if err != nil {
						t.Fatal(err)
					}
					if s.Validate(inst) == nil {
						t.Errorf("%s accepts an answer whose first item of %s has no %s", name, nf.list, f)
					}
				}
			})
		}
	}
}

// TestHelpRequestCallerProfilesReadFailure: at a negotiated revision, a
// failed read of the caller's own profiles is a ReadFailedError (no message
// could be said not to be the caller's); the drop-in path does not read
// them and answers as the original.
func TestHelpRequestCallerProfilesReadFailure(t *testing.T) {
	env := testEnv(t)
	proxy := gatewaytest.NewFaultProxy(t, strings.TrimSuffix(env.RestURL, "/rest/v1"))
	base, err := postgrest.New(postgrest.Options{BaseURL: proxy.URL + "/rest/v1", APIKey: env.AnonKey})
	if err != nil {
		t.Fatal(err)
	}
	db := userclient.NewClient(base, userAlice, env.SessionToken(t, userAlice))
	callerRoles := func(r *http.Request) bool {
		return r.URL.Path == "/rest/v1/user_roles" && strings.Contains(r.URL.RawQuery, "user_id=eq.")
	}
	const args = `{"help_request_id":1,"class_id":1}`
	for _, fault := range []gatewaytest.Fault{gatewaytest.DropRequest, gatewaytest.ServerError} {
		proxy.Reset()
		proxy.Add(gatewaytest.FaultRule{Match: callerRoles, Fault: fault, Times: 1000})
		v, err := callNegotiated(New(Options{}), db, "get_help_request", args)
		var rf *ReadFailedError
		if !errors.As(err, &rf) || rf.What != "the class's members" {
			t.Errorf("fault %d: answered %v, %v; want the ReadFailedError for the class's members", fault, v, err)
		}
	}
	proxy.Reset()
	proxy.Add(gatewaytest.FaultRule{Match: callerRoles, Fault: gatewaytest.ServerError, Times: 1000})
	dropIn := callTool(t, db, "get_help_request", args)
	proxy.Reset()
	clean, _ := clientFor(t, userAlice)
	if want := callTool(t, clean, "get_help_request", args); dropIn != want {
		t.Errorf("drop-in answer changed under a fault it does not read:\n%s\nwant\n%s", dropIn, want)
	}
}
