package oauthserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// The package's Supabase stack (a local one, or the real one named by
// GATEWAY_TEST_SUPABASE_URL) starts on first use, so the unit tests,
// which use memStore, never pay for it.
var stack gatewaytest.Lazy

func TestMain(m *testing.M) { gatewaytest.MainLazy(m, &stack) }

// realStack is the stack for tests of PostgRESTStore; they read rows back,
// so they need its database as well.
func realStack(t *testing.T) *gatewaytest.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the Supabase stack (PostgreSQL); skipped with -short")
	}
	env := stack.Env(t)
	env.RequireDatabase(t)
	return env
}

func newPGStore(t *testing.T, env *gatewaytest.Env) *PostgRESTStore {
	t.Helper()
	return NewPostgRESTStore(env.ServiceREST(t))
}

// pgHarness is the harness with the PostgREST store of the real stack, no
// rate limit, and the real clock (the database compares with its rows).
func pgHarness(t *testing.T, env *gatewaytest.Env) (*harness, *PostgRESTStore) {
	t.Helper()
	store := newPGStore(t, env)
	h := newHarness(t, func(o *Options) {
		o.Store = store
		o.FailedPerMinute = -1
		o.Now = time.Now
	})
	return h, store
}

// saveTestCode stores a code for clientID as the consent page would after
// Alice approved scopes, and returns the code and its grant's token id.
func saveTestCode(ctx context.Context, s Store, clientID string, scopes []string) (string, string, error) {
	code := sealing.RandomToken(32)
	id := uuid.NewString()
	err := s.SaveCode(ctx, Code{
		Hash: hashToken(code), TokenID: id, ClientHash: hashToken(clientID), ClientName: "Test Assistant",
		RedirectURI: testRedirect, Challenge: sealing.S256(testVerifier), UserID: aliceID, Scopes: scopes,
		ExpiresAt: time.Now().Add(time.Minute),
	})
	return code, id, err
}

// grantState is what the database says about a grant: whether its
// api_tokens row exists and is revoked, and whether revoked_token_ids
// lists it.
type grantState struct {
	Row, Revoked, Listed bool
}

func readGrant(t *testing.T, db *pgx.Conn, tokenID string) grantState {
	t.Helper()
	var g grantState
	err := db.QueryRow(context.Background(), `SELECT
		EXISTS (SELECT 1 FROM public.api_tokens WHERE token_id = $1),
		EXISTS (SELECT 1 FROM public.api_tokens WHERE token_id = $1 AND revoked_at IS NOT NULL),
		EXISTS (SELECT 1 FROM public.revoked_token_ids WHERE token_id = $1)`, tokenID).Scan(&g.Row, &g.Revoked, &g.Listed)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestConcurrentRedemption redeems each of 500 codes twice at the same
// moment against the real stack: in every round exactly one redemption
// gets tokens and the other is refused, and the replay leaves the grant
// revoked in api_tokens as well as in revoked_token_ids (what mcp-tokens
// lists and what verifiers read agree).
func TestConcurrentRedemption(t *testing.T) {
	env := realStack(t)
	h, store := pgHarness(t, env)
	clientID := h.register()
	db := env.DB(t)

	const rounds, workers = 500, 8
	type outcome struct {
		tokenID  string
		statuses [2]int
		err      error
	}
	results := make([]outcome, rounds)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				code, id, err := saveTestCode(context.Background(), store, clientID, []string{"mcp:read"})
				results[i].tokenID, results[i].err = id, err
				if err != nil {
					continue
				}
				form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {testRedirect},
					"client_id": {clientID}, "code_verifier": {testVerifier}}
				var pair sync.WaitGroup
				start := make(chan struct{})
				for k := range 2 {
					pair.Add(1)
					go func() {
						defer pair.Done()
						<-start
						results[i].statuses[k] = postStatus(h, form)
					}()
				}
				close(start)
				pair.Wait()
			}
		}()
	}
	began := time.Now()
	for i := range rounds {
		next <- i
	}
	close(next)
	wg.Wait()
	t.Logf("%d rounds in %v", rounds, time.Since(began).Round(time.Millisecond))

	bad := 0
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("round %d: saving the code: %v", i, r.err)
		}
		ok := 0
		for _, s := range r.statuses {
			if s == 200 {
				ok++
			}
		}
		g := readGrant(t, db, r.tokenID)
		want := grantState{Row: true, Revoked: true, Listed: true}
		if ok != 1 || r.statuses[0]+r.statuses[1] != 600 || g != want {
			bad++
			if bad <= 5 {
				t.Errorf("round %d: statuses %v, grant %+v; want one 200, one 400 and %+v", i, r.statuses, g, want)
			}
		}
	}
	ids := make([]string, rounds)
	for i, r := range results {
		ids[i] = r.tokenID
	}
	var listedNotRevoked int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM public.revoked_token_ids r
		WHERE r.token_id = ANY ($1) AND NOT EXISTS
		(SELECT 1 FROM public.api_tokens a WHERE a.token_id = r.token_id AND a.revoked_at IS NOT NULL)`, ids).Scan(&listedNotRevoked); err != nil {
		t.Fatal(err)
	}
	if bad > 0 || listedNotRevoked > 0 {
		t.Errorf("%d of %d rounds wrong; %d token ids in revoked_token_ids without api_tokens.revoked_at", bad, rounds, listedNotRevoked)
	}
}

// postStatus posts form to the token endpoint and returns the status (0
// when the request failed). Safe for concurrent use, unlike h.postForm,
// which fails the test from its goroutine.
func postStatus(h *harness, form url.Values) int {
	resp, err := h.hc.PostForm(h.issuer+"/token", form)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestPostgRESTStore runs every method of the store against the real
// stack, in the order a grant's life calls them, and reads the rows back.
func TestPostgRESTStore(t *testing.T) {
	env := realStack(t)
	s := newPGStore(t, env)
	db := env.DB(t)
	ctx := context.Background()
	now := time.Now()
	check := func(what string, got, want any) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	checkErr := func(what string, got, want error) {
		t.Helper()
		if !errors.Is(got, want) {
			t.Errorf("%s: error %v, want %v", what, got, want)
		}
	}

	for _, tc := range []struct {
		user string
		want bool
	}{{gatewaytest.Alice, true}, {gatewaytest.Gary, true}, {gatewaytest.Sam, false}, {gatewaytest.Dale, false}, {gatewaytest.Nora, false}} {
		got, err := s.IsStaff(ctx, tc.user)
		checkErr("IsStaff("+tc.user+") error", err, nil)
		check("IsStaff("+tc.user+")", got, tc.want)
	}

	client := "https://client.example/" + uuid.NewString()
	code, tokenID, err := saveTestCode(ctx, s, client, []string{"mcp:read", "mcp:write"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.MarkCodeUsed(ctx, hashToken("no such code"), now)
	checkErr("MarkCodeUsed of an unknown code", err, ErrNotFound)
	c, err := s.MarkCodeUsed(ctx, hashToken(code), now)
	if err != nil {
		t.Fatal(err)
	}
	check("MarkCodeUsed first use", *c, Code{Hash: hashToken(code), TokenID: tokenID, ClientHash: hashToken(client), ClientName: "Test Assistant",
		RedirectURI: testRedirect, Challenge: sealing.S256(testVerifier), UserID: aliceID, Scopes: []string{"mcp:read", "mcp:write"},
		ExpiresAt: c.ExpiresAt, Used: false})
	first := sealing.RandomToken(8)
	active, err := s.CreateGrant(ctx, hashToken(code), Grant{Name: "Store Test — connected with OAuth", ClientID: client, ExpiresAt: now.Add(time.Hour)}, hashToken(first), now)
	checkErr("CreateGrant error", err, nil)
	check("CreateGrant active", active, true)
	var scopes []string
	var name string
	if err := db.QueryRow(ctx, `SELECT a.scopes, a.name FROM public.api_tokens a JOIN public.mcp_oauth_grants g USING (token_id)
		WHERE a.token_id = $1 AND a.user_id = $2 AND g.client_id = $3`, tokenID, aliceID, client).Scan(&scopes, &name); err != nil {
		t.Fatalf("grant row: %v", err)
	}
	check("grant row scopes and name", []any{scopes, name}, []any{[]string{"mcp:read", "mcp:write"}, "Store Test — connected with OAuth"})

	_, err = s.FindRefresh(ctx, hashToken("no such token"))
	checkErr("FindRefresh of an unknown token", err, ErrNotFound)
	r, err := s.FindRefresh(ctx, hashToken(first))
	if err != nil {
		t.Fatal(err)
	}
	check("FindRefresh", *r, Refresh{Hash: hashToken(first), TokenID: tokenID, UserID: aliceID, ClientHash: hashToken(client),
		Scopes: []string{"mcp:read", "mcp:write"}, ExpiresAt: r.ExpiresAt})
	if !r.ExpiresAt.Equal(now.Add(time.Hour).Truncate(time.Millisecond)) {
		t.Errorf("refresh token expires %v, want the grant's %v", r.ExpiresAt, now.Add(time.Hour))
	}

	// Rotation, a retry, and reuse.
	rotate := func(what, hash string, want Rotation) string {
		t.Helper()
		next := hashToken(sealing.RandomToken(8))
		got, err := s.RotateRefresh(ctx, hash, next, now)
		checkErr(what+" error", err, nil)
		check(what, got, want)
		return next
	}
	_, err = s.RotateRefresh(ctx, hashToken("no such token"), hashToken(sealing.RandomToken(8)), now)
	checkErr("RotateRefresh of an unknown token", err, ErrNotFound)
	lost := rotate("first rotation", hashToken(first), Rotated)
	if r, _ := s.FindRefresh(ctx, hashToken(first)); !r.Used || r.ReplacedBy != lost {
		t.Errorf("rotated token: %+v, want used and replaced by %s", r, lost)
	}
	retried := rotate("retry", hashToken(first), Retried)
	if r, _ := s.FindRefresh(ctx, lost); !r.Used || r.ReplacedBy != "" {
		t.Errorf("superseded replacement: %+v, want used and replaced by nothing", r)
	}
	if r, _ := s.FindRefresh(ctx, retried); r.Used || r.Scopes[1] != "mcp:write" {
		t.Errorf("retry's replacement: %+v, want unused with the grant's scopes", r)
	}
	rotate("the retry's replacement", retried, Rotated)
	check("grant before reuse", readGrant(t, db, tokenID), grantState{Row: true})
	rotate("reuse", hashToken(first), Reused)
	check("grant after reuse", readGrant(t, db, tokenID), grantState{Row: true, Revoked: true, Listed: true})
	rotate("after revocation", retried, Inactive)

	// A replay before the grant exists: the grant is created revoked.
	code2, tokenID2, err := saveTestCode(ctx, s, client, []string{"mcp:read"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := s.MarkCodeUsed(ctx, hashToken(code2), now); err != nil || c.Used {
		t.Fatalf("first use: %+v %v", c, err)
	}
	if c, err := s.MarkCodeUsed(ctx, hashToken(code2), now); err != nil || !c.Used || c.TokenID != tokenID2 {
		t.Fatalf("replay: %+v %v", c, err)
	}
	check("after a replay, before the grant", readGrant(t, db, tokenID2), grantState{})
	active, err = s.CreateGrant(ctx, hashToken(code2), Grant{Name: "x", ClientID: client, ExpiresAt: now.Add(time.Hour)}, hashToken(sealing.RandomToken(8)), now)
	checkErr("CreateGrant after a replay error", err, nil)
	check("CreateGrant after a replay active", active, false)
	check("grant created after a replay", readGrant(t, db, tokenID2), grantState{Row: true, Revoked: true, Listed: true})

	// RFC 7009: only the grant's own client revokes it, once.
	code3, tokenID3, err := saveTestCode(ctx, s, client, []string{"mcp:read"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkCodeUsed(ctx, hashToken(code3), now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateGrant(ctx, hashToken(code3), Grant{Name: "x", ClientID: client, ExpiresAt: now.Add(time.Hour)}, hashToken(sealing.RandomToken(8)), now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what, tokenID, client string
		want                  bool
	}{
		{"another client", tokenID3, "https://other.example/", false},
		{"a token id that is no grant", uuid.NewString(), client, false},
		{"its client", tokenID3, client, true},
		{"again", tokenID3, client, false},
	} {
		got, err := s.RevokeGrant(ctx, tc.tokenID, tc.client, now)
		checkErr("RevokeGrant by "+tc.what+" error", err, nil)
		check("RevokeGrant by "+tc.what, got, tc.want)
	}
	check("grant revoked by its client", readGrant(t, db, tokenID3), grantState{Row: true, Revoked: true, Listed: true})

	id := uuid.NewString()
	for i, want := range []bool{true, false} {
		got, err := s.ConsumePending(ctx, id, now.Add(time.Minute))
		checkErr(fmt.Sprintf("ConsumePending #%d error", i+1), err, nil)
		check(fmt.Sprintf("ConsumePending #%d", i+1), got, want)
	}
}

// TestRevocationEndpointDatabase revokes through the RFC 7009 endpoint
// with the real store: by refresh token and by access token, and not by
// another client; the rows agree with what the endpoint did.
func TestRevocationEndpointDatabase(t *testing.T) {
	env := realStack(t)
	h, _ := pgHarness(t, env)
	db := env.DB(t)
	clientID, other := h.register(), h.register()
	revoke := func(client, token string) {
		t.Helper()
		r := h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {token}, "client_id": {client}})
		if r.status != 200 || r.body != "" {
			t.Fatalf("revoke: %d %s", r.status, r.body)
		}
	}
	for _, kind := range []string{"refresh", "access"} {
		t.Run(kind, func(t *testing.T) {
			tk, tokenID := h.grantFor(clientID)
			token := tk.RefreshToken
			if kind == "access" {
				token = tk.AccessToken
			}
			revoke(other, token)
			if g := readGrant(t, db, tokenID); g != (grantState{Row: true}) {
				t.Errorf("after another client's revocation: %+v", g)
			}
			revoke(clientID, token)
			if g := readGrant(t, db, tokenID); g != (grantState{Row: true, Revoked: true, Listed: true}) {
				t.Errorf("after revocation: %+v", g)
			}
			checkJSON(t, h.refreshWith(clientID, tk.RefreshToken, nil), 400, badRefreshBody)
		})
	}
}

// TestGrantScopesDatabase: the grant row records the scopes the person
// approved (what the client asked for, of those known), and a refresh
// narrows the access token's scopes but never widens them or the grant.
func TestGrantScopesDatabase(t *testing.T) {
	env := realStack(t)
	h, _ := pgHarness(t, env)
	db := env.DB(t)
	clientID := h.register()
	grant := func(scope string) (tokens, string) {
		t.Helper()
		params := h.authorizeParams(clientID)
		params.Set("scope", scope)
		hc := h.newBrowser()
		page := h.consentPage(hc, params)
		r := h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(t, page.body)}, "decision": {"approve"}})
		loc, _ := url.Parse(r.header.Get("Location"))
		tk := decodeTokens(t, h.exchange(clientID, loc.Query().Get("code")))
		claims, err := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tk, claims.TokenID
	}
	rowScopes := func(tokenID string) []string {
		t.Helper()
		var s []string
		if err := db.QueryRow(context.Background(), `SELECT scopes FROM public.api_tokens WHERE token_id = $1`, tokenID).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	tk, id := grant("mcp:read offline_access")
	if diff := cmp.Diff([]string{"mcp:read"}, rowScopes(id)); diff != "" || tk.Scope != "mcp:read" {
		t.Errorf("read grant: row (-want +got):\n%s; token scope %q", diff, tk.Scope)
	}
	checkJSON(t, h.refreshWith(clientID, tk.RefreshToken, url.Values{"scope": {"mcp:read mcp:write"}}), 400,
		`{"error":"invalid_scope","error_description":"scope exceeds what was granted"}`)

	tk, id = grant("mcp:write mcp:read unknown:scope")
	if diff := cmp.Diff([]string{"mcp:read", "mcp:write"}, rowScopes(id)); diff != "" {
		t.Errorf("read-write grant row (-want +got):\n%s", diff)
	}
	narrowed := decodeTokens(t, h.refreshWith(clientID, tk.RefreshToken, url.Values{"scope": {"mcp:read"}}))
	if narrowed.Scope != "mcp:read" {
		t.Errorf("narrowed refresh scope %q, want mcp:read", narrowed.Scope)
	}
	again := decodeTokens(t, h.refreshWith(clientID, narrowed.RefreshToken, nil))
	if again.Scope != "mcp:read mcp:write" {
		t.Errorf("refresh after a narrowed one: scope %q, want the grant's mcp:read mcp:write", again.Scope)
	}
	if diff := cmp.Diff([]string{"mcp:read", "mcp:write"}, rowScopes(id)); diff != "" {
		t.Errorf("grant row after refreshes (-want +got):\n%s", diff)
	}
}
