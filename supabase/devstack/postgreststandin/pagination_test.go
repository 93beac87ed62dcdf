package postgreststandin

import (
	"net/http"
	"testing"
)

// TestLimitOffsetForms pins every form of limit and offset the way
// PostgREST 12 answers it (ApiRequest.hs getRanges, QueryParams.hs,
// RangeQuery.hs; issue 15 item 9): values are read with Haskell's readMaybe
// at type Integer, so fractions, exponents, '+' and text are ignored (the
// key still counts); the root range is intersected with the Range header's
// [0, ∞), so a negative offset is a no-op; an empty range is 416 PGRST103
// unless it is a limit of zero; max-rows (1000 here) caps the limit; values
// beyond bigint are refused by PostgreSQL (22003).
func TestLimitOffsetForms(t *testing.T) {
	const (
		all      = `[{"id":1}, ` + "\n" + ` {"id":2}, ` + "\n" + ` {"id":3}, ` + "\n" + ` {"id":4}, ` + "\n" + ` {"id":5}]`
		first2   = `[{"id":1}, ` + "\n" + ` {"id":2}]`
		negLimit = `{"code":"PGRST103","details":"Limit should be greater than or equal to zero.","hint":null,"message":"Requested range not satisfiable"}`
	)
	tests := []struct {
		name, query string
		rangeHdr    string
		status      int
		contentRng  string
		body        string
	}{
		{"no limit", "", "", 200, "0-4/*", all},
		{"limit 2", "&limit=2", "", 200, "0-1/*", first2},
		{"fraction is ignored", "&limit=2.5", "", 200, "0-4/*", all},
		{"exponent is ignored", "&limit=1e1", "", 200, "0-4/*", all},
		{"text is ignored", "&limit=abc", "", 200, "0-4/*", all},
		{"empty is ignored", "&limit=", "", 200, "0-4/*", all},
		{"plus sign is ignored", "&limit=+2", "", 200, "0-4/*", all},
		{"surrounding white space reads", "&limit= 2 ", "", 200, "0-1/*", first2},
		{"parentheses read", "&limit=(2)", "", 200, "0-1/*", first2},
		{"hexadecimal reads", "&limit=0x2", "", 200, "0-1/*", first2},
		{"octal reads", "&limit=0o2", "", 200, "0-1/*", first2},
		{"leading zeros read", "&limit=002", "", 200, "0-1/*", first2},
		{"zero", "&limit=0", "", 200, "*/*", "[]"},
		{"negative", "&limit=-1", "", 416, "", negLimit},
		{"negative in parentheses", "&limit=(-1)", "", 416, "", negLimit},
		{"beyond bigint is capped by max-rows", "&limit=99999999999999999999", "", 200, "0-4/*", all},
		{"offset 2", "&offset=2", "", 200, "2-4/*", `[{"id":3}, ` + "\n" + ` {"id":4}, ` + "\n" + ` {"id":5}]`},
		{"negative offset is a no-op", "&offset=-1", "", 200, "0-4/*", all},
		{"fractional offset is ignored", "&offset=1.5", "", 200, "0-4/*", all},
		{"negative offset with limit", "&limit=2&offset=-1", "", 200, "0-0/*", `[{"id":1}]`},
		{"ignored limit with offset is a limit of zero", "&limit=2.5&offset=1", "", 200, "*/*", "[]"},
		{"negative limit with offset", "&limit=-1&offset=2", "", 416, "", negLimit},
		{"last offset wins", "&limit=1&offset=1&offset=3", "", 200, "3-3/*", `[{"id":4}]`},
		{"offset beyond bigint", "&offset=99999999999999999999", "", 400, "",
			`{"code":"22003","details":null,"hint":null,"message":"value \"99999999999999999999\" is out of range for type bigint"}`},
		{"Range header intersects limit", "&limit=3", "0-1", 200, "0-1/*", first2},
		{"Range header with a negative offset", "&offset=-3", "1-2", 200, "1-2/*", `[{"id":2}, ` + "\n" + ` {"id":3}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr map[string]string
			if tt.rangeHdr != "" {
				hdr = map[string]string{"Range": tt.rangeHdr}
			}
			res := do(t, testHandler, http.MethodGet, "/films?select=id&order=id"+tt.query, hdr, "", "Content-Range")
			if res.Status != tt.status || res.Body != tt.body || res.Headers["Content-Range"] != tt.contentRng {
				t.Fatalf("got %d %q Content-Range %q\nwant %d %q Content-Range %q",
					res.Status, res.Body, res.Headers["Content-Range"], tt.status, tt.body, tt.contentRng)
			}
		})
	}
}

func TestReadInteger(t *testing.T) {
	for in, want := range map[string]string{
		"5": "5", " 5 ": "5", "-5": "-5", "- 5": "-5", "(5)": "5", "((5))": "5", "( -5 )": "-5",
		"0x1F": "31", "0X1f": "31", "0o17": "15", "-0x10": "-16", "007": "7",
		"99999999999999999999": "99999999999999999999",
		"":                     "", "+5": "", "5.0": "", "1e3": "", "5a": "", "--5": "", "-(5)": "", "0x": "", "0b1": "", "(5": "", "٥": "",
	} {
		n, ok := readInteger(in)
		got := ""
		if ok {
			got = n.String()
		}
		if got != want {
			t.Errorf("readInteger(%q) = %q, want %q", in, got, want)
		}
	}
}
