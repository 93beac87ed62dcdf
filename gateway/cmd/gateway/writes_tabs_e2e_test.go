package main

import (
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// TestWritesTabsInChromium: one Chromium, two approval links. Both tabs
// reach the sign-in page before either signs in, and the later one signs
// in first: each sign-in lands on a review page (no "sign-in service did
// not accept"), one per link. Then two tabs of one link approve it in
// turn: the first writes, the second says it was already approved, and
// the message exists once.
func TestWritesTabsInChromium(t *testing.T) {
	requireStandIn(t)
	gw := startGateway(t, writeVars())
	endpoint := gw + "/functions/v1/mcp-server"
	token := createWriteToken(t, gw, env.SessionToken(t, gatewaytest.Alice))
	messages := map[string]string{}
	var links []string
	for _, m := range []string{"writes e2e: tab A", "writes e2e: tab B"} {
		forgetMessage(t, m)
		link, _ := proposeReply(t, endpoint, token, m)
		messages[link] = m
		links = append(links, link)
	}
	var seen struct {
		SignIns []struct {
			pageSeen
			URL string `json:"url"`
		} `json:"signIns"`
		SecondTab pageSeen   `json:"secondTab"`
		Decisions []pageSeen `json:"decisions"`
		Link      string     `json:"link"`
	}
	if err := runWrites(oauthNode(t), &seen, "tabs", links[0], links[1], "alice.instructor@example.edu"); err != nil {
		t.Fatal(err)
	}
	landed := map[string]bool{}
	for i, s := range seen.SignIns {
		if s.Status != 200 || s.Heading != "Review a change proposed by your assistant" || s.ApproveButton != 1 {
			t.Errorf("sign-in %d: %d %q", i, s.Status, s.Heading)
		}
		landed[s.URL] = true
	}
	if len(seen.SignIns) != 2 || !landed[links[0]] || !landed[links[1]] {
		t.Errorf("the two sign-ins landed on %v, want both links %v", landed, links)
	}
	if seen.SecondTab.Heading != "Review a change proposed by your assistant" {
		t.Errorf("the second tab of %s: %q", seen.Link, seen.SecondTab.Heading)
	}
	want := []string{"Approved and written", "Already approved"}
	for i, d := range seen.Decisions {
		if d.Status != 200 || d.Heading != want[i] {
			t.Errorf("decision %d: %d %q, want 200 %q\n%s", i, d.Status, d.Heading, want[i], d.Text)
		}
	}
	if n := messagesWith(t, messages[seen.Link]); n != 1 {
		t.Errorf("%d messages for %s, want 1", n, seen.Link)
	}
}
