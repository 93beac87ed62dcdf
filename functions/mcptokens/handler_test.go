package mcptokens

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

var env *gatewaytest.Env

func TestMain(m *testing.M) { gatewaytest.Main(m, &env) }

const testSecret = "test-mcp-jwt-secret-with-at-least-32-chars"

var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type setup struct {
	authURL string
	restURL string
	secret  string
	// mintSecret is the secret Mint signs with; empty: secret. It differs
	// from secret only to reach Mint's failure, since mcpauth.New refuses
	// an unusable secret.
	mintSecret string
	newID      func() string
	logger     *slog.Logger
}

func newServer(t *testing.T, s setup) *echo.Echo {
	t.Helper()
	if s.authURL == "" {
		s.authURL = env.AuthURL
	}
	if s.restURL == "" {
		s.restURL = env.RestURL
	}
	if s.secret == "" {
		s.secret = testSecret
	}
	if s.mintSecret == "" {
		s.mintSecret = s.secret
	}
	restEnv := *env
	restEnv.RestURL = s.restURL
	base := restEnv.AnonREST(t)
	h, err := New(Options{
		Users:      &mcpauth.AuthClient{AuthURL: s.authURL, AnonKey: env.AnonKey},
		ForSession: func(uid, tok string) *userclient.Client { return userclient.NewClient(base, uid, tok) },
		Mint: func(sub string, scopes []string, id string, days float64, now time.Time) (string, error) {
			return mcpauth.MintAPIToken(s.mintSecret, sub, scopes, id, days, now)
		},
		Now:    func() time.Time { return fixedNow },
		NewID:  s.newID,
		Logger: s.logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	h.Register(e.Group("/functions/v1/mcp-tokens"))
	return e
}

type reply struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, e *echo.Echo, method, auth, body string) reply {
	t.Helper()
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	} else {
		rd = strings.NewReader("")
	}
	req := httptest.NewRequest(method, "/functions/v1/mcp-tokens", rd)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return reply{rec.Code, rec.Header(), rec.Body.String()}
}

func bearer(t *testing.T, user string) string { return "Bearer " + env.SessionToken(t, user) }

func TestCORSAndMethods(t *testing.T) {
	e := newServer(t, setup{})
	wantCORS := map[string]string{
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Headers": "authorization, x-client-info, apikey, content-type",
		"Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
	}
	for _, tt := range []struct {
		method, wantBody, wantType string
		wantStatus                 int
	}{
		{http.MethodOptions, "ok", "text/plain;charset=UTF-8", 200},
		{http.MethodPut, `{"error":"Method not allowed"}`, "application/json", 405},
		{http.MethodPatch, `{"error":"Method not allowed"}`, "application/json", 405},
		{http.MethodGet, `{"error":"Missing Authorization header"}`, "application/json", 401},
	} {
		r := do(t, e, tt.method, "", "")
		if r.status != tt.wantStatus || r.body != tt.wantBody || r.header.Get("Content-Type") != tt.wantType {
			t.Errorf("%s: got %d %q %q", tt.method, r.status, r.header.Get("Content-Type"), r.body)
		}
		for k, v := range wantCORS {
			if got := r.header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", tt.method, k, got, v)
			}
		}
	}
}

// TestErrorMatrix covers every status and message of docs/contract/protocol.md B7 that a
// request can provoke against a working stack.
func TestErrorMatrix(t *testing.T) {
	e := newServer(t, setup{})
	alice := bearer(t, gatewaytest.Alice)
	sam := bearer(t, gatewaytest.Sam)
	long := strings.Repeat("x", 101)
	tests := []struct {
		name, method, auth, body string
		status                   int
		want                     string
	}{
		{"list without header", "GET", "", "", 401, `{"error":"Missing Authorization header"}`},
		{"list with garbage token", "GET", "Bearer not-a-jwt", "", 401, `{"error":"Unauthorized"}`},
		{"list with empty bearer", "GET", "Bearer ", "", 401, `{"error":"Unauthorized"}`},
		{"list with lower-case scheme", "GET", strings.Replace(alice, "Bearer", "bearer", 1), "", 401, `{"error":"Unauthorized"}`},
		{"list as student", "GET", sam, "", 403, `{"error":"MCP tokens are only available to instructors and graders"}`},
		{"list as nobody", "GET", bearer(t, gatewaytest.Nora), "", 403, `{"error":"MCP tokens are only available to instructors and graders"}`},
		{"list as disabled grader", "GET", bearer(t, gatewaytest.Dale), "", 403, `{"error":"MCP tokens are only available to instructors and graders"}`},
		{"create as student", "POST", sam, `{"name":"x"}`, 403, `{"error":"MCP tokens are only available to instructors and graders"}`},
		{"create without name", "POST", alice, `{}`, 400, `{"error":"Token name is required"}`},
		{"create blank name", "POST", alice, `{"name":"   "}`, 400, `{"error":"Token name is required"}`},
		{"create long name", "POST", alice, `{"name":"` + long + `"}`, 400, `{"error":"Token name too long"}`},
		{"create bad scopes", "POST", alice, `{"name":"x","scopes":["admin"]}`, 400, `{"error":"Invalid scopes. Valid scopes are: mcp:read, mcp:write, cli:read, cli:write"}`},
		{"create bad days", "POST", alice, `{"name":"x","expires_in_days":400}`, 400, `{"error":"expires_in_days must be between 1 and 365"}`},
		{"create invalid JSON", "POST", alice, `{"name":`, 400, `{"error":"Request body must be valid JSON"}`},
		{"create empty body", "POST", alice, ``, 400, `{"error":"Request body must be valid JSON"}`},
		{"create null body", "POST", alice, `null`, 400, `{"error":"Request body must be a JSON object"}`},
		{"create array body", "POST", alice, `[]`, 400, `{"error":"Request body must be a JSON object"}`},
		{"invalid JSON beats missing auth", "POST", "", `nope`, 400, `{"error":"Request body must be valid JSON"}`},
		{"create without auth", "POST", "", `{"name":"x"}`, 401, `{"error":"Missing Authorization header"}`},
		{"revoke without token_id", "DELETE", alice, `{}`, 400, `{"error":"token_id is required"}`},
		{"revoke numeric token_id", "DELETE", alice, `{"token_id":5}`, 400, `{"error":"token_id is required"}`},
		{"revoke unknown token", "DELETE", alice, `{"token_id":"00000000-0000-4000-8000-000000000000"}`, 404, `{"error":"Token not found"}`},
		{"student may revoke (no staff check)", "DELETE", sam, `{"token_id":"00000000-0000-4000-8000-000000000000"}`, 404, `{"error":"Token not found"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, e, tt.method, tt.auth, tt.body)
			if r.status != tt.status || r.body != tt.want {
				t.Errorf("got %d %s, want %d %s", r.status, r.body, tt.status, tt.want)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

func TestDeletedSessionIsRefused(t *testing.T) {
	stack := env.RequireLocal(t)
	e := newServer(t, setup{})
	tok, session, err := stack.SignIn(context.Background(), gatewaytest.Alice)
	if err != nil {
		t.Fatal(err)
	}
	if r := do(t, e, "GET", "Bearer "+tok, ""); r.status != 200 {
		t.Fatalf("live session: %d %s", r.status, r.body)
	}
	if err := stack.DeleteSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	if r := do(t, e, "GET", "Bearer "+tok, ""); r.status != 401 || r.body != `{"error":"Unauthorized"}` {
		t.Fatalf("signed-out session: %d %s", r.status, r.body)
	}
}

func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestUpstreamFailuresAre503(t *testing.T) {
	alice := bearer(t, gatewaytest.Alice)
	// Auth unreachable.
	e := newServer(t, setup{authURL: deadURL(t) + "/auth/v1"})
	r := do(t, e, "GET", alice, "")
	if r.status != 503 || !strings.HasPrefix(r.body, `{"error":"Authentication is temporarily unavailable: `) {
		t.Errorf("auth down: %d %s", r.status, r.body)
	}
	// Auth failing with a 5xx.
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(`{"message":"An invalid response was received from the upstream server"}`))
	}))
	defer failing.Close()
	e = newServer(t, setup{authURL: failing.URL})
	r = do(t, e, "GET", alice, "")
	if r.status != 503 || r.body != `{"error":"Authentication is temporarily unavailable: An invalid response was received from the upstream server"}` {
		t.Errorf("auth 502: %d %s", r.status, r.body)
	}
	// PostgREST failing the role look-up with a PostgREST error body.
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"code":"PGRST301","details":null,"hint":null,"message":"JWT expired"}`))
	}))
	defer rest.Close()
	e = newServer(t, setup{restURL: rest.URL})
	r = do(t, e, "GET", alice, "")
	if r.status != 503 || r.body != `{"error":"Role lookup is temporarily unavailable: JWT expired (PGRST301)"}` {
		t.Errorf("role lookup: %d %s", r.status, r.body)
	}
}

func TestShortSecretIs500(t *testing.T) {
	e := newServer(t, setup{mintSecret: "too-short"})
	r := do(t, e, "POST", bearer(t, gatewaytest.Alice), `{"name":"x"}`)
	if r.status != 500 || r.body != `{"error":"MCP_JWT_SECRET must be set and at least 32 characters"}` {
		t.Errorf("got %d %s", r.status, r.body)
	}
}

var (
	tsRe = regexp.MustCompile(`"created_at":"[^"]+"`)
)

// TestCreateListRevoke drives the web app's three calls and checks the
// bodies, the ordering of the list and that another user can neither see
// nor revoke the token.
func TestCreateListRevoke(t *testing.T) {
	// Fresh ids each run: a real stack keeps the rows of earlier runs.
	ids := []string{uuid.NewString(), uuid.NewString()}
	next := 0
	e := newServer(t, setup{newID: func() string { id := ids[next]; next++; return id }})
	gary := bearer(t, gatewaytest.Gary)

	r := do(t, e, "POST", gary, `{"name":"  Laptop  ","scopes":["mcp:read","mcp:write"],"expires_in_days":30}`)
	if r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var created struct {
		Token    string `json:"token"`
		Metadata struct {
			ID string `json:"id"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(r.body), &created); err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(r.body, created.Token, "TOKEN", 1)
	body = strings.Replace(body, created.Metadata.ID, "ROW", 1)
	body = tsRe.ReplaceAllString(body, `"created_at":"T"`)
	want := `{"token":"TOKEN","metadata":{"id":"ROW","name":"Laptop","scopes":["mcp:read","mcp:write"],"expires_at":"2026-03-31T12:00:00+00:00","created_at":"T"},"message":"Token created successfully. Save this token - it will only be shown once!"}`
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("create body (-want +got):\n%s", diff)
	}
	claims, err := mcpauth.VerifyAPIToken(testSecret, created.Token, fixedNow)
	if err != nil {
		t.Fatalf("issued token does not verify: %v", err)
	}
	if claims.Subject != gatewaytest.Gary || claims.TokenID != ids[0] || !strings.HasPrefix(created.Token, "mcp_") {
		t.Errorf("claims = %+v", claims)
	}
	if got := claims.ExpiresAt.Unix(); got != fixedNow.Add(30*24*time.Hour).Unix() {
		t.Errorf("exp = %d", got)
	}

	// Defaults: mcp:read, 90 days; a second token sorts first (newest).
	if r := do(t, e, "POST", gary, `{"name":"Desktop"}`); r.status != 200 || !strings.Contains(r.body, `"scopes":["mcp:read"],"expires_at":"2026-05-30T12:00:00+00:00"`) {
		t.Fatalf("second create: %d %s", r.status, r.body)
	}
	r = do(t, e, "GET", gary, "")
	if r.status != 200 {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	var listed struct {
		Tokens []map[string]any `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(r.body), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Tokens) < 2 || listed.Tokens[0]["token_id"] != ids[1] || listed.Tokens[1]["token_id"] != ids[0] {
		t.Fatalf("list order: %s", r.body)
	}
	keys := regexp.MustCompile(`"tokens":\[\{"id":"[^"]+","token_id":"[^"]+","name":"Desktop","scopes":\["mcp:read"\],"expires_at":"[^"]+","revoked_at":null,"created_at":"[^"]+","last_used_at":null\}`)
	if !keys.MatchString(r.body) {
		t.Errorf("list row keys or order differ: %s", r.body)
	}

	// Another staff member cannot see or revoke Gary's token.
	alice := bearer(t, gatewaytest.Alice)
	if r := do(t, e, "GET", alice, ""); strings.Contains(r.body, ids[0]) {
		t.Errorf("alice sees gary's token: %s", r.body)
	}
	if r := do(t, e, "DELETE", alice, `{"token_id":"`+ids[0]+`"}`); r.status != 404 || r.body != `{"error":"Token not found"}` {
		t.Errorf("alice revoking gary's token: %d %s", r.status, r.body)
	}

	// Gary revokes; the revocation is visible to verifiers at once, and a
	// second revoke is accepted (idempotent).
	for i := 0; i < 2; i++ {
		if r := do(t, e, "DELETE", gary, `{"token_id":"`+ids[0]+`"}`); r.status != 200 || r.body != `{"success":true,"message":"Token revoked successfully"}` {
			t.Fatalf("revoke #%d: %d %s", i+1, r.status, r.body)
		}
	}
	r = do(t, e, "GET", gary, "")
	if !regexp.MustCompile(`"token_id":"` + ids[0] + `","name":"Laptop","scopes":\["mcp:read","mcp:write"\],"expires_at":"[^"]+","revoked_at":"2026-03-01T12:00:00\+00:00"`).MatchString(r.body) {
		t.Errorf("revoked_at not set: %s", r.body)
	}
	if env.DatabaseURL != "" {
		conn, err := pgx.Connect(context.Background(), env.DatabaseURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var n int
		if err := conn.QueryRow(context.Background(), "select count(*) from revoked_token_ids where token_id = $1", ids[0]).Scan(&n); err != nil || n != 1 {
			t.Errorf("revoked_token_ids rows = %d (%v)", n, err)
		}
	}
}

// TestRevokeIsOneUpdate: a revocation is the find and the update of the
// original's steps 3 and 4, as the user, and nothing else: the trigger
// lists the token in revoked_token_ids in the update's transaction, so
// there is no third request, and no error is logged.
func TestRevokeIsOneUpdate(t *testing.T) {
	id := uuid.NewString()
	var mu sync.Mutex
	var seen []string
	rest, err := url.Parse(env.RestURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(rest)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, rest.Path)
		mu.Lock()
		seen = append(seen, r.Method+" "+path)
		mu.Unlock()
		r.Host = rest.Host
		r.URL.Path, r.URL.RawPath = path, "" // the proxy prefixes rest.Path
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(counting.Close)
	var logs bytes.Buffer
	e := newServer(t, setup{restURL: counting.URL + rest.Path, newID: func() string { return id },
		logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	gary := bearer(t, gatewaytest.Gary)
	if r := do(t, e, "POST", gary, `{"name":"temp"}`); r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	mu.Lock()
	seen = nil
	mu.Unlock()
	if r := do(t, e, "DELETE", gary, `{"token_id":"`+id+`"}`); r.status != 200 || r.body != `{"success":true,"message":"Token revoked successfully"}` {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"GET /api_tokens", "PATCH /api_tokens"}, seen); diff != "" {
		t.Errorf("upstream requests of a revocation (-want +got):\n%s", diff)
	}
	if logs.Len() != 0 {
		t.Errorf("a revocation logged:\n%s", logs.String())
	}
	if env.DatabaseURL != "" {
		conn := env.DB(t)
		var listed, revoked bool
		err := conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM revoked_token_ids WHERE token_id = $1),
			EXISTS (SELECT 1 FROM api_tokens WHERE token_id = $1 AND revoked_at IS NOT NULL)`, id).Scan(&listed, &revoked)
		if err != nil || !listed || !revoked {
			t.Errorf("revoked_token_ids lists it %v, api_tokens.revoked_at set %v (%v)", listed, revoked, err)
		}
	}
}

func TestPostgRESTNotConfiguredIs500(t *testing.T) {
	h, err := New(Options{
		Users:      &mcpauth.AuthClient{AuthURL: env.AuthURL, AnonKey: env.AnonKey},
		ForSession: func(string, string) *userclient.Client { return nil },
		Mint:       func(string, []string, string, float64, time.Time) (string, error) { return "", nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	h.Register(e.Group("/functions/v1/mcp-tokens"))
	if r := do(t, e, "GET", bearer(t, gatewaytest.Alice), ""); r.status != 500 || r.body != `{"error":"supabaseUrl is required."}` {
		t.Errorf("got %d %s", r.status, r.body)
	}
}
