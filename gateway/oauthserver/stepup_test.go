package oauthserver

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// stepUpIntro is what the consent page says, before its details, when
// Test Assistant holds a read grant of Alice's and asks for mcp:write.
const stepUpIntro = `<h1>Give Test Assistant more access as you?</h1>
<p>Test Assistant already has read access as you, and asks to add write access (proposals you approve on a page).</p>
<p class="muted">“Keep read only” leaves its read access as it is and tells Test Assistant that nothing was added, so it goes on working with what it has.</p>`

// stepUpLifetime is the step-up page's "For how long".
const stepUpLifetime = `<dd>Until you revoke it, for at most 30 days. Adding access replaces the existing connection “Test Assistant — connected with OAuth” in your MCP token list (the old entry shows as revoked); keeping it changes nothing there. You can revoke it there at any time.</dd>`

// stepUpButtons are the step-up page's only choices: each does something
// the other does not.
const stepUpButtons = `<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Add write access</button>
<button class="secondary" type="submit" name="decision" value="keep">Keep read only</button>
</div>`

// newConnectionIntro is the consent page's heading for a new connection.
const newConnectionIntro = `<h1>Allow Test Assistant to use Pawtograder as you?</h1>`

// consentIntro is the consent page from its start to its details.
func consentIntro(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, "<main>")
	intro, _, ok2 := strings.Cut(rest, "<dl>")
	if !ok || !ok2 {
		t.Fatalf("no consent page:\n%s", page)
	}
	return strings.TrimSpace(intro)
}

// connectWith signs Alice in to authorize clientID for scope, returns the
// consent page, and, unless decision is empty, posts it and returns the
// decision's reply.
func (h *harness) connectWith(clientID, scope, decision string) (page, decided reply) {
	h.t.Helper()
	params := h.authorizeParams(clientID)
	params.Set("scope", scope)
	hc := h.newBrowser()
	page = h.consentPage(hc, params)
	if page.status != http.StatusOK {
		h.t.Fatalf("consent page: %d %s", page.status, page.body)
	}
	if decision != "" {
		decided = h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(h.t, page.body)}, "decision": {decision}})
	}
	return page, decided
}

// tokensOf redeems the code of an approval.
func (h *harness) tokensOf(clientID string, approved reply) (tokens, string) {
	h.t.Helper()
	tk := decodeTokens(h.t, h.exchange(clientID, redirectParams(h.t, approved).Get("code")))
	claims, err := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.srv.opts.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	return tk, claims.TokenID
}

// checkStepUp is the step-up through the real router on h's store:
// liveScopes lists the scopes of each live grant of Alice's for a client,
// revoked says whether a grant is revoked. A client with a read grant
// asks for mcp:write (as one does after a 403 insufficient_scope); the
// consent page says what is added to which connection and offers only
// "Add write access" and "Keep read only"; adding leaves one live grant
// for the client, holding no less than before, and the old grant's
// tokens stop working; keeping (and any other choice that would add
// nothing) changes nothing, issues no code and tells the client with
// access_denied, its old tokens still working.
func checkStepUp(t *testing.T, newH func(t *testing.T) *harness, liveScopes func(h *harness, clientID string) [][]string, revoked func(h *harness, tokenID string) bool) {
	cases := []struct {
		name, scope, decision string
		want                  [][]string
		wantToken             string // the new token response's scope
		refusal               string // instead: access_denied with this description
	}{
		{name: "add write access", scope: "mcp:read mcp:write offline_access", decision: "approve",
			want: [][]string{{"mcp:read", "mcp:write"}}, wantToken: "mcp:read mcp:write"},
		{name: "write asked alone", scope: "mcp:write", decision: "approve",
			want: [][]string{{"mcp:read", "mcp:write"}}, wantToken: "mcp:read mcp:write"},
		{name: "keep read only", scope: "mcp:read mcp:write offline_access", decision: "keep",
			want: [][]string{{"mcp:read"}}, refusal: descKept},
		{name: "keep read only, write asked alone", scope: "mcp:write", decision: "keep",
			want: [][]string{{"mcp:read"}}, refusal: descKept},
		// Not offered on a step-up page, but a page shown as a new
		// connection may be posted once the client has a grant.
		{name: "approve read only posted", scope: "mcp:read mcp:write offline_access", decision: "approve_read",
			want: [][]string{{"mcp:read"}}, refusal: descKept},
		{name: "approve read only posted, write asked alone", scope: "mcp:write", decision: "approve_read",
			want: [][]string{{"mcp:read"}}, refusal: descKept},
		{name: "deny posted", scope: "mcp:read mcp:write offline_access", decision: "deny",
			want: [][]string{{"mcp:read"}}, refusal: descDenied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newH(t)
			clientID := h.register()
			_, approved := h.connectWith(clientID, "mcp:read offline_access", "approve")
			old, oldID := h.tokensOf(clientID, approved)
			if diff := cmp.Diff([][]string{{"mcp:read"}}, liveScopes(h, clientID)); diff != "" {
				t.Fatalf("grants before the step-up (-want +got):\n%s", diff)
			}

			page, decided := h.connectWith(clientID, tc.scope, tc.decision)
			if diff := cmp.Diff(stepUpIntro, consentIntro(t, page.body)); diff != "" {
				t.Errorf("step-up consent page (-want +got):\n%s", diff)
			}
			for _, want := range []string{stepUpLifetime, stepUpButtons, "<dt>With access added, it will be able to</dt>",
				"<li>" + html.EscapeString(scopeDescriptions["mcp:read"]) + "</li><li>" + html.EscapeString(scopeDescriptions["mcp:write"]) + "<ul>"} {
				if !strings.Contains(page.body, want) {
					t.Errorf("the step-up page lacks %s:\n%s", want, page.body)
				}
			}

			if tc.refusal != "" {
				want := url.Values{"error": {"access_denied"}, "error_description": {tc.refusal}, "state": {"xyz-state"}, "iss": {h.issuer}}
				if diff := cmp.Diff(want, redirectParams(t, decided)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tc.decision, diff)
				}
				if diff := cmp.Diff(tc.want, liveScopes(h, clientID)); diff != "" {
					t.Errorf("grants after %s (-want +got):\n%s", tc.decision, diff)
				}
				if revoked(h, oldID) {
					t.Errorf("%s revoked the existing grant", tc.decision)
				}
				// The client goes on with what it had: its tokens work.
				if claims, err := mcpauth.VerifyAPIToken(testMCPSecret, old.AccessToken, h.srv.opts.Now()); err != nil || claims.TokenID != oldID {
					t.Errorf("the old access token after %s: %+v %v", tc.decision, claims, err)
				}
				decodeTokens(t, h.refreshWith(clientID, old.RefreshToken, nil))
				return
			}
			tk, newID := h.tokensOf(clientID, decided)
			if tk.Scope != tc.wantToken {
				t.Errorf("token response scope %q, want %q", tk.Scope, tc.wantToken)
			}
			if diff := cmp.Diff(tc.want, liveScopes(h, clientID)); diff != "" {
				t.Errorf("grants after the step-up (-want +got):\n%s", diff)
			}
			if newID == oldID || !revoked(h, oldID) || revoked(h, newID) {
				t.Errorf("old grant %s revoked %v, new grant %s revoked %v; want the old one replaced", oldID, revoked(h, oldID), newID, revoked(h, newID))
			}
			// The old grant's tokens are revoked with it; the new ones work.
			checkJSON(t, h.refreshWith(clientID, old.RefreshToken, nil), 400, badRefreshBody)
			if again := decodeTokens(t, h.refreshWith(clientID, tk.RefreshToken, nil)); again.Scope != tc.wantToken {
				t.Errorf("refresh of the new grant: scope %q, want %q", again.Scope, tc.wantToken)
			}
		})
	}

	// Not a step-up: a new connection, worded and granted as before.
	t.Run("not a step-up", func(t *testing.T) {
		h := newH(t)
		clientID, other := h.register(), h.register()
		_, approved := h.connectWith(clientID, "mcp:read offline_access", "approve")
		read, readID := h.tokensOf(clientID, approved)
		for _, tc := range []struct{ name, client, scope string }{
			{"nothing added", clientID, "mcp:read"},
			{"another client", other, "mcp:read mcp:write"},
		} {
			page, _ := h.connectWith(tc.client, tc.scope, "")
			if got := consentIntro(t, page.body); got != newConnectionIntro {
				t.Errorf("%s: consent page %q, want %q", tc.name, got, newConnectionIntro)
			}
		}
		// "keep" on a new connection keeps nothing: it is no choice there.
		if _, r := h.connectWith(other, "mcp:read mcp:write", "keep"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "Choose one of the consent page&#39;s buttons.") {
			t.Errorf("keep posted on a new connection: %d %s", r.status, r.body)
		}
		_, approved = h.connectWith(other, "mcp:read mcp:write", "approve")
		h.tokensOf(other, approved)
		if revoked(h, readID) {
			t.Error("another client's connection revoked the grant")
		}
		// Once the read grant is revoked, asking for more is a new
		// connection again.
		if r := h.postForm(h.hc, h.issuer+"/revoke", url.Values{"token": {read.RefreshToken}, "client_id": {clientID}}); r.status != 200 {
			t.Fatalf("revoke: %d %s", r.status, r.body)
		}
		page, _ := h.connectWith(clientID, "mcp:read mcp:write", "")
		if got := consentIntro(t, page.body); got != newConnectionIntro {
			t.Errorf("after revocation: consent page %q, want %q", got, newConnectionIntro)
		}
	})
}

// TestStepUp runs the step-up on the in-memory store.
func TestStepUp(t *testing.T) {
	checkStepUp(t, func(t *testing.T) *harness { return newHarness(t, nil) },
		func(h *harness, clientID string) [][]string {
			return h.store.liveGrantScopes(aliceID, clientID, h.clock.Now())
		},
		func(h *harness, tokenID string) bool { return h.store.isRevoked(tokenID) })
}

// TestStepUpDatabase runs the step-up on the real stack, where the
// person's grants are what mcp-tokens lists: api_tokens rows of the user
// marked with their client.
func TestStepUpDatabase(t *testing.T) {
	env := realStack(t)
	db := env.DB(t)
	checkStepUp(t, func(t *testing.T) *harness { h, _ := pgHarness(t, env); return h },
		func(h *harness, clientID string) [][]string {
			h.t.Helper()
			rows, err := db.Query(context.Background(), `SELECT a.scopes FROM public.api_tokens a
				JOIN public.mcp_oauth_grants g USING (token_id)
				WHERE a.user_id = $1 AND g.client_id = $2 AND a.revoked_at IS NULL ORDER BY a.created_at`, aliceID, clientID)
			if err != nil {
				h.t.Fatal(err)
			}
			defer rows.Close()
			var out [][]string
			for rows.Next() {
				var s []string
				if err := rows.Scan(&s); err != nil {
					h.t.Fatal(err)
				}
				out = append(out, s)
			}
			if err := rows.Err(); err != nil {
				h.t.Fatal(err)
			}
			return out
		},
		func(h *harness, tokenID string) bool {
			g := readGrant(h.t, db, tokenID)
			if g.Revoked != g.Listed {
				h.t.Errorf("grant %s: %+v; api_tokens and revoked_token_ids disagree", tokenID, g)
			}
			return g.Revoked
		})
}

// checkStepUpStore holds a Store to the step-up's rules: LiveGrants lists
// a person's live grants for one client only; CreateGrant revokes what
// the code replaces, but only the code's own user's grants of the same
// client, and also when the code was replayed (the new grant is then
// created revoked as well). gary is a second user id of the store.
func checkStepUpStore(t *testing.T, s Store, gary string, revoked func(tokenID string) bool) {
	ctx := context.Background()
	now := time.Now()
	client, other := "https://client.example/"+uuid.NewString(), "https://other.example/"+uuid.NewString()
	// code saves and redeems a code of user for client; grant also creates
	// its grant, reporting whether it is active.
	code := func(user, client string, scopes []string, replaces ...string) (string, string) {
		t.Helper()
		c, id := sealing.RandomToken(32), uuid.NewString()
		if err := s.SaveCode(ctx, Code{Hash: hashToken(c), TokenID: id, ClientHash: hashToken(client), ClientName: "Test Assistant",
			RedirectURI: testRedirect, Challenge: sealing.S256(testVerifier), UserID: user, Scopes: scopes,
			ExpiresAt: now.Add(time.Minute), Replaces: replaces}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.MarkCodeUsed(ctx, hashToken(c), now); err != nil || got.Used {
			t.Fatalf("first use: %+v %v", got, err)
		}
		return c, id
	}
	create := func(c, client string) bool {
		t.Helper()
		active, err := s.CreateGrant(ctx, hashToken(c), Grant{Name: "Test Assistant — connected with OAuth", ClientID: client, ExpiresAt: now.Add(time.Hour)},
			hashToken(sealing.RandomToken(8)), now)
		if err != nil {
			t.Fatal(err)
		}
		return active
	}
	grant := func(user, client string, scopes []string, replaces ...string) string {
		t.Helper()
		c, id := code(user, client, scopes, replaces...)
		if !create(c, client) {
			t.Fatal("grant created revoked")
		}
		return id
	}
	live := func(user, client string, at time.Time) []Grant {
		t.Helper()
		gs, err := s.LiveGrants(ctx, user, hashToken(client), at)
		if err != nil {
			t.Fatal(err)
		}
		return gs
	}
	check := func(what string, got, want any) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}

	read := grant(aliceID, client, []string{"mcp:read"})
	elsewhere := grant(aliceID, other, []string{"mcp:read"})
	garys := grant(gary, client, []string{"mcp:read"})
	check("live grants", live(aliceID, client, now), []Grant{{TokenID: read, UserID: aliceID, Scopes: []string{"mcp:read"}}})
	check("live grants after their expiry", len(live(aliceID, client, now.Add(2*time.Hour))), 0)

	// The code names Alice's grant of another client and Gary's grant too:
	// only her grant of this client is replaced.
	both := grant(aliceID, client, []string{"mcp:read", "mcp:write"}, read, elsewhere, garys)
	check("live grants after the step-up", live(aliceID, client, now), []Grant{{TokenID: both, UserID: aliceID, Scopes: []string{"mcp:read", "mcp:write"}}})
	check("revoked: replaced, another client's, another user's", []bool{revoked(read), revoked(elsewhere), revoked(garys)}, []bool{true, false, false})
	check("Gary's live grants", len(live(gary, client, now)), 1)

	// A step-up code replayed before its grant exists: both end revoked.
	c, id := code(aliceID, client, []string{"mcp:read", "mcp:write"}, both)
	if got, err := s.MarkCodeUsed(ctx, hashToken(c), now); err != nil || !got.Used {
		t.Fatalf("replay: %+v %v", got, err)
	}
	check("CreateGrant of a replayed step-up code active", create(c, client), false)
	check("revoked: replaced, replayed", []bool{revoked(both), revoked(id)}, []bool{true, true})
	check("live grants after a replayed step-up", len(live(aliceID, client, now)), 0)
}

// TestStepUpStore holds the in-memory store to the step-up's rules.
func TestStepUpStore(t *testing.T) {
	m := newMemStore(aliceID)
	checkStepUpStore(t, m, gatewaytest.Gary, m.isRevoked)
}

// TestStepUpStoreDatabase holds PostgRESTStore (mcp_oauth_live_grants and
// mcp_oauth_create_grant) to the step-up's rules.
func TestStepUpStoreDatabase(t *testing.T) {
	env := realStack(t)
	db := env.DB(t)
	checkStepUpStore(t, newPGStore(t, env), gatewaytest.Gary, func(id string) bool {
		g := readGrant(t, db, id)
		if g.Revoked != g.Listed {
			t.Errorf("grant %s: %+v; api_tokens and revoked_token_ids disagree", id, g)
		}
		return g.Revoked
	})
}

// TestConsentGrantsUnreadable: when the client's grants cannot be read,
// the consent page is 503 rather than a new-connection page that might
// be a step-up, and a decision is not recorded, so the page works again
// once the store does.
func TestConsentGrantsUnreadable(t *testing.T) {
	h := newHarness(t, nil)
	fail := func() {
		h.store.mu.Lock()
		h.store.failNext = errTestStore
		h.store.mu.Unlock()
	}
	hc := h.newBrowser()
	if r := h.signIn(hc, h.authorizeParams(h.register()), aliceID, "alice@example.edu"); r.status != http.StatusSeeOther {
		t.Fatalf("callback: %d %s", r.status, r.body)
	}
	fail()
	if r := h.get(hc, h.issuer+"/consent"); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "could not be checked just now") {
		t.Errorf("consent page with the store down: %d %s", r.status, r.body)
	}
	page := h.get(hc, h.issuer+"/consent")
	if page.status != http.StatusOK {
		t.Fatalf("consent page: %d %s", page.status, page.body)
	}
	fail()
	form := url.Values{"csrf_token": {csrfOf(t, page.body)}, "decision": {"approve"}}
	if r := h.postForm(hc, h.issuer+"/consent", form); r.status != http.StatusServiceUnavailable || len(h.store.decided) != 0 || len(h.store.codes) != 0 {
		t.Errorf("approve with the store down: %d, %d decided, %d codes", r.status, len(h.store.decided), len(h.store.codes))
	}
	if q := redirectParams(t, h.postForm(hc, h.issuer+"/consent", form)); q.Get("code") == "" {
		t.Errorf("approve once the store works: %v", q)
	}
}
