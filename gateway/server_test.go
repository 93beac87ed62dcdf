package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a server.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lines decodes the JSON log lines written so far.
func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func testLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(NewLogHandler(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))), buf
}

// echoFunction answers every method and sub-path with a line describing
// what it received, the way a real function's catch-all routes would.
func echoFunction(slug string) Function {
	return Function{Slug: slug, Register: func(g *echo.Group) {
		h := func(c echo.Context) error {
			return c.String(http.StatusOK, fmt.Sprintf("%s %s %s", slug, c.Request().Method, c.Request().URL.Path))
		}
		g.Any("", h)
		g.Any("/*", h)
	}}
}

func newTestServer(t *testing.T, opts Options) (*Server, *syncBuffer) {
	t.Helper()
	log, buf := testLogger()
	if opts.Logger == nil {
		opts.Logger = log
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, buf
}

type response struct {
	Status      int
	ContentType string
	Body        string
	Header      map[string]string // only the headers a case asks about
}

func do(t *testing.T, h http.Handler, method, target string, body io.Reader, header http.Header, want []string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	r := response{Status: rec.Code, ContentType: rec.Header().Get("Content-Type"), Body: rec.Body.String()}
	for _, k := range want {
		if r.Header == nil {
			r.Header = map[string]string{}
		}
		r.Header[k] = rec.Header().Get(k)
	}
	return r
}

const notFoundBody = `{"code":"NOT_FOUND","message":"Requested function was not found"}`

func TestRouting(t *testing.T) {
	s, _ := newTestServer(t, Options{Functions: []Function{echoFunction("mcp-server"), echoFunction("mcp-tokens")}})
	notFound := response{Status: 404, ContentType: "application/json", Body: notFoundBody, Header: map[string]string{"Sb-Error-Code": "NOT_FOUND"}}
	ok := func(body string) response {
		return response{Status: 200, ContentType: "text/plain; charset=UTF-8", Body: body, Header: map[string]string{"Sb-Error-Code": ""}}
	}
	tests := []struct {
		method, target string
		want           response
	}{
		{"GET", "/functions/v1/mcp-server", ok("mcp-server GET /functions/v1/mcp-server")},
		{"POST", "/functions/v1/mcp-server", ok("mcp-server POST /functions/v1/mcp-server")},
		{"DELETE", "/functions/v1/mcp-tokens", ok("mcp-tokens DELETE /functions/v1/mcp-tokens")},
		{"OPTIONS", "/functions/v1/mcp-tokens/", ok("mcp-tokens OPTIONS /functions/v1/mcp-tokens/")},
		{"PATCH", "/functions/v1/mcp-server/a/b?token=secret", ok("mcp-server PATCH /functions/v1/mcp-server/a/b")},
		{"PUT", "/functions/v1/mcp-server/x", ok("mcp-server PUT /functions/v1/mcp-server/x")},
		// Behind a proxy that strips /functions/v1, as Kong does for the edge runtime.
		{"GET", "/mcp-server", ok("mcp-server GET /functions/v1/mcp-server")},
		{"POST", "/mcp-tokens", ok("mcp-tokens POST /functions/v1/mcp-tokens")},
		{"DELETE", "/mcp-server/sub/path", ok("mcp-server DELETE /functions/v1/mcp-server/sub/path")},
		{"HEAD", "/functions/v1/mcp-server", response{Status: 200, ContentType: "text/plain; charset=UTF-8", Body: "mcp-server HEAD /functions/v1/mcp-server", Header: map[string]string{"Sb-Error-Code": ""}}},
		// Unknown functions, in either form, and paths that name none.
		{"GET", "/functions/v1/mcp-serverx", notFound},
		{"POST", "/functions/v1/cli", notFound},
		{"GET", "/functions/v1/unknown/deeper", notFound},
		{"GET", "/cli", notFound},
		{"DELETE", "/functions/v1/", notFound},
		{"GET", "/functions/v1", notFound},
		{"GET", "/", notFound},
		{"POST", "/functions/v2/mcp-server", notFound},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			got := do(t, s.Handler(), tt.method, tt.target, nil, nil, []string{"Sb-Error-Code"})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.target, diff)
			}
		})
	}
}

// TestUnroutedMethods: a method Echo does not route reaches the Unrouted
// handler of the function the path names, with or without /functions/v1;
// a function without one, and paths outside every function, are left to
// the router.
func TestUnroutedMethods(t *testing.T) {
	withUnrouted := echoFunction("mcp-server")
	withUnrouted.Unrouted = func(c echo.Context) error {
		return c.String(http.StatusMethodNotAllowed, "unrouted "+c.Request().Method+" "+c.Request().URL.Path)
	}
	s, _ := newTestServer(t, Options{Functions: []Function{withUnrouted, echoFunction("mcp-tokens")}})
	for _, tt := range []struct {
		method, target string
		status         int
		body           string
	}{
		{"FOO", "/functions/v1/mcp-server", 405, "unrouted FOO /functions/v1/mcp-server"},
		{"QUERY", "/mcp-server/sub", 405, "unrouted QUERY /functions/v1/mcp-server/sub"},
		{"MKCOL", "/functions/v1/mcp-server/", 405, "unrouted MKCOL /functions/v1/mcp-server/"},
		// Routed methods still go to the routes.
		{"POST", "/mcp-server", 200, "mcp-server POST /functions/v1/mcp-server"},
		{"PROPFIND", "/functions/v1/mcp-server", 200, "mcp-server PROPFIND /functions/v1/mcp-server"},
		// A function without Unrouted, a look-alike slug and no function:
		// the router's own answers.
		{"FOO", "/functions/v1/mcp-tokens", 404, notFoundBody},
		{"FOO", "/functions/v1/mcp-serverx", 404, notFoundBody},
		{"FOO", "/elsewhere", 404, notFoundBody},
	} {
		got := do(t, s.Handler(), tt.method, tt.target, nil, nil, nil)
		if got.Status != tt.status || got.Body != tt.body {
			t.Errorf("%s %s: %d %q, want %d %q", tt.method, tt.target, got.Status, got.Body, tt.status, tt.body)
		}
	}
}

func TestNewRejectsBadFunctions(t *testing.T) {
	reg := func(*echo.Group) {}
	tests := []struct {
		name string
		fns  []Function
		want string
	}{
		{"empty slug", []Function{{Slug: "", Register: reg}}, `gateway: function 0: slug "" must match ^[A-Za-z0-9][A-Za-z0-9_-]*$`},
		{"slash in slug", []Function{{Slug: "a/b", Register: reg}}, `gateway: function 0: slug "a/b" must match ^[A-Za-z0-9][A-Za-z0-9_-]*$`},
		{"reserved", []Function{{Slug: "healthz", Register: reg}}, `gateway: function 0: slug "healthz" is reserved for the gateway's own paths`},
		{"duplicate", []Function{{Slug: "a", Register: reg}, {Slug: "a", Register: reg}}, `gateway: function 1: slug "a" is registered twice`},
		{"nil Register", []Function{{Slug: "a"}}, `gateway: function "a": Register is nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Options{Functions: tt.fns})
			if err == nil || err.Error() != tt.want {
				t.Errorf("New error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestOperations(t *testing.T) {
	failing := func(context.Context) error { return errors.New("PostgREST answered 503") }
	stuck := func(ctx context.Context) error { <-ctx.Done(); time.Sleep(50 * time.Millisecond); return nil }
	tests := []struct {
		name           string
		ready          func(context.Context) error
		method, target string
		want           response
	}{
		{"liveness", failing, "GET", "/healthz", response{200, "application/json", `{"status":"ok"}`, nil}},
		{"readiness without a check", nil, "GET", "/readyz", response{200, "application/json", `{"status":"ok"}`, nil}},
		{"readiness passing", func(context.Context) error { return nil }, "GET", "/readyz", response{200, "application/json", `{"status":"ok"}`, nil}},
		{"readiness failing", failing, "GET", "/readyz", response{503, "application/json", `{"status":"unavailable","reason":"PostgREST answered 503"}`, nil}},
		{"readiness check that ignores its deadline", stuck, "GET", "/readyz", response{503, "application/json", `{"status":"unavailable","reason":"readiness check timed out"}`, nil}},
		{"edge runtime health", failing, "GET", "/_internal/health", response{200, "application/json", `{"message":"ok"}`, nil}},
		{"wrong method is an unknown function, as on the platform", nil, "POST", "/healthz", response{404, "application/json", notFoundBody, nil}},
		{"stripped-prefix probe reaches the same endpoint", nil, "GET", "/healthz?x=1", response{200, "application/json", `{"status":"ok"}`, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, Options{Ready: tt.ready, ReadyTimeout: 100 * time.Millisecond})
			got := do(t, s.Handler(), tt.method, tt.target, nil, nil, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadyzWhileDraining(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	s.draining.Store(true)
	got := do(t, s.Handler(), "GET", "/readyz", nil, nil, nil)
	want := response{503, "application/json", `{"status":"unavailable","reason":"shutting down"}`, nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrorMapping(t *testing.T) {
	handlers := map[string]echo.HandlerFunc{
		"unauthorized": func(c echo.Context) error {
			c.Response().Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource"`)
			c.Response().Header().Set("Access-Control-Allow-Origin", "*")
			return apierror.Unauthorized(apierror.ReasonMissing, "Missing Authorization header")
		},
		"wrapped": func(echo.Context) error {
			return fmt.Errorf("listing: %w", apierror.Internal("Failed to fetch tokens", errors.New("dial tcp 10.0.0.1:5432: refused")))
		},
		"unavailable": func(echo.Context) error {
			return apierror.New(503, apierror.ReasonUpstream, "Authentication is temporarily unavailable: <timeout> & more")
		},
		"echo": func(echo.Context) error { return echo.NewHTTPError(http.StatusTeapot, "short and stout") },
		"echo-nonstring": func(echo.Context) error {
			return echo.NewHTTPError(http.StatusBadRequest, map[string]int{"x": 1})
		},
		"plain": func(echo.Context) error { return errors.New("secret internal detail") },
		"panic": func(echo.Context) error { panic("boom: secret internal detail") },
		"read": func(c echo.Context) error {
			if _, err := io.ReadAll(c.Request().Body); err != nil {
				return err
			}
			return c.NoContent(http.StatusNoContent)
		},
	}
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		for name, h := range handlers {
			g.Any("/"+name, h)
		}
	}}
	s, logs := newTestServer(t, Options{Functions: []Function{fn}, BodyLimit: 10})

	tests := []struct {
		name   string
		method string
		path   string
		body   io.Reader
		header []string
		want   response
	}{
		{"apierror keeps headers set before failing", "POST", "/unauthorized", nil, []string{"Www-Authenticate", "Access-Control-Allow-Origin"},
			response{401, "application/json", `{"error":"Missing Authorization header"}`, map[string]string{
				"Www-Authenticate":            `Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource"`,
				"Access-Control-Allow-Origin": "*",
			}}},
		{"wrapped apierror, cause not serialised", "GET", "/wrapped", nil, nil,
			response{500, "application/json", `{"error":"Failed to fetch tokens"}`, nil}},
		{"message escaped as JSON.stringify does", "GET", "/unavailable", nil, nil,
			response{503, "application/json", `{"error":"Authentication is temporarily unavailable: <timeout> & more"}`, nil}},
		{"echo.HTTPError", "GET", "/echo", nil, nil, response{418, "application/json", `{"error":"short and stout"}`, nil}},
		{"echo.HTTPError with a non-string message", "GET", "/echo-nonstring", nil, nil, response{400, "application/json", `{"error":"Bad Request"}`, nil}},
		{"unknown error is a generic 500", "GET", "/plain", nil, nil, response{500, "application/json", `{"error":"Internal server error"}`, nil}},
		{"panic is a generic 500", "GET", "/panic", nil, nil, response{500, "application/json", `{"error":"Internal server error"}`, nil}},
		{"HEAD error has no body", "HEAD", "/plain", nil, nil, response{500, "", "", nil}},
		{"declared body over the limit", "POST", "/read", strings.NewReader("01234567890"), nil,
			response{413, "application/json", `{"error":"Request body too large"}`, nil}},
		{"undeclared (chunked) body over the limit", "POST", "/read", io.MultiReader(strings.NewReader("0123456"), strings.NewReader("7890")), nil,
			response{413, "application/json", `{"error":"Request body too large"}`, nil}},
		{"body at the limit", "POST", "/read", strings.NewReader("0123456789"), nil, response{204, "", "", nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, s.Handler(), tt.method, "/functions/v1/f"+tt.path, tt.body, nil, tt.header)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	// The panic is logged with its value and stack; causes of 5xx answers
	// are logged; none of it reached a client above.
	var sawPanic, sawCause bool
	for _, l := range logs.lines(t) {
		if l["msg"] == "panic in handler" && l["panic"] == "boom: secret internal detail" && strings.Contains(fmt.Sprint(l["stack"]), "goroutine") {
			sawPanic = true
		}
		if l["msg"] == "request failed" && l["error"] == "dial tcp 10.0.0.1:5432: refused" {
			sawCause = true
		}
	}
	if !sawPanic || !sawCause {
		t.Errorf("logged panic with stack = %v, logged 5xx cause = %v; logs:\n%s", sawPanic, sawCause, logs)
	}
}

func TestRequestIDAndRequestLog(t *testing.T) {
	log, logs := testLogger()
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		g.Any("", func(c echo.Context) error {
			// A function logs with the request context and knows nothing of the gateway.
			log.InfoContext(c.Request().Context(), "inside function")
			return c.String(http.StatusOK, RequestID(c.Request().Context()))
		})
	}}
	s, err := New(Options{Functions: []Function{fn}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}

	long := strings.Repeat("a", 129)
	tests := []struct {
		name     string
		incoming string
		keep     bool
	}{
		{"sane id is honoured", "req-123_abc:XYZ.9", true},
		{"128 characters is the limit", strings.Repeat("b", 128), true},
		{"too long is replaced", long, false},
		{"space is replaced", "a b", false},
		{"newline is replaced", "a\nb", false},
		{"non-ASCII is replaced", "idé", false},
		{"missing is generated", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(logs.lines(t))
			hdr := http.Header{
				"Authorization": {"Bearer mcp_supersecrettoken"},
				"Apikey":        {"anon-key-secret"},
			}
			if tt.incoming != "" {
				hdr[HeaderRequestID] = []string{tt.incoming}
			}
			got := do(t, s.Handler(), "POST", "/functions/v1/f?access_token=querysecret", nil, hdr, []string{HeaderRequestID})
			id := got.Header[HeaderRequestID]
			if tt.keep && id != tt.incoming {
				t.Errorf("X-Request-Id = %q, want the incoming %q", id, tt.incoming)
			}
			if !tt.keep && (len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "") {
				t.Errorf("X-Request-Id = %q, want a generated 32-hex-digit id", id)
			}
			if got.Body != id {
				t.Errorf("context request id = %q, response header = %q", got.Body, id)
			}
			lines := logs.lines(t)[before:]
			var msgs []string
			for _, l := range lines {
				msgs = append(msgs, fmt.Sprint(l["msg"]))
				if l["request_id"] != id {
					t.Errorf("log line %v has request_id %v, want %q", l["msg"], l["request_id"], id)
				}
			}
			if diff := cmp.Diff([]string{"inside function", "request"}, msgs); diff != "" {
				t.Errorf("log lines (-want +got):\n%s", diff)
			}
			req := lines[len(lines)-1]
			delete(req, "time")
			delete(req, "duration_ms")
			wantReq := map[string]any{
				"level": "INFO", "msg": "request", "method": "POST", "path": "/functions/v1/f",
				"function": "f", "status": float64(200), "bytes": float64(len(id)), "request_id": id,
			}
			if diff := cmp.Diff(wantReq, req); diff != "" {
				t.Errorf("request log line (-want +got):\n%s", diff)
			}
		})
	}
	for _, secret := range []string{"supersecrettoken", "anon-key-secret", "querysecret", "Authorization", "Bearer"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("logs contain %q:\n%s", secret, logs)
		}
	}
}

func TestRequestLogSkipsProbesAndRecordsStrippedPaths(t *testing.T) {
	s, logs := newTestServer(t, Options{Functions: []Function{echoFunction("f")}})
	for _, p := range []string{"/healthz", "/readyz", "/_internal/health", "/f/x", "/nope"} {
		do(t, s.Handler(), "GET", p, nil, nil, nil)
	}
	type line struct{ Path, Function string }
	var got []line
	for _, l := range logs.lines(t) {
		if l["msg"] == "request" {
			got = append(got, line{fmt.Sprint(l["path"]), fmt.Sprint(l["function"])})
		}
	}
	want := []line{{"/f/x", "f"}, {"/nope", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request log lines (-want +got):\n%s", diff)
	}
}

func TestFallback(t *testing.T) {
	fallback := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "fallback %s %s?%s rid=%s", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get(HeaderRequestID))
	})
	s, _ := newTestServer(t, Options{Functions: []Function{echoFunction("mcp-server")}, Fallback: fallback})

	hdr := http.Header{HeaderRequestID: {"rid1"}}
	tests := []struct {
		name           string
		method, target string
		want           response
	}{
		{"prefixed unknown function is handed over as sent", "POST", "/functions/v1/cli/x?a=1",
			response{200, "text/plain", "fallback POST /functions/v1/cli/x?a=1 rid=rid1", nil}},
		{"stripped unknown function is handed over as sent", "GET", "/cli",
			response{200, "text/plain", "fallback GET /cli? rid=rid1", nil}},
		{"known functions are not handed over", "GET", "/functions/v1/mcp-server",
			response{200, "text/plain; charset=UTF-8", "mcp-server GET /functions/v1/mcp-server", nil}},
		{"paths naming no function are not handed over", "GET", "/functions/v1/",
			response{404, "application/json", notFoundBody, nil}},
		{"gateway paths are never handed over", "POST", "/healthz",
			response{404, "application/json", notFoundBody, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, s.Handler(), tt.method, tt.target, nil, hdr, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestObserveRequest(t *testing.T) {
	type obs struct {
		Function, Method string
		Status           int
		Stream           bool
	}
	var mu sync.Mutex
	var got []obs
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		g.GET("/stream", func(c echo.Context) error {
			c.Response().Header().Set("Content-Type", "text/event-stream")
			return c.NoContent(http.StatusOK)
		})
		g.POST("", func(echo.Context) error { return apierror.Unauthorized(apierror.ReasonMissing, "no") })
	}}
	s, _ := newTestServer(t, Options{Functions: []Function{fn}, ObserveRequest: func(f, m string, st int, d time.Duration, stream bool) {
		mu.Lock()
		defer mu.Unlock()
		if d < 0 {
			t.Errorf("negative duration %v", d)
		}
		got = append(got, obs{f, m, st, stream})
	}})
	for _, r := range []struct{ m, p string }{{"GET", "/f/stream"}, {"POST", "/functions/v1/f"}, {"GET", "/healthz"}, {"GET", "/nope"}} {
		do(t, s.Handler(), r.m, r.p, nil, nil, nil)
	}
	want := []obs{{"f", "GET", 200, true}, {"f", "POST", 401, false}, {"", "GET", 200, false}, {"", "GET", 404, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
}

func TestReportError(t *testing.T) {
	type report struct {
		Message string
		Tags    map[string]string
	}
	var got []report
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		g.GET("/denied", func(echo.Context) error { return apierror.Unauthorized(apierror.ReasonInvalid, "Invalid token") })
		g.POST("/fault", func(echo.Context) error { return apierror.Internal("Failed to create token", errors.New("db down")) })
		g.GET("/panic", func(echo.Context) error { panic("boom") })
	}}
	s, _ := newTestServer(t, Options{Functions: []Function{fn}, ReportError: func(_ context.Context, err error, tags map[string]string) {
		got = append(got, report{err.Error(), tags})
	}})
	do(t, s.Handler(), "GET", "/functions/v1/f/denied", nil, nil, nil)
	do(t, s.Handler(), "POST", "/f/fault", nil, nil, nil)
	do(t, s.Handler(), "GET", "/functions/v1/f/panic", nil, nil, nil)
	do(t, s.Handler(), "GET", "/functions/v1/nope", nil, nil, nil)
	want := []report{
		{"Failed to create token", map[string]string{"component": "gateway", "function": "f", "method": "POST"}},
		{"Internal server error", map[string]string{"component": "gateway", "function": "f", "method": "GET"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

func TestRunListensOnTheConfiguredAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	s, _ := newTestServer(t, Options{ListenAddr: busy.Addr().String()})
	err = s.Run(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "gateway: listen on "+busy.Addr().String()+": ") {
		t.Errorf("Run on a taken port = %v, want a listen error naming the address", err)
	}

	s2, _ := newTestServer(t, Options{ListenAddr: "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s2.Run(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil after cancellation", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
}
