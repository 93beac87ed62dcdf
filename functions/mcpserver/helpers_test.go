package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/tools"
	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/goldenfile"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// Bearer values the fake authenticator understands. Anything else is an
// invalid token.
const (
	authGood      = "Bearer mcp_good"        // token A, scope mcp:read
	authOther     = "Bearer mcp_other"       // token B, scope mcp:read
	authUserB     = "Bearer mcp_userb"       // token E of another user, scope mcp:read
	authNoScope   = "Bearer mcp_noscope"     // no scopes at all
	authCLIOnly   = "Bearer mcp_clionly"     // scope cli:read only
	authRevoked   = "Bearer mcp_revoked"     // 401, revoked
	authForbidden = "Bearer mcp_forbidden"   // 403, not staff
	authConfig    = "Bearer mcp_config"      // 500, misconfigured
	authDown      = "Bearer mcp_down"        // 503, revocation look-up failed
	authPlainErr  = "Bearer mcp_plain"       // a non-apierror error
	authNoUser    = "Bearer mcp_nouser"      // ForUser fails
	authBad       = "Bearer mcp_invalid"     // 401 invalid token
	authSecret    = "Bearer mcp_secret_1234" // valid; used to check logs never carry it
)

// fakeAuth is a deterministic Authenticator keyed by the header value.
type fakeAuth struct {
	calls   atomic.Int64
	touches atomic.Int64
}

func (f *fakeAuth) Authenticate(_ context.Context, authorization string) (*mcpauth.Principal, error) {
	f.calls.Add(1)
	read := []string{"mcp:read"}
	switch authorization {
	case "":
		return nil, apierror.Unauthorized(apierror.ReasonMissing, "Missing Authorization header")
	case authGood, authSecret:
		return &mcpauth.Principal{UserID: "user-a", TokenID: "token-a", Scopes: read}, nil
	case authOther:
		return &mcpauth.Principal{UserID: "user-a", TokenID: "token-b", Scopes: read}, nil
	case authUserB:
		return &mcpauth.Principal{UserID: "user-b", TokenID: "token-e", Scopes: read}, nil
	case authNoScope:
		return &mcpauth.Principal{UserID: "user-a", TokenID: "token-c", Scopes: []string{}}, nil
	case authCLIOnly:
		return &mcpauth.Principal{UserID: "user-a", TokenID: "token-f", Scopes: []string{"cli:read"}}, nil
	case authRevoked:
		return nil, apierror.Unauthorized(apierror.ReasonRevoked, "API token has been revoked")
	case authNoUser:
		return &mcpauth.Principal{UserID: "no-such-user", TokenID: "token-d", Scopes: read}, nil
	case authForbidden:
		return nil, apierror.New(http.StatusForbidden, apierror.ReasonForbidden, "User must be an instructor or grader in at least one class")
	case authConfig:
		return nil, apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, "MCP_JWT_SECRET must be set and at least 32 characters")
	case authDown:
		return nil, apierror.New(http.StatusServiceUnavailable, apierror.ReasonUpstream, "Could not verify token revocation status: connection refused")
	case authPlainErr:
		return nil, errors.New("boom: internal detail")
	}
	if !strings.HasPrefix(authorization, "Bearer ") {
		return nil, apierror.Unauthorized(apierror.ReasonMalformed, "Invalid Authorization header format")
	}
	return nil, apierror.Unauthorized(apierror.ReasonInvalid, "Invalid or expired API token")
}

func (f *fakeAuth) TouchLastUsed(*mcpauth.Principal) { f.touches.Add(1) }

// fakeUsers returns clients against a PostgREST that answers every read
// with an empty list, and fails for the user "no-such-user".
type fakeUsers struct{ base *postgrest.Client }

func (f *fakeUsers) ForUser(_ context.Context, userID string) (*userclient.Client, error) {
	if userID == "no-such-user" {
		return nil, apierror.Internal("JWT_SECRET must be set. Generate with: supabase gen signing-key --algorithm ES256", nil)
	}
	return userclient.NewClient(f.base, userID, "user-jwt"), nil
}

// lockedBuffer collects log output from concurrent handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// messages returns the msg field of every JSON log line.
func (l *lockedBuffer) messages(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var rec struct{ Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec.Msg)
	}
	return out
}

type testEnv struct {
	srv  *Server
	e    *echo.Echo
	auth *fakeAuth
	logs *lockedBuffer
	// restHits counts the requests the fake PostgREST answered.
	restHits atomic.Int64
}

// newTestEnv builds a Server with fakes and mounts it where the gateway does.
func newTestEnv(t testing.TB, mod func(*Options)) *testEnv {
	t.Helper()
	env := &testEnv{auth: &fakeAuth{}, logs: &lockedBuffer{}}
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env.restHits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.Header.Get("Accept"), "vnd.pgrst.object") {
			// PostgREST's answer to a singular request with no row.
			w.WriteHeader(http.StatusNotAcceptable)
			_, _ = io.WriteString(w, `{"code":"PGRST116","details":"The result contains 0 rows","hint":null,"message":"JSON object requested, multiple (or no) rows returned"}`)
			return
		}
		_, _ = io.WriteString(w, "[]")
	}))
	t.Cleanup(rest.Close)
	// Observe is wired as the gateway wires it, so tool calls count their
	// upstream requests for the audit line.
	base, err := postgrest.New(postgrest.Options{BaseURL: rest.URL + "/rest/v1", APIKey: "anon",
		Observe: func(ctx context.Context, _ string, _ int, _ error) { CountUpstream(ctx) }})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{
		Auth:   env.auth,
		Users:  &fakeUsers{base: base},
		Tools:  tools.New(tools.Options{}),
		Logger: slog.New(slog.NewJSONHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mod != nil {
		mod(&opts)
	}
	env.srv, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	env.e = echo.New()
	env.srv.Register(env.e.Group("/functions/v1/mcp-server"))
	env.srv.Register(env.e.Group("/mcp-server"))
	t.Cleanup(func() {
		if strings.Contains(env.logs.String(), "mcp_secret_1234") {
			t.Error("a bearer token reached the logs")
		}
	})
	return env
}

// do sends one request through the router.
func (env *testEnv) do(method, path string, header map[string]string, body string) *httptest.ResponseRecorder {
	if path == "" {
		path = "/functions/v1/mcp-server"
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	env.e.ServeHTTP(rec, req)
	return rec
}

// wantCORS are the headers every response carries.
var wantCORS = map[string]string{
	"Access-Control-Allow-Origin":   "*",
	"Access-Control-Allow-Headers":  "authorization, x-client-info, apikey, content-type, accept, mcp-session-id, last-event-id, mcp-protocol-version",
	"Access-Control-Allow-Methods":  "GET, POST, DELETE, OPTIONS",
	"Access-Control-Expose-Headers": "WWW-Authenticate",
}

// wantCORSModern are the CORS headers of an answer at 2026-07-28 and of a
// preflight asking for Mcp-Method or Mcp-Name.
var wantCORSModern = map[string]string{
	"Access-Control-Allow-Origin":   "*",
	"Access-Control-Allow-Headers":  "authorization, x-client-info, apikey, content-type, accept, mcp-session-id, last-event-id, mcp-protocol-version, mcp-method, mcp-name",
	"Access-Control-Allow-Methods":  "GET, POST, DELETE, OPTIONS",
	"Access-Control-Expose-Headers": "WWW-Authenticate",
}

// corsFor returns the CORS headers a request with header gets: those of
// 2026-07-28 when its MCP-Protocol-Version says so (and env is not
// pinned), wantCORS otherwise. Preflights are covered by TestCORSPerRevision.
func corsFor(env *testEnv, method string, header map[string]string) map[string]string {
	if method != http.MethodOptions && header[headerProtocolVersion] == "2026-07-28" && !env.srv.pinProtocol {
		return wantCORSModern
	}
	return wantCORS
}

// checkHeaders compares the named headers; an empty want means absent.
func checkHeaders(t testing.TB, got http.Header, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if v == "" {
			if vals := got.Values(k); len(vals) != 0 {
				t.Errorf("header %s = %q, want absent", k, vals)
			}
			continue
		}
		if g := strings.Join(got.Values(k), "|"); g != v {
			t.Errorf("header %s = %q, want %q", k, g, v)
		}
	}
}

// golden compares got with testdata/name (goldenfile, -update).
func golden(t testing.TB, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// listedTool is one entry of a tools/list answer, as the schema tests read it.
type listedTool struct {
	Name         string
	InputSchema  map[string]any
	OutputSchema json.RawMessage
}

// listedTools decodes a tools/list answer, which must list all 16 tools.
func listedTools(t *testing.T, body []byte) []listedTool {
	t.Helper()
	var listed struct {
		Result struct{ Tools []listedTool }
	}
	if err := json.Unmarshal(body, &listed); err != nil || len(listed.Result.Tools) != len(tools.Names()) {
		t.Fatalf("tools/list: %v %s", err, body)
	}
	return listed.Result.Tools
}

// placeholderArgs gives each required argument of an input schema a value
// of its type: a well-formed UUID for strings, 1 for numbers.
func placeholderArgs(inputSchema map[string]any) *jsjson.Object {
	args := jsjson.NewObject(4)
	props, _ := inputSchema["properties"].(map[string]any)
	required, _ := inputSchema["required"].([]any)
	for _, r := range required {
		name := r.(string)
		if p, _ := props[name].(map[string]any); p["type"] == "string" {
			args.Set(name, "00000000-0000-4000-8000-000000000001")
		} else {
			args.Set(name, float64(1))
		}
	}
	return args
}

// initializeAnswer is the whole initialize response at version: from
// 2025-06-18 it declares resources (the skills and the views) and the MCP
// Apps extension to every client, and carries the instructions with their
// pointer to the skills (TestInitializePointsToSkills has the text).
func initializeAnswer(version string, writes bool) string {
	result := `{"protocolVersion":"` + version + `","serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":`
	if !structuredOutput(version) {
		return `{"jsonrpc":"2.0","id":1,"result":` + result + `{"tools":{}}}}`
	}
	caps := `{"tools":{},"resources":{},"extensions":{"io.modelcontextprotocol/ui":{}}}`
	instr := instructions
	if writes {
		instr = writeInstructions
	}
	text, _ := json.Marshal(instr + " " + skillsInstructions(writes, true))
	return `{"jsonrpc":"2.0","id":1,"result":` + result + caps + `,"instructions":` + string(text) + `}}`
}
