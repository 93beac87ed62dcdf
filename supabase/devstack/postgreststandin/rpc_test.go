package postgreststandin

import (
	"context"
	"testing"
)

// TestRPC pins calls of functions (POST /rpc/<name>): named arguments cast
// to the argument types, the request's role, every result shape, the
// singular media type, and the errors for unknown functions and SQL
// failures. The cases run in order; the rows they write are reset
// afterwards.
func TestRPC(t *testing.T) {
	t.Cleanup(func() {
		_, err := testPool.Exec(context.Background(), `UPDATE rpc_notes SET body = 'alice 1' WHERE id = 1`)
		if err != nil {
			t.Error(err)
		}
	})
	alice := "11111111-1111-1111-1111-111111111111"
	user := map[string]string{"Authorization": "Bearer " + token(t, "hs", userClaims(alice)), "Content-Type": "application/json"}
	anon := map[string]string{"Content-Type": "application/json"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	object := "application/vnd.pgrst.object+json"
	cases := []rcase{
		{name: "scalar", method: "POST", target: "/rpc/add_them", hdr: anon, body: `{"a":1,"b":2}`},
		{name: "scalar null", method: "POST", target: "/rpc/nothing", hdr: anon, body: `{"x":1}`},
		{name: "argument with a default left out", method: "POST", target: "/rpc/greet", hdr: anon, body: `{"name":"Agnès"}`},
		{name: "argument with a default given", method: "POST", target: "/rpc/greet", hdr: anon, body: `{"name":"Agnès","greeting":"bonjour"}`},
		{name: "array and timestamptz arguments", method: "POST", target: "/rpc/count_items", hdr: anon, body: `{"items":["a","b","c"],"since":"1999-12-31T23:00:00.000Z"}`},
		{name: "setof table rows", method: "POST", target: "/rpc/films_by_status", hdr: anon, body: `{"p_status":"draft"}`},
		{name: "setof no rows", method: "POST", target: "/rpc/films_by_status", hdr: anon, body: `{"p_status":"none"}`},
		{name: "returns table", method: "POST", target: "/rpc/film_years", hdr: anon, body: `{"p_from":1975}`},
		{name: "returns table singular", method: "POST", target: "/rpc/film_years", hdr: with(anon, "Accept", object), body: `{"p_from":2000}`},
		{name: "returns table singular of two rows", method: "POST", target: "/rpc/film_years", hdr: with(anon, "Accept", object), body: `{"p_from":1975}`},
		{name: "one composite value", method: "POST", target: "/rpc/first_film", hdr: anon, body: `{}`},
		{name: "setof scalar", method: "POST", target: "/rpc/film_ids", hdr: anon},
		{name: "runs as the anon role", method: "POST", target: "/rpc/whoami", hdr: anon, body: `{}`},
		{name: "runs as the token's role with its claims", method: "POST", target: "/rpc/whoami", hdr: user, body: `{}`},
		{name: "row-level security applies", method: "POST", target: "/rpc/notes_visible", hdr: user, body: `{}`},
		{name: "void", method: "POST", target: "/rpc/rename_note", hdr: user, body: `{"p_id":1,"p_body":"renamed"}`},
		{name: "void under RLS changes only own rows", method: "POST", target: "/rpc/rename_note", hdr: user, body: `{"p_id":2,"p_body":"renamed"}`},
		{name: "return=minimal does not apply", method: "POST", target: "/rpc/add_them", hdr: with(anon, "Prefer", "return=minimal"), body: `{"a":2,"b":2}`},
		{name: "unique violation is 409", method: "POST", target: "/rpc/add_director", hdr: user, body: `{"p_id":1,"p_name":"x"}`},
		{name: "raise is 400", method: "POST", target: "/rpc/refuse", hdr: anon, body: `{"msg":"no"}`},
		{name: "wrong argument type", method: "POST", target: "/rpc/add_them", hdr: anon, body: `{"a":"x","b":2}`},
		{name: "unknown function", method: "POST", target: "/rpc/nope", hdr: anon, body: `{"a":1}`},
		{name: "unknown function without arguments", method: "POST", target: "/rpc/nope", hdr: anon, body: `{}`},
		{name: "unknown argument", method: "POST", target: "/rpc/add_them", hdr: anon, body: `{"a":1,"c":2}`},
		{name: "missing argument", method: "POST", target: "/rpc/add_them", hdr: anon, body: `{"a":1}`},
		{name: "ambiguous overloads", method: "POST", target: "/rpc/overloaded", hdr: anon, body: `{"a":1}`},
		{name: "one overload matches", method: "POST", target: "/rpc/overloaded", hdr: anon, body: `{"a":1,"b":5}`},
		{name: "no execute privilege for anon is 401", method: "POST", target: "/rpc/staff_only", hdr: anon, body: `{}`},
		{name: "execute privilege for authenticated", method: "POST", target: "/rpc/staff_only", hdr: user, body: `{}`},
		{name: "invalid json", method: "POST", target: "/rpc/add_them", hdr: anon, body: `{"a":`},
		{name: "body not an object", method: "POST", target: "/rpc/add_them", hdr: anon, body: `5`},
		{name: "array body not implemented", method: "POST", target: "/rpc/add_them", hdr: anon, body: `[{"a":1,"b":2}]`},
		{name: "single json argument not implemented", method: "POST", target: "/rpc/takes_json", hdr: anon, body: `{"a":1}`},
		{name: "GET not implemented", target: "/rpc/add_them?a=1&b=2", hdr: anon},
		{name: "query parameters not implemented", method: "POST", target: "/rpc/films_by_status?select=id", hdr: anon, body: `{"p_status":"draft"}`},
		{name: "PATCH not allowed", method: "PATCH", target: "/rpc/add_them", hdr: anon, body: `{"a":1,"b":2}`},
		{name: "nested path", method: "POST", target: "/rpc/add_them/x", hdr: anon, body: `{}`},
		{name: "read after writes", target: "/rpc_notes?select=id,body&order=id", hdr: user},
	}
	runGolden(t, testHandler, "rpc.golden", cases)
}
