package postgreststandin

import (
	"context"
	"testing"
)

// TestWrites pins inserts, updates and deletes. The cases run in order and
// build on each other; the tables they touch are reset afterwards.
func TestWrites(t *testing.T) {
	t.Cleanup(func() {
		ctx := context.Background()
		_, err := testPool.Exec(ctx, `DELETE FROM reviews WHERE id >= 100; DELETE FROM notes WHERE id >= 100; UPDATE notes SET body = 'alice 2' WHERE id = 2;
			DELETE FROM films WHERE id >= 100; UPDATE films SET status = 'draft' WHERE id = 3;
			UPDATE notes SET body = 'alice 1' WHERE id = 1`)
		if err != nil {
			t.Error(err)
		}
	})
	alice := "11111111-1111-1111-1111-111111111111"
	auth := "Bearer " + token(t, "hs", userClaims(alice))
	h := func(kv ...string) map[string]string {
		m := map[string]string{"Authorization": auth, "Content-Type": "application/json"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	rep := "return=representation"
	cases := []rcase{
		{name: "insert object minimal", method: "POST", target: "/reviews", hdr: h(), body: `{"id":100,"film_id":1,"body":"ok","stars":2}`},
		{name: "insert object representation with select and embed", method: "POST", target: "/films?select=id,title,status,directors!director_id(name)",
			hdr: h("Prefer", rep), body: `{"id":100,"title":"Le Bonheur","director_id":1}`},
		{name: "insert array representation", method: "POST", target: "/reviews?select=id,body", hdr: h("Prefer", rep),
			body: `[{"id":101,"film_id":2,"body":"a"},{"id":102,"film_id":2,"body":"b"}]`},
		{name: "insert singular", method: "POST", target: "/notes?select=id,body", hdr: h("Prefer", rep, "Accept", "application/vnd.pgrst.object+json"),
			body: `{"owner":"` + alice + `","body":"alice 3"}`},
		{name: "insert array with quoted columns as postgrest-js sends", method: "POST", target: "/reviews?columns=\"id\",\"film_id\",\"body\"&select=id,body", hdr: h("Prefer", rep),
			body: `[{"id":103,"film_id":2,"body":"x"},{"id":104,"film_id":2}]`},
		{name: "insert array keys must match", method: "POST", target: "/reviews", hdr: h(), body: `[{"id":103,"film_id":2},{"id":104}]`},
		{name: "insert unknown column", method: "POST", target: "/reviews", hdr: h(), body: `{"id":105,"nope":1}`},
		{name: "insert invalid json", method: "POST", target: "/reviews", hdr: h(), body: `{"id":`},
		{name: "insert duplicate key", method: "POST", target: "/reviews", hdr: h(), body: `{"id":1,"film_id":1}`},
		{name: "insert foreign key violation", method: "POST", target: "/reviews", hdr: h(), body: `{"id":106,"film_id":999}`},
		{name: "insert not null violation", method: "POST", target: "/reviews", hdr: h(), body: `{"id":107}`},
		{name: "insert raise P0001", method: "POST", target: "/reviews", hdr: h(), body: `{"id":108,"film_id":1,"body":"forbidden"}`},
		{name: "insert violating RLS", method: "POST", target: "/notes", hdr: h(), body: `{"owner":"22222222-2222-2222-2222-222222222222","body":"x"}`},
		{name: "insert with count", method: "POST", target: "/reviews", hdr: h("Prefer", "return=minimal, count=exact"), body: `[{"id":109,"film_id":1},{"id":110,"film_id":1}]`},
		{name: "update minimal", method: "PATCH", target: "/films?id=eq.3", hdr: h(), body: `{"status":"published"}`},
		{name: "update representation", method: "PATCH", target: "/films?id=eq.3&select=id,status", hdr: h("Prefer", rep), body: `{"status":"archived"}`},
		{name: "update no match representation", method: "PATCH", target: "/films?id=eq.999&select=id", hdr: h("Prefer", rep), body: `{"status":"archived"}`},
		{name: "update with count", method: "PATCH", target: "/reviews?id=in.(109,110)", hdr: h("Prefer", "count=exact"), body: `{"stars":1}`},
		{name: "update RLS limits rows", method: "PATCH", target: "/notes?select=id,body", hdr: h("Prefer", rep), body: `{"body":"mine"}`},
		{name: "delete representation", method: "DELETE", target: "/reviews?id=eq.102&select=id,body", hdr: h("Prefer", rep)},
		{name: "delete minimal with filters", method: "DELETE", target: "/reviews?or=(id.eq.109,id.eq.110)", hdr: h()},
		{name: "anon cannot insert", method: "POST", target: "/films", hdr: map[string]string{"Content-Type": "application/json"}, body: `{"title":"x"}`},
		{name: "put not implemented", method: "PUT", target: "/films?id=eq.1", hdr: h(), body: `{"id":1,"title":"x"}`},
		{name: "upsert not implemented", method: "POST", target: "/reviews", hdr: h("Prefer", "resolution=merge-duplicates"), body: `{"id":1,"film_id":1}`},
		{name: "read after writes", target: "/reviews?select=id,body,stars&id=gte.100&order=id", hdr: h()},
	}
	runGolden(t, testHandler, "writes.golden", cases)
}
