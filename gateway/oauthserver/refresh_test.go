package oauthserver

import (
	"net/url"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

const badRefreshBody = `{"error":"invalid_grant","error_description":"The refresh token is invalid, expired or revoked"}`

// grantFor runs the flow to a first token pair and returns it with the
// grant's token id.
func (h *harness) grantFor(clientID string) (tokens, string) {
	h.t.Helper()
	tk := decodeTokens(h.t, h.exchange(clientID, h.approve(clientID)))
	claims, err := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.clock.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	return tk, claims.TokenID
}

func (h *harness) refreshWith(clientID, rt string, extra url.Values) reply {
	v := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {clientID}}
	for k, vs := range extra {
		v[k] = vs
	}
	return h.postForm(h.hc, h.issuer+"/token", v)
}

// TestRefusedRefreshKeepsToken: a refresh refused for its parameters
// (a scope beyond the grant, a resource of another server, another
// client) spends nothing; the client's next ordinary refresh works and the
// grant stays.
func TestRefusedRefreshKeepsToken(t *testing.T) {
	cases := []struct {
		name  string
		extra func(h *harness) url.Values
		other bool
		body  string
	}{
		{"wider scope", func(*harness) url.Values { return url.Values{"scope": {"mcp:read mcp:write"}} }, false,
			`{"error":"invalid_scope","error_description":"scope exceeds what was granted"}`},
		{"another client", func(h *harness) url.Values { return nil }, true, badRefreshBody},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			clientID := h.register()
			tk, tokenID := h.grantFor(clientID)
			presenter := clientID
			if tc.other {
				presenter = h.register()
			}
			checkJSON(t, h.refreshWith(presenter, tk.RefreshToken, tc.extra(h)), 400, tc.body)
			if r := h.refreshWith(clientID, tk.RefreshToken, nil); r.status != 200 {
				t.Errorf("the next ordinary refresh: %d %s", r.status, r.body)
			}
			if h.store.isRevoked(tokenID) {
				t.Error("a refused refresh led to the grant's revocation")
			}
		})
	}
}

// TestRefreshRetry: a refresh whose answer was lost can be repeated with
// the same token for as long as the replacement it got has not been
// used; each repeat supersedes the previous replacement. Once the
// newest replacement is used, the old token is reuse and revokes the
// grant.
func TestRefreshRetry(t *testing.T) {
	h := newHarness(t, nil)
	clientID := h.register()
	tk, tokenID := h.grantFor(clientID)
	lost := decodeTokens(t, h.refreshWith(clientID, tk.RefreshToken, nil))    // the answer the client never got
	retried := decodeTokens(t, h.refreshWith(clientID, tk.RefreshToken, nil)) // its retry
	if retried.RefreshToken == lost.RefreshToken || h.store.isRevoked(tokenID) {
		t.Fatalf("retry: same token %v, revoked %v", retried.RefreshToken == lost.RefreshToken, h.store.isRevoked(tokenID))
	}
	// The retry's replacement is the one that lives on.
	next := decodeTokens(t, h.refreshWith(clientID, retried.RefreshToken, nil))
	// Now the original is reuse: refused, and the grant is revoked.
	checkJSON(t, h.refreshWith(clientID, tk.RefreshToken, nil), 400, badRefreshBody)
	if !h.store.isRevoked(tokenID) {
		t.Error("reuse after the replacement was used did not revoke the grant")
	}
	checkJSON(t, h.refreshWith(clientID, next.RefreshToken, nil), 400, badRefreshBody)
}

// TestSupersededReplacementIsReuse: the replacement a retry superseded
// (the "lost" answer, had an attacker caught it) is reuse when presented.
func TestSupersededReplacementIsReuse(t *testing.T) {
	h := newHarness(t, nil)
	clientID := h.register()
	tk, tokenID := h.grantFor(clientID)
	lost := decodeTokens(t, h.refreshWith(clientID, tk.RefreshToken, nil))
	decodeTokens(t, h.refreshWith(clientID, tk.RefreshToken, nil))
	checkJSON(t, h.refreshWith(clientID, lost.RefreshToken, nil), 400, badRefreshBody)
	if !h.store.isRevoked(tokenID) {
		t.Error("a superseded replacement did not revoke the grant")
	}
}
