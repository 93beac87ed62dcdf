package postgrest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/h1transport"
)

// seen is one request as PostgREST received it.
type seen struct {
	Method, Path, Query string
	APIKey, Auth        string
	Accept, Prefer, CT  string
	Body                string
}

type fake struct {
	mu     sync.Mutex
	got    []seen
	status int
	body   string
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("apikey"), r.Header.Get("Authorization"),
		r.Header.Get("Accept"), r.Header.Get("Prefer"), r.Header.Get("Content-Type"), string(b)})
	status, body := f.status, f.body
	f.mu.Unlock()
	if status == 0 {
		status = 200
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// upstreams are the two ways a Client reaches PostgREST: net/http's
// transport through http.Client, and gateway/h1transport, which takes
// reads from the calling goroutine without http.Client (Client.do).
// Every behaviour test runs on both.
var upstreams = []struct {
	name string
	hc   func(timeout time.Duration) *http.Client
}{
	{"net/http", func(timeout time.Duration) *http.Client { return &http.Client{Timeout: timeout} }},
	{"h1transport", func(timeout time.Duration) *http.Client {
		return &http.Client{Timeout: timeout, Transport: &h1transport.Transport{Fallback: http.DefaultTransport}}
	}},
}

// forEachUpstream runs test once per upstream, as a subtest.
func forEachUpstream(t *testing.T, test func(t *testing.T, hc func(time.Duration) *http.Client)) {
	for _, up := range upstreams {
		t.Run(up.name, func(t *testing.T) { test(t, up.hc) })
	}
}

func newFake(t *testing.T, hc *http.Client, status int, body string) (*fake, *Client) {
	t.Helper()
	f := &fake{status: status, body: body}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL + "/rest/v1/", APIKey: "anon", HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func TestNewValidatesURL(t *testing.T) {
	for _, u := range []string{"", "rest/v1", "ftp://x/rest/v1", "http://", "::"} {
		if _, err := New(Options{BaseURL: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
	if _, err := New(Options{BaseURL: "https://x.supabase.co/rest/v1"}); err != nil {
		t.Errorf("New(https) = %v", err)
	}
}

// TestQueryEncoding pins the request line for each builder method, as
// postgrest-js would send it.
func TestQueryEncoding(t *testing.T) {
	tests := []struct {
		name  string
		build func(q *Query) *Query
		want  string
	}{
		{"select strips white space outside quotes", func(q *Query) *Query {
			return q.Select(" id, name,\n profiles!user_roles_public_profile_id_fkey( name ), \"a b\" ")
		}, `select=id%2Cname%2Cprofiles%21user_roles_public_profile_id_fkey%28name%29%2C%22a+b%22`},
		{"filters keep order and repeat columns", func(q *Query) *Query {
			return q.Gte("score", "1").Lte("score", "9").Eq("disabled", "false").Neq("x", "y").Gt("a", "1").Lt("b", "2")
		}, `score=gte.1&score=lte.9&disabled=eq.false&x=neq.y&a=gt.1&b=lt.2`},
		{"like, ilike, is", func(q *Query) *Query { return q.Like("n", "*a b*").Ilike("m", "%x%").Is("r", "null") },
			`n=like.%2Aa+b%2A&m=ilike.%25x%25&r=is.null`},
		{"in quotes reserved characters", func(q *Query) *Query {
			return q.In("role", []string{"instructor", "grader"}).In("name", []string{"a,b", `q"t`, `b\s`, "(p)", ""})
		}, `role=in.%28instructor%2Cgrader%29&name=in.%28%22a%2Cb%22%2C%22q%5C%22t%22%2C%22b%5C%5Cs%22%2C%22%28p%29%22%2C%22%22%29`},
		{"order merges, no nulls modifier", func(q *Query) *Query {
			return q.Order("created_at", false).Order("id", true).OrderIn("tests", "name", true)
		}, `order=created_at.desc%2Cid.asc&tests.order=name.asc`},
		{"limit, offset, embedded limit, or", func(q *Query) *Query {
			return q.Limit(10).Offset(20).LimitIn("tests", 5).Or("a.eq.1,b.eq.2")
		}, `limit=10&offset=20&tests.limit=5&or=%28a.eq.1%2Cb.eq.2%29`},
	}
	forEachUpstream(t, func(t *testing.T, hc func(time.Duration) *http.Client) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				f, c := newFake(t, hc(0), 200, `[]`)
				if _, err := tc.build(c.From("t")).Rows(context.Background()); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, f.got[0].Query); diff != "" {
					t.Errorf("query (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestHeaders(t *testing.T) {
	forEachUpstream(t, func(t *testing.T, hc func(time.Duration) *http.Client) {
		f, c := newFake(t, hc(0), 200, `{"id":1}`)
		ctx := context.Background()
		user := c.WithBearer("user-jwt")
		if _, err := c.From("t").Select("id").Rows(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := user.From("t").Select("id").Single(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := user.From("t").Insert(ctx, map[string]any{"a": "<&>"}, ReturnSingle); err != nil {
			t.Fatal(err)
		}
		if _, err := user.From("t").Eq("id", "1").Update(ctx, []byte(`{"b":1}`), ReturnMinimal); err != nil {
			t.Fatal(err)
		}
		if _, err := user.From("t").Insert(ctx, json.RawMessage(`[{"c":1}]`), ReturnRows); err != nil {
			t.Fatal(err)
		}
		want := []seen{
			{Method: "GET", Path: "/rest/v1/t", Query: "select=id", APIKey: "anon", Accept: "application/json"},
			{Method: "GET", Path: "/rest/v1/t", Query: "select=id", APIKey: "anon", Auth: "Bearer user-jwt", Accept: "application/vnd.pgrst.object+json"},
			{Method: "POST", Path: "/rest/v1/t", APIKey: "anon", Auth: "Bearer user-jwt", Accept: "application/vnd.pgrst.object+json", Prefer: "return=representation", CT: "application/json", Body: `{"a":"<&>"}`},
			{Method: "PATCH", Path: "/rest/v1/t", Query: "id=eq.1", APIKey: "anon", Auth: "Bearer user-jwt", Accept: "application/json", Prefer: "return=minimal", CT: "application/json", Body: `{"b":1}`},
			{Method: "POST", Path: "/rest/v1/t", APIKey: "anon", Auth: "Bearer user-jwt", Accept: "application/json", Prefer: "return=representation", CT: "application/json", Body: `[{"c":1}]`},
		}
		if diff := cmp.Diff(want, f.got); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		// The headers shared by reads were not written to on the way.
		sharedWant := http.Header{"Accept": {"application/json"}, "Apikey": {"anon"}, "Authorization": {"Bearer user-jwt"}}
		if diff := cmp.Diff(sharedWant, user.readHeader); diff != "" {
			t.Errorf("shared read header after the requests (-want +got):\n%s", diff)
		}
		// WithBearer returned a copy: the base client still sends none.
		if _, err := c.From("t").Rows(ctx); err != nil {
			t.Fatal(err)
		}
		if got := f.got[len(f.got)-1].Auth; got != "" {
			t.Errorf("base client sent Authorization %q", got)
		}
	})
}

func TestMaybeSingle(t *testing.T) {
	forEachUpstream(t, func(t *testing.T, hc func(time.Duration) *http.Client) {
		tests := []struct {
			body     string
			want     string
			wantCode string
		}{
			{`[]`, "", ""},
			{`[{"id":1}]`, `{"id":1}`, ""},
			{`[{"id":1},{"id":2}]`, "", CodeNoRows},
		}
		for _, tc := range tests {
			t.Run(tc.body, func(t *testing.T) {
				_, c := newFake(t, hc(0), 200, tc.body)
				row, err := c.From("t").MaybeSingle(context.Background())
				if tc.wantCode != "" {
					if !IsNoRows(err) {
						t.Fatalf("err = %v, want PGRST116", err)
					}
					if got := err.Error(); got != "JSON object requested, multiple (or no) rows returned" {
						t.Errorf("message = %q", got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if string(row) != tc.want {
					t.Errorf("row = %s, want %s", row, tc.want)
				}
			})
		}
		_, c := newFake(t, hc(0), 200, `{"not":"an array"}`)
		if _, err := c.From("t").MaybeSingle(context.Background()); err == nil {
			t.Error("MaybeSingle accepted a non-array body")
		}
	})
}

func TestErrors(t *testing.T) {
	forEachUpstream(t, func(t *testing.T, hc func(time.Duration) *http.Client) {
		tests := []struct {
			name            string
			status          int
			body            string
			want            Error
			wantMsg         string
			wantUnreachable bool
		}{
			{"PostgREST error", 400, `{"code":"22P02","message":"invalid input syntax for type uuid: \"x\"","details":null,"hint":null}`,
				Error{Table: "t", Status: 400, Code: "22P02", Message: `invalid input syntax for type uuid: "x"`}, `invalid input syntax for type uuid: "x"`, false},
			{"single with no rows", 406, `{"code":"PGRST116","message":"JSON object requested, multiple (or no) rows returned","details":"The result contains 0 rows","hint":null}`,
				Error{Table: "t", Status: 406, Code: "PGRST116", Message: "JSON object requested, multiple (or no) rows returned", Details: "The result contains 0 rows"}, "JSON object requested, multiple (or no) rows returned", false},
			{"JWT expired", 401, `{"code":"PGRST301","message":"JWT expired","details":null,"hint":"h"}`,
				Error{Table: "t", Status: 401, Code: "PGRST301", Message: "JWT expired", Hint: "h"}, "JWT expired", false},
			{"5xx", 503, `{"message":"down"}`, Error{Table: "t", Status: 503, Message: "down"}, "down", true},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, c := newFake(t, hc(0), tc.status, tc.body)
				_, err := c.From("t").Single(context.Background())
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v (%T)", err, err)
				}
				if diff := cmp.Diff(tc.want, *pe); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if pe.Error() != tc.wantMsg || pe.Unreachable() != tc.wantUnreachable {
					t.Errorf("Error() = %q, Unreachable() = %v", pe.Error(), pe.Unreachable())
				}
				if got := IsNoRows(err); got != (tc.want.Code == CodeNoRows) {
					t.Errorf("IsNoRows = %v", got)
				}
			})
		}
		// A body that is not a PostgREST error keeps a truncated copy as cause.
		_, c := newFake(t, hc(0), 502, "<html>"+strings.Repeat("x", 500)+"</html>")
		_, err := c.From("t").Rows(context.Background())
		var pe *Error
		if !errors.As(err, &pe) || pe.Status != 502 || pe.Err == nil || !strings.HasPrefix(pe.Error(), "postgrest: HTTP 502: <html>") || len(pe.Error()) > 250 {
			t.Errorf("HTML error = %#v", err)
		}
	})
}

func TestUnreachableAndBodyLimit(t *testing.T) {
	forEachUpstream(t, func(t *testing.T, hc func(time.Duration) *http.Client) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		var observed []int
		c, _ := New(Options{BaseURL: "http://" + addr + "/rest/v1", HTTPClient: hc(0), Observe: func(_ context.Context, table string, status int, err error) {
			observed = append(observed, status)
		}})
		_, err = c.From("t").Rows(context.Background())
		var pe *Error
		if !errors.As(err, &pe) || pe.Status != 0 || !pe.Unreachable() || pe.Err == nil {
			t.Fatalf("err = %#v", err)
		}
		if diff := cmp.Diff([]int{0}, observed); diff != "" {
			t.Errorf("observed (-want +got):\n%s", diff)
		}

		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "["+strings.Repeat(`{"a":1},`, 100)+`{"a":1}]`)
		}))
		defer srv.Close()
		c, _ = New(Options{BaseURL: srv.URL, MaxBodyBytes: 64, HTTPClient: hc(0)})
		_, err = c.From("t").Rows(context.Background())
		if !errors.Is(err, ErrBodyTooLarge) {
			t.Errorf("err = %v, want ErrBodyTooLarge", err)
		}

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = c.From("t").Rows(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled ctx: err = %v", err)
		}
	})
}

func TestQuoteValue(t *testing.T) {
	tests := map[string]string{"abc": "abc", "": `""`, "a,b": `"a,b"`, `a"b`: `"a\"b"`, `a\b`: `"a\\b"`, "(x)": `"(x)"`, "a b": "a b"}
	for in, want := range tests {
		if got := QuoteValue(in); got != want {
			t.Errorf("QuoteValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParams(t *testing.T) {
	c, _ := New(Options{BaseURL: "http://x/rest/v1"})
	got := c.From("t").Select("a").Eq("b", "1").Params()
	if diff := cmp.Diff([][2]string{{"select", "a"}, {"b", "eq.1"}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestIsEmptyArray(t *testing.T) {
	for body, want := range map[string]bool{
		"[]": true, " [ \n] ": true, "[\t]\r\n": true, "[1]": false, "[": false, "": false, "{}": false,
		"[\u00a0]": false, "null": false, `[""]`: false,
	} {
		if got := isEmptyArray([]byte(body)); got != want {
			t.Errorf("isEmptyArray(%q) = %v, want %v", body, got, want)
		}
	}
}

// TestClientTimeout: the http.Client's Timeout still bounds a request to a
// hung upstream (applied as a context deadline), and the failure is the
// same kind of error: a transport failure matching context.DeadlineExceeded.
func TestClientTimeout(t *testing.T) {
	forEachUpstream(t, func(t *testing.T, hc func(time.Duration) *http.Client) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer srv.Close()
		defer close(release)
		for _, viaClient := range []bool{false, true} {
			hc := hc(100 * time.Millisecond)
			c, err := New(Options{BaseURL: srv.URL, HTTPClient: hc})
			if err != nil {
				t.Fatal(err)
			}
			if viaClient { // the previous behaviour, for comparison: http.Client's own timer
				c.hc, c.timeout = hc, 0
			}
			start := time.Now()
			_, err = c.From("t").Rows(context.Background())
			var pe *Error
			if !errors.As(err, &pe) || pe.Status != 0 || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("viaClient=%v: error %v (%T), want a transport *Error matching context.DeadlineExceeded", viaClient, err, err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("viaClient=%v: returned after %v", viaClient, d)
			}
		}
		if hc := hc(time.Second); true {
			c, _ := New(Options{BaseURL: srv.URL, HTTPClient: hc})
			if c.hc == hc || c.hc.Timeout != 0 || c.timeout != time.Second || hc.Timeout != time.Second {
				t.Errorf("client copy: Timeout %v, applied %v; caller's client changed: %v", c.hc.Timeout, c.timeout, hc.Timeout != time.Second)
			}
		}
	})
}

// countingTransport is h1transport counting which way each request went.
type countingTransport struct {
	h1                 *h1transport.Transport
	fanouts, roundTrip int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.roundTrip++
	return c.h1.RoundTrip(r)
}

func (c *countingTransport) Fanout(reqs []*http.Request, maxBody int64) ([]*http.Response, []error, bool) {
	c.fanouts++
	return c.h1.Fanout(reqs, maxBody)
}

// TestReadsSkipHTTPClient: over a transport that can take them, reads are
// sent without http.Client — so a redirect is an error, not followed —
// while writes, and clients whose http.Client has a Timeout of its own,
// still go through http.Client.
func TestReadsSkipHTTPClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rest/v1/moved" {
			http.Redirect(w, r, "/rest/v1/t", http.StatusFound)
			return
		}
		io.WriteString(w, `[{"id":1}]`)
	}))
	defer srv.Close()
	ct := &countingTransport{h1: &h1transport.Transport{Fallback: http.DefaultTransport}}
	c, err := New(Options{BaseURL: srv.URL + "/rest/v1", HTTPClient: &http.Client{Transport: ct}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		name                string
		run                 func() ([]byte, error)
		want                string
		fanouts, roundTrips int
	}{
		{"Rows", func() ([]byte, error) { return c.From("t").Rows(ctx) }, `[{"id":1}]`, 1, 0},
		{"Single", func() ([]byte, error) { return c.From("t").Single(ctx) }, `[{"id":1}]`, 2, 0},
		{"redirect", func() ([]byte, error) { return c.From("moved").Rows(ctx) }, "error postgrest: HTTP 302: ", 3, 0},
		{"Insert", func() ([]byte, error) { return c.From("t").Insert(ctx, map[string]any{"a": 1}, ReturnRows) }, `[{"id":1}]`, 3, 1},
	}
	for _, s := range steps {
		body, err := s.run()
		if got := describe(body, err); !strings.HasPrefix(got, s.want) || (err == nil && got != s.want) {
			t.Errorf("%s: %s, want %s", s.name, got, s.want)
		}
		if ct.fanouts != s.fanouts || ct.roundTrip != s.roundTrips {
			t.Errorf("%s: %d direct sends and %d through http.Client, want %d and %d", s.name, ct.fanouts, ct.roundTrip, s.fanouts, s.roundTrips)
		}
	}
	// A Timeout on the http.Client that New did not see is kept: the
	// request goes through http.Client, which enforces it.
	c.hc = &http.Client{Transport: ct, Timeout: time.Minute}
	if _, err := c.From("t").Rows(ctx); err != nil {
		t.Fatal(err)
	}
	if ct.fanouts != 3 || ct.roundTrip != 2 {
		t.Errorf("with a Timeout: %d direct sends and %d through http.Client, want 3 and 2", ct.fanouts, ct.roundTrip)
	}
}

// TestReadRequestIsNewRequest: a read's request, assembled from the parsed
// base URL, is the one http.NewRequest makes from the URL's text, for every
// form of base URL and table name.
func TestReadRequestIsNewRequest(t *testing.T) {
	bases := []string{
		"http://127.0.0.1:54321/rest/v1",
		"http://kong:8000/rest/v1/",
		"https://xyz.supabase.co/rest/v1",
		"http://Example.COM:/rest/v1", // an empty port, dropped from Host
		"http://h/rest%2Fv1",          // an escaped base path
		"http://h",
		"http://user:pw@h/rest/v1",
	}
	tables := []string{"assignments", "user_roles", "a.b-c_9", "needs escaping", "q?x", "ü"}
	params := [][2]string{{"select", "id,name"}, {"class_id", "eq.1"}, {"name", "in.(\"a b\")"}}
	for _, base := range bases {
		c, err := New(Options{BaseURL: base, APIKey: "anon"})
		if err != nil {
			t.Fatalf("New(%q): %v", base, err)
		}
		c = c.WithBearer("jwt")
		for _, table := range tables {
			for _, ps := range [][][2]string{nil, params} {
				ctx := context.Background()
				got, err := c.newRequest(ctx, http.MethodGet, table, ps, nil, nil)
				if err != nil {
					t.Fatalf("%s %s: %v", base, table, err)
				}
				// A read without headers of its own shares the client's.
				wantShared := http.Header{"Accept": {"application/json"}, "Apikey": {"anon"}, "Authorization": {"Bearer jwt"}}
				if diff := cmp.Diff(wantShared, got.Header); diff != "" {
					t.Errorf("%s %q: shared header (-want +got):\n%s", base, table, diff)
				}
				if again, _ := c.newRequest(ctx, http.MethodGet, table, ps, nil, nil); reflect.ValueOf(again.Header).UnsafePointer() != reflect.ValueOf(got.Header).UnsafePointer() {
					t.Errorf("%s %q: two reads built two headers, want one shared", base, table)
				}
				got, err = c.newRequest(ctx, http.MethodGet, table, ps, http.Header{"Prefer": {"count=exact"}}, nil)
				if err != nil {
					t.Fatalf("%s %s: %v", base, table, err)
				}
				want, err := http.NewRequestWithContext(ctx, http.MethodGet, c.requestURL(table, ps), nil)
				if err != nil {
					t.Fatal(err)
				}
				gotURL, wantURL := got.URL.String(), want.URL.String()
				if gotURL != wantURL || got.URL.RequestURI() != want.URL.RequestURI() || got.Host != want.Host ||
					got.Method != want.Method || got.Proto != want.Proto || got.ProtoMajor != want.ProtoMajor ||
					got.ProtoMinor != want.ProtoMinor || got.Body != nil || got.ContentLength != 0 || got.Context() != ctx {
					t.Errorf("%s %q: got %s %s Host %q %s, want %s %s Host %q %s", base, table,
						got.Method, gotURL, got.Host, got.Proto, want.Method, wantURL, want.Host, want.Proto)
				}
				wantHeader := http.Header{"Prefer": {"count=exact"}, "Accept": {"application/json"}, "Apikey": {"anon"}, "Authorization": {"Bearer jwt"}}
				if diff := cmp.Diff(wantHeader, got.Header); diff != "" {
					t.Errorf("%s %q: header (-want +got):\n%s", base, table, diff)
				}
			}
		}
	}
}

// TestAppendQueryEscape: the parameter encoding is url.QueryEscape's, byte
// for byte, for every single byte and for random strings of them.
func TestAppendQueryEscape(t *testing.T) {
	inputs := []string{"", "select", "id,name", "a b", "in.(\"a,b\")", "é😀", "\x00\xff", "100%", "a+b=c&d"}
	for c := range 256 {
		inputs = append(inputs, string([]byte{byte(c)}))
	}
	r := rand.New(rand.NewPCG(7, 17))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		if got, want := string(appendQueryEscape([]byte("x="), in)), "x="+url.QueryEscape(in); got != want {
			t.Fatalf("appendQueryEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStripSpace pins the select list's white-space rule on both paths.
func TestStripSpace(t *testing.T) {
	for in, want := range map[string]string{
		"id,name":             "id,name",
		"":                    "",
		" id, name ":          "id,name",
		"a,\"b c\",\td\r\n,e": "a,\"b c\",d,e",
		"\"x y\"":             "\"x y\"",
		"é, ü":                "é,ü",
	} {
		if got := stripSpace(in); got != want {
			t.Errorf("stripSpace(%q) = %q, want %q", in, got, want)
		}
	}
}
