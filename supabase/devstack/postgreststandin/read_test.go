package postgreststandin

import (
	"net/http"
	"testing"
)

// TestReads pins selects, embeds, filters, ordering and pagination against
// the transcript in testdata/reads.golden (checked against PostgREST's
// documented behaviour when it was written).
func TestReads(t *testing.T) {
	svc := map[string]string{"Authorization": "Bearer " + token(t, "hs", userClaims("00000000-0000-0000-0000-000000000000"))}
	single := map[string]string{"Accept": "application/vnd.pgrst.object+json"}
	count := map[string]string{"Prefer": "count=exact"}
	cases := []rcase{
		{name: "all columns, types rendered by postgres", target: "/films?order=id.asc"},
		{name: "columns and alias", target: "/films?select=id,name:title,year&id=lte.2&order=id"},
		{name: "cast", target: "/films?select=id,rating::text&id=eq.1"},
		{name: "to-one embed", target: "/films?select=id,title,directors!films_director_id_fkey(name)&id=in.(1,5)&order=id"},
		{name: "ambiguous embed", target: "/films?select=id,directors(name)"},
		{name: "unknown embed", target: "/films?select=id,actors(name)"},
		{name: "unknown embed hint", target: "/films?select=id,directors!nope(name)"},
		{name: "embed by fk column", target: "/films?select=id,co_director_id(name)&id=eq.2"},
		{name: "aliased embeds with hints", target: "/films?select=id,director:directors!director_id(id,name),co:directors!co_director_id(name)&id=eq.2"},
		{name: "to-many embed", target: "/films?select=id,reviews(id,stars)&id=lte.3&order=id"},
		{name: "to-many embed with order limit filter", target: "/films?select=id,reviews(id,stars)&reviews.order=stars.desc&reviews.limit=1&reviews.stars=gte.4&id=lte.2&order=id"},
		{name: "embedded filter through alias", target: "/films?select=id,r:reviews(id)&r.id=eq.2&id=eq.1"},
		{name: "inner to-many drops parents", target: "/films?select=id,reviews!inner(id)&reviews.stars=eq.3&order=id"},
		{name: "inner to-one drops parents", target: "/films?select=id,directors!director_id!inner(name)&directors.name=like.Agn*&order=id"},
		{name: "left to-one null when filtered", target: "/films?select=id,directors!director_id(name)&directors.name=eq.Nobody&id=lte.2&order=id"},
		{name: "one-to-one embed is an object", target: "/films?select=id,posters(url)&id=lte.2&order=id"},
		{name: "reverse one-to-one", target: "/posters?select=url,films(title)"},
		{name: "nested embeds", target: "/reviews?select=id,films(title,directors!director_id(name))&id=eq.3"},
		{name: "star with embed keeps columns first", target: "/posters?select=films(id),*"},
		{name: "embed filter without embed", target: "/films?select=id&reviews.id=eq.1"},
		{name: "filter on embed itself not implemented", target: "/films?select=id,reviews(id)&reviews=not.is.null"},
		{name: "eq neq", target: "/films?select=id&status=eq.draft&id=neq.3"},
		{name: "gt gte lt lte", target: "/films?select=id&year=gt.1962&year=lte.1985&order=id"},
		{name: "like star wildcard", target: "/films?select=id&title=like.*a*&order=id"},
		{name: "ilike", target: "/films?select=id&title=ilike.JEANNE*"},
		{name: "match regex", target: "/films?select=id&title=match.^V&order=id"},
		{name: "imatch literal star in or", target: "/films?select=id&or=(title.imatch.\"\\\\*\",id.eq.1)&order=id"},
		{name: "is null", target: "/films?select=id&rating=is.null"},
		{name: "not is null", target: "/films?select=id&year=not.is.null&order=id.desc"},
		{name: "is true invalid value", target: "/films?select=id&rating=is.maybe"},
		{name: "in with quoted values", target: "/films?select=id&title=in.(Vagabond,\"Untitled \\\"quoted\\\", (draft)*\")&order=id"},
		{name: "not in", target: "/films?select=id&id=not.in.(1,2,3)&order=id"},
		{name: "empty in", target: "/films?select=id&id=in.()"},
		{name: "or with ilike", target: "/films?select=id&or=(title.ilike.*home*,year.lt.1970)&order=id"},
		{name: "or quoted value with comma paren quote star", target: "/films?select=id&or=(title.eq.\"Untitled \\\"quoted\\\", (draft)*\",id.eq.1)&order=id"},
		{name: "or like with literal star pattern", target: "/films?select=id&or=(title.like.*\\\"quoted*)"},
		{name: "nested and inside or", target: "/films?select=id&or=(id.eq.1,and(year.gt.1970,rating.gt.8))&order=id"},
		{name: "not.or", target: "/films?select=id&not.or=(id.eq.1,id.eq.2)&order=id"},
		{name: "and with in and is", target: "/films?select=id&and=(id.in.(1,2,3),rating.not.is.null)&order=id"},
		{name: "malformed or", target: "/films?select=id&or=(id.eq.1"},
		{name: "value without operator is an ignored rpc parameter", target: "/films?select=id&id=equals.1&order=id&limit=1"},
		{name: "unknown operator after not", target: "/films?select=id&id=not.noop.1"},
		{name: "unknown operator on embed path", target: "/films?select=id,reviews(id)&reviews.id=noop.0"},
		{name: "in without list", target: "/films?select=id&id=in.1,2"},
		{name: "negative offset", target: "/films?select=id&offset=-1"},
		{name: "unsupported operator", target: "/films?select=id&tags=cs.{a}"},
		{name: "invalid bigint", target: "/films?select=id&id=eq.undefined"},
		{name: "unknown column", target: "/films?select=id,nope"},
		{name: "unknown table", target: "/nope?select=id"},
		{name: "order asc default nulls last", target: "/films?select=id,year&order=year.asc"},
		{name: "order desc default nulls first", target: "/films?select=id,year&order=year.desc"},
		{name: "order nullslast and second key", target: "/films?select=id,rating&order=rating.desc.nullslast,id.asc"},
		{name: "order malformed", target: "/films?select=id&order=id.sideways"},
		{name: "limit offset", target: "/films?select=id&order=id&limit=2&offset=1"},
		{name: "limit zero", target: "/films?select=id&limit=0"},
		{name: "negative limit", target: "/films?select=id&limit=-1"},
		{name: "fractional limit is ignored", target: "/films?select=id&limit=1.5&order=id"},
		{name: "count exact", target: "/films?select=id&order=id&limit=2", hdr: count},
		{name: "count exact empty", target: "/films?select=id&id=eq.999", hdr: count},
		{name: "count exact all rows", target: "/directors?select=id&order=id", hdr: count},
		{name: "count with offset beyond", target: "/directors?select=id&offset=10", hdr: count},
		{name: "range header", target: "/films?select=id&order=id", hdr: map[string]string{"Range": "1-2"}},
		{name: "singular one row", target: "/films?select=id,title&id=eq.1", hdr: single},
		{name: "singular zero rows", target: "/films?select=id&id=eq.999", hdr: single},
		{name: "singular many rows", target: "/films?select=id", hdr: single},
		{name: "unsupported accept", target: "/films?select=id", hdr: map[string]string{"Accept": "text/csv"}},
		{name: "select parse error", target: "/films?select=id,(title"},
		{name: "spread not implemented", target: "/films?select=id,...directors(name)"},
		{name: "rpc not implemented", target: "/rpc/f"},
		{name: "authenticated read", target: "/films?select=id&id=eq.1", hdr: svc},
		{name: "anon lacks privilege", target: "/notes?select=id"},
		{name: "authenticated lacks privilege", target: "/secrets?select=id", hdr: svc},
	}
	runGolden(t, testHandler, "reads.golden", cases)
}

// TestHead checks that HEAD answers like GET without a body.
func TestHead(t *testing.T) {
	res := do(t, testHandler, http.MethodHead, "/films?select=id&order=id", nil, "", "Content-Range")
	if res.Status != 200 || res.Body != "" || res.Headers["Content-Range"] != "0-4/*" {
		t.Errorf("HEAD = %+v", res)
	}
}
