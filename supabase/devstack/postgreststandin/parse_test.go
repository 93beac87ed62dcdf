package postgreststandin

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseLogic(t *testing.T) {
	f := func(field, op, val string) logicNode {
		return logicNode{Filter: &filter{Field: field, Op: op, Val: val}}
	}
	tests := []struct {
		in   string
		want *logicTree
	}{
		{`(a.eq.1,b.ilike.*x*)`, &logicTree{Or: true, Children: []logicNode{f("a", "eq", "1"), f("b", "ilike", "*x*")}}},
		{`(a.eq."x,y)z",b.eq."q\"\\")`, &logicTree{Or: true, Children: []logicNode{f("a", "eq", "x,y)z"), f("b", "eq", `q"\`)}}},
		{`(a.eq."unterminated)`, &logicTree{Or: true, Children: []logicNode{f("a", "eq", `"unterminated`)}}},
		{`(a.eq."x"y)`, &logicTree{Or: true, Children: []logicNode{f("a", "eq", `"x"y`)}}},
		{`(a.in.(1,"2,3"),not.and(b.is.null,c.not.eq.{1,2}))`, &logicTree{Or: true, Children: []logicNode{
			{Filter: &filter{Field: "a", Op: "in", List: []string{"1", "2,3"}}},
			{Tree: &logicTree{Not: true, Children: []logicNode{f("b", "is", "NULL"), {Filter: &filter{Field: "c", Op: "eq", Not: true, Val: "{1,2}"}}}}},
		}}},
		{`(a.eq.1`, nil},
		{`a.eq.1`, nil},
		{`(a.zz.1)`, nil},
		{`(a.eq.1))`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseLogicValue(true, false, tt.in)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("parseLogicValue(%q) = %+v, want error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseLogicValue(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseLogicValue(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseSelect(t *testing.T) {
	tests := []struct {
		in   string
		want []selectItem
	}{
		{"id,name:title", []selectItem{{Col: "id"}, {Col: "title", Alias: "name"}}},
		{"*,rel!fk!inner(a,b)", []selectItem{{Star: true}, {Embed: &embedSpec{Name: "rel", Hint: "fk", Inner: true, Items: []selectItem{{Col: "a"}, {Col: "b"}}}}}},
		{"x:rel!left(*),n::text", []selectItem{{Embed: &embedSpec{Name: "rel", Alias: "x", Items: []selectItem{{Star: true}}}}, {Col: "n", Cast: "text"}}},
		{"a, b", []selectItem{{Col: "a"}, {Col: "b"}}},
		{`"weird col"`, []selectItem{{Col: "weird col"}}},
		{"rel()", []selectItem{{Embed: &embedSpec{Name: "rel", Items: []selectItem{}}}}},
		{"a,(", nil},
		{"rel(a", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseSelect(tt.in)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("parseSelect(%q) = %+v, want error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseSelect(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseSelect(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		accept   []string
		singular bool
		status   int
	}{
		{nil, false, 0},
		{[]string{"application/json"}, false, 0},
		{[]string{"application/vnd.pgrst.object+json"}, true, 0},
		{[]string{"application/vnd.pgrst.object+json;q=0.5, application/json"}, false, 0},
		{[]string{"*/*"}, false, 0},
		{[]string{"text/csv"}, false, http.StatusNotAcceptable},
	}
	for _, tt := range tests {
		got, err := negotiate(tt.accept)
		status := 0
		if err != nil {
			status = err.Status
		}
		if got != tt.singular || status != tt.status {
			t.Errorf("negotiate(%q) = %v, %d; want %v, %d", tt.accept, got, status, tt.singular, tt.status)
		}
	}
}

// FuzzParseQuery feeds arbitrary query strings to the parser: it must never
// panic, and every failure must be a PostgREST-style 4xx.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"select=id,rel!fk!inner(a,b)&rel.order=a.desc&rel.limit=1",
		"or=(a.eq.1,and(b.gt.2,c.in.(1,\"2,3\")))&not.and=(d.is.null)",
		"id=in.(1,2,3)&name=ilike.*x*&order=id.desc.nullslast&limit=5&offset=1",
		"select=a:b::text,*&x.y.z=eq.1",
		"or=(a.eq.\"\\\"\\\\\",b.eq.{1,2})",
		"columns=\"a\",b&select=a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseQuery(raw)
		if err != nil {
			if err.Status < 400 || err.Status >= 500 || !strings.HasPrefix(err.Code, "PGRST") {
				t.Fatalf("parseQuery(%q): unexpected error %+v", raw, err)
			}
			if !utf8.Valid(err.body()) {
				t.Fatalf("invalid UTF-8 body")
			}
			return
		}
		if q == nil {
			t.Fatal("nil query without error")
		}
	})
}

// FuzzVerifyToken feeds arbitrary bearer tokens to the verifier: it must
// never panic, and nothing but a correctly signed token may pass.
func FuzzVerifyToken(f *testing.F) {
	f.Add("")
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.")
	f.Add("eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2ln")
	f.Add("eyJhbGciOiJFUzI1NiIsImtpZCI6ImVjLTEifQ.e30.AAAA")
	h := &Handler{cfg: Config{JWTSecret: []byte("fuzz-secret"), AnonRole: "anon", Now: time.Now}}
	f.Fuzz(func(t *testing.T, tok string) {
		res, err := h.verifyToken(context.Background(), tok)
		if err == nil {
			t.Fatalf("verifyToken(%q) accepted an unsigned token: %+v", tok, res)
		}
		if err.Status != http.StatusUnauthorized || (err.Code != "PGRST301" && err.Code != "PGRST303") {
			t.Fatalf("verifyToken(%q): unexpected error %+v", tok, err)
		}
	})
}
