package mcpauth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

func newTestAuth(t *testing.T, opts Options) *Authenticator {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func bearer(tok string) string { return "Bearer " + tok }

var goodToken = "mcp_" + hs256(testSecret, hdr, goodPayload())

// refusedURL returns a URL on which nothing listens.
func refusedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/rest/v1"
}

// TestAuthenticateMatrix covers every row of A7 with exact status and
// message, against a fake PostgREST for failure injection.
func TestAuthenticateMatrix(t *testing.T) {
	type setup struct {
		revoked *answer
		roles   *answer
	}
	tests := []struct {
		name       string
		header     string
		secret     string
		noService  bool // RestURL/ServiceRoleKey unset
		refused    bool // PostgREST unreachable
		setup      setup
		wantStatus int
		wantMsg    string
	}{
		{name: "missing header", header: "", wantStatus: 401, wantMsg: MsgMissingHeader},
		{name: "Basic", header: "Basic abc", wantStatus: 401, wantMsg: MsgInvalidHeader},
		{name: "two spaces", header: "Bearer  " + goodToken, wantStatus: 401, wantMsg: MsgInvalidHeader},
		{name: "Bearer alone", header: "Bearer", wantStatus: 401, wantMsg: MsgInvalidHeader},
		{name: "header is checked before the secret", header: "Basic x", secret: "-", wantStatus: 401, wantMsg: MsgInvalidHeader},
		{name: "MCP_JWT_SECRET unset, garbage token", header: bearer("garbage"), secret: "-", wantStatus: 500, wantMsg: MsgMCPSecret},
		{name: "MCP_JWT_SECRET unset", header: bearer(goodToken), secret: "-", wantStatus: 500, wantMsg: MsgMCPSecret},
		{name: "garbage token", header: bearer("garbage"), wantStatus: 401, wantMsg: MsgInvalidToken},
		{name: "no prefix is accepted", header: bearer(hs256(testSecret, hdr, goodPayload())), wantStatus: 200},
		{name: "wrong secret", header: bearer(hs256("another-secret-another-secret-xx", hdr, goodPayload())), wantStatus: 401, wantMsg: MsgInvalidToken},
		{name: "token is checked before service config", header: bearer("garbage"), noService: true, wantStatus: 401, wantMsg: MsgInvalidToken},
		{name: "SUPABASE_URL or service key unset", header: bearer(goodToken), noService: true, wantStatus: 500, wantMsg: MsgServiceRoleConfig},
		{name: "revoked", header: bearer(goodToken), setup: setup{revoked: &answer{200, `[{"token_id":"22222222-2222-4222-8222-222222222222"}]`}}, wantStatus: 401, wantMsg: MsgRevoked},
		{name: "revoked beats not staff", header: bearer(goodToken), setup: setup{revoked: &answer{200, `[{"token_id":"x"}]`}, roles: &answer{200, `[]`}}, wantStatus: 401, wantMsg: MsgRevoked},
		{name: "revoked beats failed role query", header: bearer(goodToken), setup: setup{revoked: &answer{200, `[{"token_id":"x"}]`}, roles: &answer{500, `{"message":"boom"}`}}, wantStatus: 401, wantMsg: MsgRevoked},
		{name: "revocation look-up 500", header: bearer(goodToken), setup: setup{revoked: &answer{500, `{"code":"XX000","message":"internal error","details":null,"hint":null}`}}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "internal error"},
		{name: "revocation look-up 502 without body", header: bearer(goodToken), setup: setup{revoked: &answer{502, ``}}, wantStatus: 503, wantMsg: MsgRevocationPrefix + `{"status":502}`},
		{name: "revocation failure beats not staff", header: bearer(goodToken), setup: setup{revoked: &answer{503, `{"message":"down"}`}, roles: &answer{200, `[]`}}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "down"},
		{name: "revocation look-up JWT refused", header: bearer(goodToken), setup: setup{revoked: &answer{401, `{"code":"PGRST301","message":"JWT expired"}`}}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "JWT expired"},
		{name: "connection refused", header: bearer(goodToken), refused: true, wantStatus: 503, wantMsg: MsgRevocationPrefix + "fetch failed"},
		{name: "role query failing", header: bearer(goodToken), setup: setup{roles: &answer{400, `{"code":"22P02","message":"invalid input syntax for type uuid"}`}}, wantStatus: 500, wantMsg: MsgRoleLookupFailed},
		{name: "role query 500", header: bearer(goodToken), setup: setup{roles: &answer{500, `oops`}}, wantStatus: 500, wantMsg: MsgRoleLookupFailed},
		{name: "role query not JSON array", header: bearer(goodToken), setup: setup{roles: &answer{200, `{}`}}, wantStatus: 500, wantMsg: MsgRoleLookupFailed},
		{name: "not staff", header: bearer(goodToken), setup: setup{roles: &answer{200, `[]`}}, wantStatus: 403, wantMsg: MsgNotStaff},
		{name: "grader", header: bearer(goodToken), setup: setup{roles: &answer{200, `[{"class_id":2,"role":"grader"}]`}}, wantStatus: 200},
		{name: "empty scopes authenticate", header: bearer(hs256(testSecret, hdr, payload(pSub, `"scopes":[]`, pJti, pIss, pAud, pExp))), wantStatus: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := newFakeRest(t)
			if tc.setup.revoked != nil {
				fake.set("GET revoked_token_ids", tc.setup.revoked.status, tc.setup.revoked.body)
			}
			if tc.setup.roles != nil {
				fake.set("GET user_roles", tc.setup.roles.status, tc.setup.roles.body)
			}
			opts := Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret}
			switch tc.secret {
			case "":
			case "-":
				opts.MCPJWTSecret = ""
			default:
				opts.MCPJWTSecret = tc.secret
			}
			if tc.noService {
				opts.ServiceRoleKey = ""
			}
			if tc.refused {
				opts.RestURL = refusedURL(t)
			}
			a := newTestAuth(t, opts)
			p, err := a.Authenticate(context.Background(), tc.header)
			if tc.wantStatus == 200 {
				if err != nil {
					t.Fatalf("Authenticate = %v", err)
				}
				if p.UserID != "11111111-1111-4111-8111-111111111111" || p.TokenID != "22222222-2222-4222-8222-222222222222" || p.Kind != KindAPIToken {
					t.Errorf("principal = %+v", p)
				}
				return
			}
			assertAPIError(t, err, tc.wantStatus, tc.wantMsg)
			if (tc.wantStatus == 503 || tc.wantMsg == MsgRoleLookupFailed) && apierror.As(err).Err == nil {
				t.Errorf("upstream failure without internal cause")
			}
		})
	}
}

// TestAuthenticateRequests pins the exact service-role requests.
func TestAuthenticateRequests(t *testing.T) {
	fake, srv := newFakeRest(t)
	a := newTestAuth(t, Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret})
	p, err := a.Authenticate(context.Background(), bearer(goodToken))
	if err != nil {
		t.Fatal(err)
	}
	want := &Principal{
		UserID:  "11111111-1111-4111-8111-111111111111",
		TokenID: "22222222-2222-4222-8222-222222222222",
		Scopes:  []string{"mcp:read"},
		Kind:    KindAPIToken,
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("principal (-want +got):\n%s", diff)
	}
	got := fake.recorded()
	sort.Slice(got, func(i, j int) bool { return got[i].Path < got[j].Path })
	wantReq := []recorded{
		{Method: "GET", Path: "/rest/v1/revoked_token_ids", Query: "select=token_id&token_id=eq.22222222-2222-4222-8222-222222222222", APIKey: testServiceKey, Authorization: "Bearer " + testServiceKey},
		{Method: "GET", Path: "/rest/v1/user_roles", Query: "select=class_id%2Crole&user_id=eq.11111111-1111-4111-8111-111111111111&disabled=eq.false&role=in.%28instructor%2Cgrader%29", APIKey: testServiceKey, Authorization: "Bearer " + testServiceKey},
	}
	if diff := cmp.Diff(wantReq, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestAuthenticateConcurrent proves steps 6 and 9 overlap: each fake
// handler waits until the other request has arrived, which would time out
// if the look-ups ran one after the other.
func TestAuthenticateConcurrent(t *testing.T) {
	fake, srv := newFakeRest(t)
	arrived := map[string]chan struct{}{"revoked_token_ids": make(chan struct{}), "user_roles": make(chan struct{})}
	other := map[string]string{"revoked_token_ids": "user_roles", "user_roles": "revoked_token_ids"}
	// Each look-up waits, inside PostgREST, for the other to arrive: both
	// see each other only if they are in flight together. Sequential
	// look-ups make the first give up after the generous wait and the
	// count below come out short.
	var overlapped atomic.Int32
	fake.hook = func(method, table string) {
		close(arrived[table])
		select {
		case <-arrived[other[table]]:
			overlapped.Add(1)
		case <-time.After(30 * time.Second):
		}
	}
	a := newTestAuth(t, Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret, LookupTimeout: time.Minute})
	if _, err := a.Authenticate(context.Background(), bearer(goodToken)); err != nil {
		t.Fatal(err)
	}
	if n := overlapped.Load(); n != 2 {
		t.Errorf("%d of 2 look-ups saw the other in flight: they did not overlap", n)
	}
}

// TestAuthenticateCancelsRoleQuery: once the revocation answer decides,
// the role query's context is canceled rather than awaited.
func TestAuthenticateCancelsRoleQuery(t *testing.T) {
	fake, srv := newFakeRest(t)
	fake.set("GET revoked_token_ids", 200, `[{"token_id":"x"}]`)
	release := make(chan struct{})
	defer close(release)
	fake.hook = func(method, table string) {
		if table == "user_roles" {
			<-release
		}
	}
	a := newTestAuth(t, Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret})
	done := make(chan error, 1)
	go func() {
		_, err := a.Authenticate(context.Background(), bearer(goodToken))
		done <- err
	}()
	select {
	case err := <-done:
		assertAPIError(t, err, 401, MsgRevoked)
	case <-time.After(3 * time.Second):
		t.Fatal("Authenticate waited for the role query after the token was found revoked")
	}
}

func TestAuthenticateContextCanceled(t *testing.T) {
	_, srv := newFakeRest(t)
	a := newTestAuth(t, Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.Authenticate(ctx, bearer(goodToken))
	assertAPIError(t, err, 503, MsgRevocationPrefix+"request was canceled")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cause %v does not wrap context.Canceled", errors.Unwrap(err))
	}
}

// TestAuthenticateRoleFailureAwaitsRevocation: a role query that fails
// first does not cancel the revocation look-up, whose answer (here:
// revoked) comes first in A7 order. The revocation answer is held until
// the failed role answer has been sent.
func TestAuthenticateRoleFailureAwaitsRevocation(t *testing.T) {
	fake, _ := newFakeRest(t)
	fake.set("GET revoked_token_ids", 200, `[{"token_id":"x"}]`)
	fake.set("GET user_roles", 500, `{"message":"boom"}`)
	rolesSent := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/revoked_token_ids") {
			select {
			case <-rolesSent:
				time.Sleep(50 * time.Millisecond) // for the client to read it
			case <-time.After(30 * time.Second):
			}
		}
		fake.ServeHTTP(w, r)
		if strings.HasSuffix(r.URL.Path, "/user_roles") {
			w.(http.Flusher).Flush()
			close(rolesSent)
		}
	}))
	t.Cleanup(srv.Close)
	a := newTestAuth(t, Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret, LookupTimeout: time.Minute})
	_, err := a.Authenticate(context.Background(), bearer(goodToken))
	assertAPIError(t, err, 401, MsgRevoked)
}

// TestNewValidatesSecret: a set MCP_JWT_SECRET is checked once, by New,
// with a message that names the variable and not its value; an unset one
// is the A7 step 3 500 at request time (TestAuthenticateMatrix).
func TestNewValidatesSecret(t *testing.T) {
	for _, tc := range []struct {
		name, secret string
		wantErr      string
	}{
		{"unset", "", ""},
		{"32 characters", strings.Repeat("s", 32), ""},
		// 16 astral characters are 32 UTF-16 code units: long enough for JavaScript.
		{"32 code units", strings.Repeat("😀", 16), ""},
		{"31 characters", strings.Repeat("s", 31), "mcpauth: MCP_JWT_SECRET must be at least 32 characters (counted as JavaScript counts them, in UTF-16 code units); it has 31"},
		{"short", "too-short", "mcpauth: MCP_JWT_SECRET must be at least 32 characters (counted as JavaScript counts them, in UTF-16 code units); it has 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(Options{MCPJWTSecret: tc.secret})
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				a.Close()
			}
			if got != tc.wantErr {
				t.Errorf("New: error %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	if _, err := New(Options{RestURL: "not a url", ServiceRoleKey: "k"}); err == nil {
		t.Fatal("New accepted a malformed RestURL")
	}
}

func TestHasScope(t *testing.T) {
	p := &Principal{Scopes: []string{"cli:read", "mcp:read"}}
	var nilP *Principal
	got := []bool{p.HasScope(ScopeMCPRead), p.HasScope(ScopeMCPWrite), (&Principal{}).HasScope(ScopeMCPRead), nilP.HasScope(ScopeMCPRead)}
	if diff := cmp.Diff([]bool{true, false, false, false}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := MissingScopeMessage(ScopeMCPRead); got != "Missing required scope: mcp:read" {
		t.Errorf("MissingScopeMessage = %q", got)
	}
	if diff := cmp.Diff([]string{"mcp:read", "mcp:write", "cli:read", "cli:write"}, ValidScopes); diff != "" {
		t.Errorf("ValidScopes (-want +got):\n%s", diff)
	}
}

// TestAuthenticateLookupTimeout: a hung PostgREST is bounded even when the
// caller's context has no deadline.
func TestAuthenticateLookupTimeout(t *testing.T) {
	fake, srv := newFakeRest(t)
	release := make(chan struct{})
	defer close(release)
	fake.hook = func(string, string) { <-release }
	a := newTestAuth(t, Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret, LookupTimeout: 100 * time.Millisecond})
	// PostgREST never answers, so only the look-up timeout can end the
	// call: returning at all, with the timeout's message, is the property.
	errc := make(chan error, 1)
	go func() {
		_, err := a.Authenticate(context.Background(), bearer(goodToken))
		errc <- err
	}()
	select {
	case err := <-errc:
		assertAPIError(t, err, 503, MsgRevocationPrefix+"request timed out")
	case <-time.After(time.Minute):
		t.Fatal("Authenticate did not return while PostgREST hung")
	}
}
