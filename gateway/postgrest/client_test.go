package postgrest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// hc is the client every test sends through: a plain http.Client, with
// timeout as its Timeout.
func hc(timeout time.Duration) *http.Client { return &http.Client{Timeout: timeout} }

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
}

func TestHeaders(t *testing.T) {
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
	// WithBearer returned a copy: the base client still sends none.
	if _, err := c.From("t").Rows(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.got[len(f.got)-1].Auth; got != "" {
		t.Errorf("base client sent Authorization %q", got)
	}
}

func TestMaybeSingle(t *testing.T) {
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
}

func TestErrors(t *testing.T) {
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
}

func TestUnreachableAndBodyLimit(t *testing.T) {
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

// TestClientTimeout: the http.Client's Timeout bounds a request to an
// upstream that never answers and one that stops in the middle of its
// body, and either failure is a transport *Error (Status 0 before the
// headers, the answer's status after them) matching
// context.DeadlineExceeded, which callers turn into "request timed out".
func TestClientTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/half" {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "[")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	for _, tc := range []struct {
		table      string
		wantStatus int
	}{{"hung", 0}, {"half", http.StatusOK}} {
		c, err := New(Options{BaseURL: srv.URL, HTTPClient: hc(100 * time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = c.From(tc.table).Rows(context.Background())
		var pe *Error
		if !errors.As(err, &pe) || pe.Status != tc.wantStatus || pe.Message != "" || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: error %v (%T), want an *Error with status %d matching context.DeadlineExceeded", tc.table, err, err, tc.wantStatus)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: returned after %v", tc.table, d)
		}
	}
}

// TestStripSpace pins the select list's white-space rule: removed outside
// double quotes, kept inside them.
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

// TestRequestURL pins the URL a request goes to for each form of base URL
// and table name: the base's own escaping is kept, a table that needs
// escaping is escaped, the query follows.
func TestRequestURL(t *testing.T) {
	params := [][2]string{{"select", "id,name"}, {"class_id", "eq.1"}}
	tests := []struct {
		base, table string
		params      [][2]string
		want        string
	}{
		{"http://127.0.0.1:54321/rest/v1", "assignments", params, "http://127.0.0.1:54321/rest/v1/assignments?select=id%2Cname&class_id=eq.1"},
		{"http://kong:8000/rest/v1/", "user_roles", nil, "http://kong:8000/rest/v1/user_roles"},
		{"https://xyz.supabase.co/rest/v1", "a.b-c_9", nil, "https://xyz.supabase.co/rest/v1/a.b-c_9"},
		{"http://h/rest%2Fv1", "t", params, "http://h/rest%2Fv1/t?select=id%2Cname&class_id=eq.1"},
		{"http://h/rest%2Fv1", "q?x", nil, "http://h/rest%2Fv1/q%3Fx"},
		{"http://h", "needs escaping", nil, "http://h/needs%20escaping"},
		{"http://user:pw@h/rest/v1", "ü", nil, "http://user:pw@h/rest/v1/%C3%BC"},
	}
	for _, tc := range tests {
		c, err := New(Options{BaseURL: tc.base})
		if err != nil {
			t.Fatalf("New(%q): %v", tc.base, err)
		}
		if got := c.requestURL(tc.table, tc.params); got != tc.want {
			t.Errorf("%s %q: URL %s, want %s", tc.base, tc.table, got, tc.want)
		}
	}
}

// TestReadRPCIsSentAgainOnADeadConnection: a reused keep-alive connection
// that the server closes under the request costs a read-only call nothing
// (net/http sends it again on a new connection, as it does a GET), while
// RPC, which may write, is never sent twice.
func TestReadRPCIsSentAgainOnADeadConnection(t *testing.T) {
	var calls atomic.Int32
	var headers []http.Header
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		if calls.Add(1) == 2 { // the first call after the warm-up: drop it unanswered
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name      string
		call      func(c *Client) (json.RawMessage, error)
		wantErr   bool
		wantCalls int32
	}{
		{"ReadRPC", func(c *Client) (json.RawMessage, error) {
			return c.ReadRPC(context.Background(), "f", map[string]string{"p": "v"})
		}, false, 3},
		{"RPC", func(c *Client) (json.RawMessage, error) {
			return c.RPC(context.Background(), "f", map[string]string{"p": "v"})
		}, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			mu.Lock()
			headers = nil
			mu.Unlock()
			c, err := New(Options{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: &http.Transport{}}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tc.call(c); err != nil { // opens the connection that the next call reuses
				t.Fatal(err)
			}
			out, err := tc.call(c)
			if (err != nil) != tc.wantErr {
				t.Fatalf("second call: %s, %v; want an error: %v", out, err, tc.wantErr)
			}
			if n := calls.Load(); n != tc.wantCalls {
				t.Errorf("the server saw %d requests, want %d", n, tc.wantCalls)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, h := range headers {
				if _, ok := h["Idempotency-Key"]; ok {
					t.Errorf("Idempotency-Key sent on the wire: %q", h["Idempotency-Key"])
				}
			}
		})
	}
}
