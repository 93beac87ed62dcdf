package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stepUpSeen is what stepup.mjs reports.
type stepUpSeen struct {
	Consents []struct {
		Scope, ClientID, Heading, Text, ReturnedTo string
		Buttons                                    []string
		Widths                                     map[string]int
	}
	Opened, Tools int
	Read, After   struct {
		IsError bool
		Text    string
	}
	Write struct {
		IsError      bool
		Text, Thrown string
	}
}

// TestOAuthStepUpKeepReadOnly: mcp-remote, connected through OAuth with
// read access, calls a write tool; the gateway refuses it with 403
// insufficient_scope and mcp-remote opens the consent page again for
// mcp:write. In Chromium the step-up page names each kind of write, and
// offers two choices only, "Add write access" and "Keep read only"; the
// person keeps read only. mcp-remote is told access_denied, the write
// call fails saying so, the next read call works with the grant it had,
// no further consent page is opened, and the client still has its one
// read grant, unrevoked. The page fits 375 and 1280 pixels; with
// -update-screenshots its pictures replace
// docs/images/consent-stepup-{375,1280}.png.
func TestOAuthStepUpKeepReadOnly(t *testing.T) {
	requireStandIn(t)
	node := oauthNode(t)
	gw := startGateway(t, writeVars())
	port := portForChild(t)
	const message = "step-up e2e: never written"
	forgetMessage(t, message)
	shots := t.TempDir()
	if *updateScreenshots {
		var err error
		if shots, err = filepath.Abs(filepath.Join("..", "..", "..", "docs", "images")); err != nil {
			t.Fatal(err)
		}
	}
	var r stepUpSeen
	if err := runNodeJSON(node, oauthClientDir, &r, "stepup.mjs", gw+"/functions/v1/mcp-server", "alice.instructor@example.edu", strconv.Itoa(port), message, "Keep read only", shots); err != nil {
		t.Fatal(err)
	}
	if len(r.Consents) != 2 {
		t.Fatalf("%d consent pages answered, want 2: %+v", len(r.Consents), r)
	}
	var scopes []string
	for _, c := range r.Consents {
		scopes = append(scopes, c.Scope)
	}
	if diff := cmp.Diff([]string{"mcp:read offline_access", "mcp:read mcp:write offline_access"}, scopes); diff != "" {
		t.Errorf("authorizations' scopes (-want +got):\n%s", diff)
	}
	up := r.Consents[1]
	if up.Heading != "Give MCP CLI Proxy more access as you?" {
		t.Errorf("step-up heading %q", up.Heading)
	}
	if diff := cmp.Diff([]string{"Add write access", "Keep read only"}, up.Buttons); diff != "" {
		t.Errorf("step-up choices (-want +got):\n%s", diff)
	}
	for _, kind := range []string{"Replies in help requests", "Help request status changes", "Replies in discussion threads",
		"Comments on regrade requests", "Decisions on regrade requests, which change a student's score",
		"Rubric comments on a submission's review, which change its grade"} {
		if !strings.Contains(up.Text, kind) {
			t.Errorf("the step-up page does not name %q:\n%s", kind, up.Text)
		}
	}
	for width, scroll := range up.Widths {
		if w, _ := strconv.Atoi(width); scroll == 0 || scroll > w {
			t.Errorf("at %s px the step-up page is %d px wide", width, scroll)
		}
	}
	if len(up.Widths) != 2 {
		t.Errorf("the page was measured at %v, want 375 and 1280", up.Widths)
	}
	back, err := url.Parse(up.ReturnedTo)
	if err != nil || back.Query().Get("error") != "access_denied" || !strings.Contains(back.Query().Get("error_description"), "added nothing") || back.Query().Get("code") != "" {
		t.Errorf("Keep read only sent the browser to %q, want access_denied and no code", up.ReturnedTo)
	}

	if r.Read.IsError || r.Read.Text != assignmentJSON || r.After.IsError || r.After.Text != assignmentJSON {
		t.Errorf("read calls before and after the step-up: %+v, %+v", r.Read, r.After)
	}
	if failed := r.Write.Thrown + r.Write.Text; !strings.Contains(failed, "access_denied") || (r.Write.Thrown == "" && !r.Write.IsError) {
		t.Errorf("the write call: %+v, want a failure naming access_denied", r.Write)
	}
	if r.Opened != 2 {
		t.Errorf("mcp-remote opened %d authorization pages, want 2 (no consent after Keep read only)", r.Opened)
	}
	if n := messagesWith(t, message); n != 0 {
		t.Errorf("%d rows hold the message, want none", n)
	}
	if diff := cmp.Diff([]grantListed{{Scopes: []string{"mcp:read"}}}, clientGrants(t, r.Consents[0].ClientID)); diff != "" {
		t.Errorf("the client's grants (-want +got):\n%s", diff)
	}
	for _, width := range []string{"375", "1280"} {
		if _, err := os.Stat(filepath.Join(shots, "consent-stepup-"+width+".png")); err != nil {
			t.Error(err)
		}
	}
}

// grantListed is a grant's scopes and whether it is revoked.
type grantListed struct {
	Scopes  []string
	Revoked bool
}

// clientGrants lists the grants issued to clientID (api_tokens rows
// marked with their client in mcp_oauth_grants), oldest first. Other
// tests connect mcp-remote as the same person under the same client name
// at the same time, so the grants are found by the client's id.
func clientGrants(t *testing.T, clientID string) []grantListed {
	t.Helper()
	rows, err := env.DB(t).Query(context.Background(), `SELECT a.scopes, a.revoked_at IS NOT NULL FROM public.api_tokens a
		JOIN public.mcp_oauth_grants g USING (token_id) WHERE g.client_id = $1 ORDER BY a.created_at`, clientID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []grantListed
	for rows.Next() {
		var g grantListed
		if err := rows.Scan(&g.Scopes, &g.Revoked); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
