package oauthserver

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// writeScopeHTML is the consent page's line for mcp:write: each kind of
// write, and who sees it once approved, as the write tools' approval
// previews say (functions/mcpserver/tools).
const writeScopeHTML = `<li>Propose changes in Pawtograder as you; nothing is written until you approve each one yourself on a Pawtograder page, which shows the change and who will see it. It may propose:<ul>` +
	`<li><strong>Replies in help requests</strong>: the request&#39;s students see them, and everyone in the course for a public request, unless you make a reply visible to staff only.</li>` +
	`<li><strong>Help request status changes</strong>: the request&#39;s students and everyone else who can see the request see its new status (in progress assigns it to you; resolved and closed record you as its resolver).</li>` +
	`<li><strong>Replies in discussion threads</strong>: everyone in the course sees them; in a staff-only thread, or when you make a reply staff only, only the course&#39;s instructors and graders and the thread&#39;s poster.</li>` +
	`<li><strong>Comments on regrade requests</strong>: the submission&#39;s students see them at once.</li>` +
	`<li><strong>Decisions on regrade requests, which change a student&#39;s score</strong>: the submission&#39;s students read your reason at once, and see the new points at once when the review is released, otherwise when it is.</li>` +
	`<li><strong>Rubric comments on a submission&#39;s review, which change its grade</strong>: the submission&#39;s students see the comment and the new score at once when the review is released, otherwise when it is.</li>` +
	`</ul></li>`

// TestConsentApproveReadOnly: a client asking for mcp:write on a new
// connection gets a consent page that names each kind of write and who
// sees it, and offers "Approve read only"; that button grants every requested scope but mcp:write (the
// code, the token response, the access token's claims and the grant),
// while Approve grants mcp:write. A request without mcp:write offers no
// such button, and a posted approve_read is then refused.
func TestConsentApproveReadOnly(t *testing.T) {
	const readOnlyButton = `<button class="secondary" type="submit" name="decision" value="approve_read">Approve read only</button>`
	cases := []struct {
		name, scope, decision string
		wantButton            bool
		wantScopes            []string // nil: the decision is refused
	}{
		{name: "read only", scope: "mcp:read mcp:write offline_access", decision: "approve_read", wantButton: true, wantScopes: []string{"mcp:read"}},
		{name: "approve", scope: "mcp:read mcp:write offline_access", decision: "approve", wantButton: true, wantScopes: []string{"mcp:read", "mcp:write"}},
		{name: "read only, write asked alone", scope: "mcp:write", decision: "approve_read", wantButton: true, wantScopes: []string{}},
		{name: "no write asked", scope: "mcp:read", decision: "approve_read", wantButton: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			clientID := h.register()
			params := h.authorizeParams(clientID)
			params.Set("scope", tc.scope)
			hc := h.newBrowser()
			page := h.consentPage(hc, params)
			if page.status != 200 {
				t.Fatalf("consent page: %d %s", page.status, page.body)
			}
			if got := strings.Contains(page.body, readOnlyButton); got != tc.wantButton {
				t.Errorf("Approve read only offered: %v, want %v", got, tc.wantButton)
			}
			if tc.wantButton && !strings.Contains(page.body, writeScopeHTML) {
				t.Errorf("the consent page does not say what mcp:write allows, in these words:\n%s\npage:\n%s", writeScopeHTML, page.body)
			}
			r := h.postForm(hc, h.issuer+"/consent", url.Values{"csrf_token": {csrfOf(t, page.body)}, "decision": {tc.decision}})
			if tc.wantScopes == nil {
				if r.status != 400 || !strings.Contains(r.body, "Choose one of the consent page&#39;s buttons.") {
					t.Errorf("approve_read without mcp:write: %d %s", r.status, r.body)
				}
				if len(h.store.grants) != 0 {
					t.Errorf("grants after a refused decision: %v", h.store.grants)
				}
				return
			}
			if r.status != 303 {
				t.Fatalf("decision: %d %s", r.status, r.body)
			}
			loc, _ := url.Parse(r.header.Get("Location"))
			tk := decodeTokens(t, h.exchange(clientID, loc.Query().Get("code")))
			if tk.Scope != strings.Join(tc.wantScopes, " ") {
				t.Errorf("token response scope %q, want %q", tk.Scope, strings.Join(tc.wantScopes, " "))
			}
			claims, err := mcpauth.VerifyAPIToken(testMCPSecret, tk.AccessToken, h.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantScopes, claims.Scopes); diff != "" {
				t.Errorf("access token scopes (-want +got):\n%s", diff)
			}
			g := h.store.grants[claims.TokenID]
			if g == nil {
				t.Fatalf("no grant for %s", claims.TokenID)
			}
			if diff := cmp.Diff(tc.wantScopes, g.Scopes); diff != "" {
				t.Errorf("grant scopes (-want +got):\n%s", diff)
			}
		})
	}
}
