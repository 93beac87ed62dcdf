package mcpauth

import (
	"context"
	"errors"
	"net"
	"strings"
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
// message, against a fake PostgREST for failure injection. Steps 6, 7 and
// 9 are one call (mcp_auth_lookup): its failure reads as step 6's.
func TestAuthenticateMatrix(t *testing.T) {
	nonUUIDSubject := bearer(hs256(testSecret, hdr, payload(`"sub":"not-a-uuid"`, pScopes, pJti, pIss, pAud, pExp)))
	tests := []struct {
		name       string
		header     string
		secret     string
		noService  bool // RestURL/ServiceRoleKey unset
		refused    bool // PostgREST unreachable
		lookup     *answer
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
		{name: "revoked", header: bearer(goodToken), lookup: &answer{200, `{"revoked": true, "staff": true}`}, wantStatus: 401, wantMsg: MsgRevoked},
		{name: "revoked beats not staff", header: bearer(goodToken), lookup: &answer{200, `{"revoked": true, "staff": false}`}, wantStatus: 401, wantMsg: MsgRevoked},
		{name: "look-up 500", header: bearer(goodToken), lookup: &answer{500, `{"code":"XX000","message":"internal error","details":null,"hint":null}`}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "internal error"},
		{name: "look-up 502 without body", header: bearer(goodToken), lookup: &answer{502, ``}, wantStatus: 503, wantMsg: MsgRevocationPrefix + `{"status":502}`},
		{name: "look-up JWT refused", header: bearer(goodToken), lookup: &answer{401, `{"code":"PGRST301","message":"JWT expired"}`}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "JWT expired"},
		{name: "look-up function missing", header: bearer(goodToken), lookup: &answer{404, `{"code":"PGRST202","message":"Could not find the function"}`}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "Could not find the function"},
		{name: "look-up answer not an object", header: bearer(goodToken), lookup: &answer{200, `[]`}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "fetch failed"},
		{name: "look-up answer without staff", header: bearer(goodToken), lookup: &answer{200, `{"revoked": false}`}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "fetch failed"},
		{name: "look-up answer with null revoked", header: bearer(goodToken), lookup: &answer{200, `{"revoked": null, "staff": true}`}, wantStatus: 503, wantMsg: MsgRevocationPrefix + "fetch failed"},
		{name: "connection refused", header: bearer(goodToken), refused: true, wantStatus: 503, wantMsg: MsgRevocationPrefix + "fetch failed"},
		{name: "subject not a uuid", header: nonUUIDSubject, wantStatus: 500, wantMsg: MsgRoleLookupFailed},
		{name: "subject not a uuid, revoked", header: nonUUIDSubject, lookup: &answer{200, `{"revoked": true, "staff": false}`}, wantStatus: 401, wantMsg: MsgRevoked},
		{name: "not staff", header: bearer(goodToken), lookup: &answer{200, `{"revoked": false, "staff": false}`}, wantStatus: 403, wantMsg: MsgNotStaff},
		{name: "empty scopes authenticate", header: bearer(hs256(testSecret, hdr, payload(pSub, `"scopes":[]`, pJti, pIss, pAud, pExp))), wantStatus: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, srv := newFakeRest(t)
			if tc.lookup != nil {
				fake.set("POST rpc/mcp_auth_lookup", tc.lookup.status, tc.lookup.body)
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

// TestAuthenticateRequests pins the one service-role request an mcp_
// token costs: mcp_auth_lookup with the token id and the user id.
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
	wantReq := []recorded{{
		Method: "POST", Path: "/rest/v1/rpc/mcp_auth_lookup", APIKey: testServiceKey, Authorization: "Bearer " + testServiceKey,
		Body: `{"p_token_id":"22222222-2222-4222-8222-222222222222","p_user_id":"11111111-1111-4111-8111-111111111111"}`,
	}}
	if diff := cmp.Diff(wantReq, fake.recorded()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestAuthenticateNonUUIDSubjectSendsNull: a subject PostgreSQL would
// refuse as a uuid is not sent; the call still answers revocation.
func TestAuthenticateNonUUIDSubjectSendsNull(t *testing.T) {
	fake, srv := newFakeRest(t)
	a := newTestAuth(t, Options{RestURL: srv.URL + "/rest/v1", ServiceRoleKey: testServiceKey, MCPJWTSecret: testSecret})
	tok := hs256(testSecret, hdr, payload(`"sub":"1111111-11111-4111-8111-111111111111"`, pScopes, pJti, pIss, pAud, pExp))
	_, err := a.Authenticate(context.Background(), bearer(tok))
	assertAPIError(t, err, 500, MsgRoleLookupFailed)
	got := fake.recorded()
	if len(got) != 1 || got[0].Body != `{"p_token_id":"22222222-2222-4222-8222-222222222222","p_user_id":null}` {
		t.Errorf("requests = %+v", got)
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
